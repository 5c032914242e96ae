/**
 * One alarm of a device profile on one device (ThingsBoard's AlarmState): its create rules from the
 * highest severity down and its clear rule, the device's current alarm of that type, and the messages the
 * node sends when it creates, updates or clears it.
 */
import { ALARM_SEVERITIES, type AlarmInfo, type AlarmSeverity } from '../../../shared/schemas/alarms.ts';
import type { AlarmRule, DeviceProfileAlarm } from '../../../shared/schemas/device-profile-alarms.ts';
import type { AlarmChange } from '../../platform/alarms.ts';
import type { TbMsg } from '../../platform/tb-msg.ts';
import { AlarmRuleState, newProgress, type EvalResult, type RuleProgress } from './alarm-rule-state.ts';
import { conditionKey, type DataSnapshot, type DynamicSource } from './condition.ts';
import { asString } from './key-value.ts';
import type { ProfileRules } from './profile-rules.ts';

/** ThingsBoard's PersistedAlarmState. */
export interface AlarmProgress {
  createRuleStates: Partial<Record<AlarmSeverity, RuleProgress>>;
  clearRuleState?: RuleProgress | null;
}

/** What an alarm state does to the platform, on behalf of the node. */
export interface AlarmActions {
  /** the device's active alarm of a type */
  findActive(type: string): AlarmInfo | undefined;
  raise(req: {
    type: string;
    severity: AlarmSeverity;
    details: unknown;
    alarm: DeviceProfileAlarm;
    startTs?: number;
  }): Promise<AlarmChange>;
  clear(type: string, details: unknown): Promise<AlarmChange | null>;
  /** sends an ALARM message out of the node on a relation (ThingsBoard's enqueueForTellNext) */
  emit(relation: string, alarm: AlarmInfo, metadata: Record<string, string>, queueName?: string): void;
  now(): number;
}

const rank = (s: AlarmSeverity) => ALARM_SEVERITIES.indexOf(s);

const RELATIONS: Record<string, { relation: string; flags: Record<string, string> }> = {
  CREATED: { relation: 'Alarm Created', flags: { isNewAlarm: 'true' } },
  UPDATED: { relation: 'Alarm Updated', flags: { isExistingAlarm: 'true' } },
  SEVERITY_UPDATED: {
    relation: 'Alarm Severity Updated',
    flags: { isExistingAlarm: 'true', isSeverityUpdated: 'true' },
  },
  CLEAR: { relation: 'Alarm Cleared', flags: { isClearedAlarm: 'true' } },
};

export class AlarmState {
  private definition!: DeviceProfileAlarm;
  private createRules: AlarmRuleState[] = [];
  private clearRule: AlarmRuleState | null = null;
  currentAlarm: AlarmInfo | null = null;
  private fetched = false;
  private lastMetadata: Record<string, string> | null = null;
  private lastQueueName: string | undefined;
  private snapshot: DataSnapshot | null = null;
  private readonly actions: AlarmActions;
  private readonly source: DynamicSource;

  constructor(
    rules: ProfileRules,
    alarm: DeviceProfileAlarm,
    progress: AlarmProgress,
    actions: AlarmActions,
    source: DynamicSource,
  ) {
    this.actions = actions;
    this.source = source;
    this.update(rules, alarm, progress);
  }

  get alarmType(): string {
    return this.definition.alarmType;
  }

  /** Takes a changed definition of the alarm, keeping the progress of rules that are still there. */
  update(rules: ProfileRules, alarm: DeviceProfileAlarm, progress: AlarmProgress): void {
    if (this.definition && this.definition.alarmType !== alarm.alarmType) {
      this.currentAlarm = null;
      this.fetched = false;
    }
    this.definition = alarm;
    const keys = rules.createKeys.get(alarm.id);
    this.createRules = (Object.entries(alarm.createRules) as [AlarmSeverity, AlarmRule][])
      .map(([severity, rule]) => {
        const p = (progress.createRuleStates[severity] ??= newProgress());
        return new AlarmRuleState(severity, rule, keys?.get(severity) ?? new Set(), p, this.source);
      })
      .sort((a, b) => rank(a.severity!) - rank(b.severity!));
    if (alarm.clearRule) {
      const p = (progress.clearRuleState ??= newProgress());
      this.clearRule = new AlarmRuleState(
        null,
        alarm.clearRule,
        rules.clearKeys.get(alarm.id) ?? new Set(),
        p,
        this.source,
      );
    } else {
      this.clearRule = null;
      progress.clearRuleState = null;
    }
  }

  /**
   * A data update: whether the rules' progress changed (to be persisted); a promise only when the alarm is
   * raised or cleared (a write), so that the common case stays synchronous.
   */
  process(msg: TbMsg, data: DataSnapshot, changed: Set<string> | null): boolean | Promise<boolean> {
    this.lastMetadata = msg.metadata;
    this.lastQueueName = msg.queueName;
    this.snapshot = data;
    return this.createOrClear(changed, (rule) => rule.eval(data));
  }

  /** The periodic check: a DURATION rule may have held long enough with no new message. */
  harvest(ts: number, data: DataSnapshot): boolean | Promise<boolean> {
    this.snapshot = data;
    return this.createOrClear(null, (rule) => rule.evalAt(ts, data));
  }

  /** The alarm was cleared by someone else: the create rules start over. */
  alarmCleared(alarmId: string): boolean {
    if (this.currentAlarm?.id.id !== alarmId) return false;
    this.currentAlarm = null;
    let changed = false;
    for (const rule of this.createRules) changed = this.reset(rule) || changed;
    return changed;
  }

  alarmAcknowledged(alarm: { id?: { id?: string }; acknowledged?: boolean; ackTs?: number }): void {
    if (this.currentAlarm && alarm.id?.id === this.currentAlarm.id.id)
      this.currentAlarm = {
        ...this.currentAlarm,
        acknowledged: alarm.acknowledged ?? true,
        ackTs: alarm.ackTs ?? this.currentAlarm.ackTs,
      };
  }

  isAlarm(alarmId: string): boolean {
    return this.currentAlarm?.id.id === alarmId;
  }

  private reset(rule: AlarmRuleState | null): boolean {
    if (!rule) return false;
    rule.clear();
    return rule.checkUpdate();
  }

  private createOrClear(
    changed: Set<string> | null,
    evaluate: (rule: AlarmRuleState) => EvalResult,
  ): boolean | Promise<boolean> {
    this.fetchCurrent();
    let stateChanged = false;
    let holding: AlarmRuleState | null = null;
    for (const rule of this.createRules) {
      if (changed && !rule.concerns(changed)) continue;
      const result = evaluate(rule);
      stateChanged = rule.checkUpdate() || stateChanged;
      if (result === 'TRUE') {
        holding = rule;
        break;
      }
      if (result === 'FALSE') stateChanged = this.reset(rule) || stateChanged;
    }
    if (holding) {
      const rule = holding;
      const before = stateChanged;
      return this.raise(rule).then((change) => {
        if (change?.kind) this.push(change.kind, change.alarm, rule);
        return this.reset(this.clearRule) || before;
      });
    }
    const clear = this.clearRule;
    if (this.currentAlarm && clear) {
      if (changed && !clear.concerns(changed)) return stateChanged;
      const result = evaluate(clear);
      if (result === 'TRUE') {
        stateChanged = this.reset(clear) || stateChanged;
        for (const rule of this.createRules) stateChanged = this.reset(rule) || stateChanged;
        const details = this.details(clear);
        const after = stateChanged;
        return this.actions.clear(this.definition.alarmType, details).then((change) => {
          if (change?.kind === 'CLEAR') this.push('CLEAR', change.alarm, clear);
          this.currentAlarm = null;
          return after;
        });
      } else if (result === 'FALSE') {
        stateChanged = this.reset(clear) || stateChanged;
      } else {
        stateChanged = clear.checkUpdate() || stateChanged;
      }
    }
    return stateChanged;
  }

  private fetchCurrent(): void {
    if (this.fetched) return;
    this.currentAlarm = this.actions.findActive(this.definition.alarmType) ?? null;
    this.fetched = true;
  }

  /** Creates the alarm, or updates the current one unless the new severity is lower (ThingsBoard skips that). */
  private async raise(rule: AlarmRuleState): Promise<AlarmChange | null> {
    const severity = rule.severity!;
    const current = this.currentAlarm;
    if (current && rank(severity) > rank(current.severity)) return null;
    let startTs: number | undefined;
    if (!current) {
      const now = this.actions.now();
      const ts = this.snapshot?.ts ?? 0;
      startTs = ts === 0 || ts > now ? now : ts;
    }
    const change = await this.actions.raise({
      type: this.definition.alarmType,
      severity,
      details: this.details(rule),
      alarm: this.definition,
      ...(startTs !== undefined ? { startTs } : {}),
    });
    this.currentAlarm = change.alarm;
    return change;
  }

  /** ThingsBoard's createDetails: {"data": alarmDetails with ${key} replaced} (and the dashboard), or the alarm's own. */
  private details(rule: AlarmRuleState): unknown {
    let text = rule.rule.alarmDetails;
    const dashboard = rule.rule.dashboardId as { id?: string } | string | null | undefined;
    const dashboardId = typeof dashboard === 'string' ? dashboard : dashboard?.id;
    if (text || dashboardId) {
      const out: Record<string, string> = {};
      if (text) {
        for (const f of rule.rule.condition.condition) {
          const value = this.snapshot?.getValue(conditionKey(f.key.type, f.key.key));
          if (value) text = text.replaceAll(`\${${f.key.key}}`, asString(value));
        }
        out.data = text;
      }
      if (dashboardId) out.dashboardId = dashboardId;
      return out;
    }
    return this.currentAlarm ? this.currentAlarm.details : {};
  }

  private push(kind: string, alarm: AlarmInfo, rule: AlarmRuleState): void {
    const r = RELATIONS[kind];
    if (!r) return;
    const metadata: Record<string, string> = { ...(this.lastMetadata ?? {}), ...r.flags };
    if (rule.spec.type === 'REPEATING') metadata.alarmConditionRepeats = String(rule.progress.eventCount);
    if (rule.spec.type === 'DURATION') metadata.alarmConditionDuration = String(rule.progress.duration);
    this.actions.emit(r.relation, alarm, metadata, this.lastQueueName);
  }
}
