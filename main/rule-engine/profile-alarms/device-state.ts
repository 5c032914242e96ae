/**
 * A device's alarm rule evaluation (ThingsBoard's DeviceState): its latest values of the keys the profile's
 * rules read, one AlarmState per alarm of the profile, and the persisted progress of every rule. Each
 * message that updates a key the rules read is judged at its own timestamp, oldest first.
 */
import type { DeviceProfileAlarm } from '../../../shared/schemas/device-profile-alarms.ts';
import { parseAttributes, parseTelemetry } from '../../platform/telemetry-payload.ts';
import type { TbMsg } from '../../platform/tb-msg.ts';
import { AlarmState, type AlarmActions, type AlarmProgress } from './alarm-state.ts';
import { conditionKey, DataSnapshot, type DynamicSource } from './condition.ts';
import { keyValueOf } from './key-value.ts';
import type { ProfileRules } from './profile-rules.ts';

/** ThingsBoard's PersistedDeviceState: the progress of every alarm of the profile, by alarm id. */
export interface DeviceProgress {
  alarmStates: Record<string, AlarmProgress>;
}

/** What a device state reads and does beyond its own memory. */
export interface DeviceEnv {
  actions: AlarmActions;
  source: DynamicSource;
  /** fills the snapshot with the device's stored values of these keys */
  loadLatest(snapshot: DataSnapshot, keys: Set<string>): void;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export class DeviceState {
  readonly deviceId: string;
  rules: ProfileRules;
  readonly progress: DeviceProgress;
  private readonly snapshot: DataSnapshot;
  private readonly alarms = new Map<string, AlarmState>();
  private readonly env: DeviceEnv;

  constructor(deviceId: string, rules: ProfileRules, progress: DeviceProgress | null, env: DeviceEnv) {
    this.deviceId = deviceId;
    this.rules = rules;
    this.env = env;
    this.progress = progress && isObject(progress.alarmStates) ? progress : { alarmStates: {} };
    this.snapshot = new DataSnapshot(new Set(rules.keys));
    env.loadLatest(this.snapshot, rules.keys);
    for (const alarm of rules.alarms) this.alarmState(alarm);
  }

  get profileId(): string {
    return this.rules.profileId;
  }

  /** Whether a rule is part way (a duration being counted, repeats being counted): worth the periodic check. */
  get inProgress(): boolean {
    for (const a of Object.values(this.progress.alarmStates)) {
      for (const p of Object.values(a.createRuleStates))
        if (p && (p.lastEventTs > 0 || p.eventCount > 0)) return true;
      if (a.clearRuleState && (a.clearRuleState.lastEventTs > 0 || a.clearRuleState.eventCount > 0))
        return true;
    }
    return false;
  }

  /** The profile's rules changed: alarms that are gone are forgotten, the others keep their progress. */
  updateRules(rules: ProfileRules): void {
    const added = [...rules.keys].filter((k) => !this.rules.keys.has(k));
    this.rules = rules;
    this.snapshot.retarget(new Set(rules.keys));
    if (added.length > 0) this.env.loadLatest(this.snapshot, new Set(added));
    const ids = new Set(rules.alarms.map((a) => a.id));
    for (const id of [...this.alarms.keys()]) if (!ids.has(id)) this.alarms.delete(id);
    for (const id of Object.keys(this.progress.alarmStates))
      if (!ids.has(id)) delete this.progress.alarmStates[id];
    for (const alarm of rules.alarms) {
      const existing = this.alarms.get(alarm.id);
      if (existing) existing.update(rules, alarm, this.alarmProgress(alarm.id));
      else this.alarmState(alarm);
    }
  }

  /**
   * Judges a message: whether the rules' progress changed (and must be persisted). A promise only when an
   * alarm is raised or cleared, or the message holds several timestamps.
   */
  process(msg: TbMsg): boolean | Promise<boolean> {
    switch (msg.type) {
      case 'POST_TELEMETRY_REQUEST':
        return this.telemetry(msg, msg.data);
      case 'TIMESERIES_UPDATED':
        return this.telemetry(
          msg,
          isObject(msg.data) && 'timeseries' in msg.data ? msg.data.timeseries : msg.data,
        );
      case 'POST_ATTRIBUTES_REQUEST':
        return this.attributes(msg);
      case 'ACTIVITY_EVENT':
      case 'INACTIVITY_EVENT':
        return msg.metadata.scope ? this.attributes(msg) : this.telemetry(msg, msg.data);
      case 'ATTRIBUTES_UPDATED':
        return this.attributes(msg);
      case 'ATTRIBUTES_DELETED':
        return this.attributesDeleted(msg);
      case 'ALARM_CLEAR': {
        const id = alarmIdOf(msg.data);
        let changed = false;
        if (id) for (const a of this.allAlarmStates()) changed = a.alarmCleared(id) || changed;
        return changed;
      }
      case 'ALARM_ACK':
        for (const a of this.allAlarmStates()) a.alarmAcknowledged(msg.data as { id?: { id?: string } });
        return false;
      case 'ALARM_DELETE': {
        const id = alarmIdOf(msg.data);
        if (id) for (const [key, a] of this.alarms) if (a.isAlarm(id)) this.alarms.delete(key);
        return false;
      }
      default:
        return false;
    }
  }

  /** The periodic check of every alarm at ts. */
  async harvest(ts: number): Promise<boolean> {
    let changed = false;
    for (const a of this.allAlarmStates()) changed = (await a.harvest(ts, this.snapshot)) || changed;
    return changed;
  }

  private telemetry(msg: TbMsg, data: unknown): boolean | Promise<boolean> {
    const metaTs = Number(msg.metadata.ts);
    const ts = Number.isFinite(metaTs) && metaTs > 0 ? metaTs : msg.ts;
    // The transports' messages: one {key: value} object at the metadata's ts.
    if (isObject(data) && !('ts' in data && 'values' in data)) {
      const updated = this.merge('TIME_SERIES', ts, data);
      return updated.size > 0 ? this.judge(msg, updated) : false;
    }
    const parsed = parseTelemetry(data, ts);
    if (!parsed.ok) throw new Error(parsed.error);
    const byTs = new Map<number, Record<string, unknown>>();
    for (const e of parsed.value) byTs.set(e.ts, { ...byTs.get(e.ts), ...e.values });
    return this.eachTs(msg, byTs);
  }

  /** Several timestamps in one message: judged one after the other, oldest first. */
  private async eachTs(msg: TbMsg, byTs: Map<number, Record<string, unknown>>): Promise<boolean> {
    let changed = false;
    for (const ts of [...byTs.keys()].sort((a, b) => a - b)) {
      const updated = this.merge('TIME_SERIES', ts, byTs.get(ts)!);
      if (updated.size > 0) changed = (await this.judge(msg, updated)) || changed;
    }
    return changed;
  }

  private attributes(msg: TbMsg): boolean | Promise<boolean> {
    const parsed = parseAttributes(msg.data);
    if (!parsed.ok) return false;
    const updated = this.merge('ATTRIBUTE', this.env.actions.now(), parsed.value);
    return updated.size > 0 ? this.judge(msg, updated) : false;
  }

  private attributesDeleted(msg: TbMsg): boolean | Promise<boolean> {
    const keys = isObject(msg.data) && Array.isArray(msg.data.attributes) ? msg.data.attributes : [];
    const removed = new Set<string>();
    for (const k of keys) {
      if (typeof k !== 'string') continue;
      const key = conditionKey('ATTRIBUTE', k);
      this.snapshot.removeValue(key);
      removed.add(key);
    }
    return removed.size > 0 ? this.judge(msg, removed) : false;
  }

  private merge(type: 'TIME_SERIES' | 'ATTRIBUTE', ts: number, values: Record<string, unknown>): Set<string> {
    const updated = new Set<string>();
    const names = this.rules.byName[type];
    for (const k in values) {
      const key = names.get(k);
      if (key === undefined) continue;
      const value = keyValueOf(values[k]);
      if (value && this.snapshot.putValue(key, ts, value)) updated.add(key);
    }
    this.snapshot.ts = ts;
    return updated;
  }

  /** Every alarm judges the update, one after the other (an alarm's write finishes before the next). */
  private judge(msg: TbMsg, updated: Set<string>, from = 0, before = false): boolean | Promise<boolean> {
    let changed = before;
    const alarms = this.rules.alarms;
    for (let i = from; i < alarms.length; i++) {
      const result = this.alarmState(alarms[i]!).process(msg, this.snapshot, updated);
      if (typeof result !== 'boolean')
        return result.then((c) => this.judge(msg, updated, i + 1, changed || c));
      changed = result || changed;
    }
    return changed;
  }

  private allAlarmStates(): AlarmState[] {
    return this.rules.alarms.map((a) => this.alarmState(a));
  }

  private alarmProgress(id: string): AlarmProgress {
    const existing = this.progress.alarmStates[id];
    if (existing && isObject(existing.createRuleStates)) return existing;
    const fresh: AlarmProgress = { createRuleStates: {} };
    this.progress.alarmStates[id] = fresh;
    return fresh;
  }

  private alarmState(alarm: DeviceProfileAlarm): AlarmState {
    let state = this.alarms.get(alarm.id);
    if (!state) {
      state = new AlarmState(
        this.rules,
        alarm,
        this.alarmProgress(alarm.id),
        this.env.actions,
        this.env.source,
      );
      this.alarms.set(alarm.id, state);
    }
    return state;
  }
}

function alarmIdOf(data: unknown): string | undefined {
  const id = isObject(data) && isObject(data.id) ? data.id.id : undefined;
  return typeof id === 'string' ? id : undefined;
}
