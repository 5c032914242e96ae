/**
 * The device profile node's work (ThingsBoard's TbDeviceProfileNode): finds a device's profile rules
 * (cached, refreshed when a profile or device changes), keeps a bounded set of device states in memory,
 * judges each message of a device one at a time, persists the rules' progress before the message goes on,
 * and checks DURATION rules once a minute when no message comes.
 */
import { NULL_UUID } from '../../../shared/schemas/common.ts';
import type { AttributeScope } from '../../../shared/schemas/telemetry.ts';
import type { DeviceRow } from '../../platform/devices.ts';
import { newMsg, type TbMsg } from '../../platform/tb-msg.ts';
import { PerOriginator } from '../per-originator.ts';
import { errorText, failure, success, type NodeOutput, type RuleEnv } from '../rule-node.ts';
import { RuleNodeStates } from '../rule-node-states.ts';
import type { AlarmActions } from './alarm-state.ts';
import { conditionKey, splitConditionKey, type DataSnapshot, type DynamicSource } from './condition.ts';
import { DeviceState, type DeviceEnv, type DeviceProgress } from './device-state.ts';
import { keyValueOf } from './key-value.ts';
import { profileRules, type ProfileRules } from './profile-rules.ts';

/** ThingsBoard's periodic self message: DURATION rules are checked this often without a message. */
export const HARVEST_INTERVAL_MS = 60_000;
/** Devices whose evaluation state stays in memory; the least recently used beyond it is reloaded when needed. */
export const MAX_DEVICE_STATES = 50_000;
const MAX_CACHED_DEVICES = 100_000;
const ATTRIBUTE_SCOPES: AttributeScope[] = ['CLIENT_SCOPE', 'SHARED_SCOPE', 'SERVER_SCOPE'];

export interface EvaluatorOptions {
  harvestIntervalMs?: number;
  maxDeviceStates?: number;
}

export class ProfileAlarmEvaluator {
  private readonly env: RuleEnv;
  private readonly states: RuleNodeStates;
  private readonly emit: (msg: TbMsg, relation: string) => void;
  private readonly devices = new Map<string, DeviceState>();
  /** device id -> profile id */
  private readonly profileOfDevice = new Map<string, string>();
  /** profile id -> its rules (null: none) */
  private readonly rulesOfProfile = new Map<string, ProfileRules | null>();
  /** a device's messages one at a time: the next waits for the last one's alarm or state write */
  private readonly serial = new PerOriginator();
  private readonly harvestMs: number;
  private readonly maxStates: number;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private destroyed = false;

  constructor(
    env: RuleEnv,
    nodeId: string,
    emit: (msg: TbMsg, relation: string) => void,
    options: EvaluatorOptions = {},
  ) {
    this.env = env;
    this.states = new RuleNodeStates(env.services.ctx.db, nodeId);
    this.emit = emit;
    this.harvestMs = options.harvestIntervalMs ?? HARVEST_INTERVAL_MS;
    this.maxStates = options.maxDeviceStates ?? MAX_DEVICE_STATES;
    this.listen();
  }

  /** Reloads the devices whose rules were part way when the platform stopped, and starts the periodic check. */
  start(): void {
    if (this.destroyed || this.timer) return;
    for (const [deviceId, progress] of this.states.all(this.maxStates)) {
      const rules = this.rulesOfDevice(deviceId);
      if (!rules || rules.problem || this.devices.has(deviceId)) continue;
      const state = this.newState(deviceId, rules, progress as DeviceProgress);
      if (state.inProgress) this.keep(state);
    }
    this.timer = setInterval(() => this.harvest(), this.harvestMs);
    this.timer.unref();
  }

  destroy(): void {
    this.destroyed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unsubscribe?.();
    this.devices.clear();
  }

  process(msg: TbMsg): NodeOutput[] | Promise<NodeOutput[]> {
    if (msg.originator.entityType !== 'DEVICE') return success(msg);
    const deviceId = msg.originator.id;
    if (msg.type === 'ENTITY_DELETED') {
      this.forget(deviceId);
      return success(msg);
    }
    if (msg.type === 'ENTITY_UPDATED' || msg.type === 'ENTITY_ASSIGNED' || msg.type === 'ENTITY_UNASSIGNED') {
      this.profileOfDevice.delete(deviceId);
      return success(msg);
    }
    const rules = this.rulesOfDevice(deviceId);
    // ThingsBoard acknowledges a message of a device that is gone.
    if (rules === undefined) return [];
    if (rules === null) return success(msg);
    if (rules.problem) return failure(msg, new Error(rules.problem));
    return this.serial.runInline(deviceId, () => this.judge(deviceId, rules, msg));
  }

  /** Judges a message; synchronous unless an alarm or the rules' progress must be written. */
  private judge(deviceId: string, rules: ProfileRules, msg: TbMsg): NodeOutput[] | Promise<NodeOutput[]> {
    const state = this.stateOf(deviceId, rules);
    const changed = state.process(msg);
    if (changed === false) return success(msg);
    return (async () => {
      if (await changed) await this.persist(state);
      return success(msg);
    })();
  }

  // --- device states ------------------------------------------------------------------------------

  private stateOf(deviceId: string, rules: ProfileRules): DeviceState {
    let state = this.devices.get(deviceId);
    if (state && state.rules !== rules) state.updateRules(rules);
    if (state) {
      // most recently used last
      this.devices.delete(deviceId);
      this.devices.set(deviceId, state);
      return state;
    }
    const progress = this.states.get(deviceId) as DeviceProgress | undefined;
    state = this.newState(deviceId, rules, progress ?? null);
    this.keep(state);
    return state;
  }

  private keep(state: DeviceState): void {
    this.devices.set(state.deviceId, state);
    while (this.devices.size > this.maxStates) {
      const oldest = this.devices.keys().next().value!;
      this.devices.delete(oldest);
    }
  }

  private newState(deviceId: string, rules: ProfileRules, progress: DeviceProgress | null): DeviceState {
    return new DeviceState(deviceId, rules, progress, this.deviceEnv(deviceId));
  }

  private async persist(state: DeviceState): Promise<void> {
    await this.states.save({ entityType: 'DEVICE', id: state.deviceId }, state.progress);
  }

  /** Drops a device's state (its rows go with the device, or when its profile changes). */
  private forget(deviceId: string): void {
    this.devices.delete(deviceId);
    this.profileOfDevice.delete(deviceId);
  }

  private harvest(): void {
    const now = Date.now();
    for (const state of [...this.devices.values()]) {
      if (!state.inProgress) continue;
      void this.serial
        .run(state.deviceId, async () => {
          if (this.destroyed || this.devices.get(state.deviceId) !== state) return;
          if (await state.harvest(now)) await this.persist(state);
        })
        .catch((err: unknown) =>
          this.env.log(`[device profile] alarm check of device ${state.deviceId} failed: ${errorText(err)}`),
        );
    }
  }

  // --- profiles -----------------------------------------------------------------------------------

  /** The device's profile rules; null: its profile has none; undefined: no such device. */
  private rulesOfDevice(deviceId: string): ProfileRules | null | undefined {
    let profileId = this.profileOfDevice.get(deviceId);
    if (profileId === undefined) {
      profileId = this.env.services.devices.findRow(deviceId)?.device_profile_id;
      if (profileId === undefined) return undefined;
      if (this.profileOfDevice.size >= MAX_CACHED_DEVICES) this.profileOfDevice.clear();
      this.profileOfDevice.set(deviceId, profileId);
    }
    return this.rulesOf(profileId);
  }

  private rulesOf(profileId: string): ProfileRules | null {
    if (this.rulesOfProfile.has(profileId)) return this.rulesOfProfile.get(profileId)!;
    const row = this.env.services.profiles.findRow(profileId);
    let data: unknown;
    try {
      data = row?.profile_data ? JSON.parse(row.profile_data) : null;
    } catch {
      data = null;
    }
    const rules = profileRules(profileId, data);
    this.rulesOfProfile.set(profileId, rules);
    return rules;
  }

  /** Profile and device changes apply to the next message, as ThingsBoard's profile listeners do. */
  private listen(): void {
    const events = this.env.services.ctx.events;
    const onProfile = ({ profileId }: { profileId: string }) => {
      this.rulesOfProfile.delete(profileId);
      const rules = this.rulesOf(profileId);
      const dropped: string[] = [];
      for (const state of [...this.devices.values()]) {
        if (state.profileId !== profileId) continue;
        if (rules && !rules.problem) continue; // taken up on the device's next message (stateOf)
        this.devices.delete(state.deviceId);
        dropped.push(state.deviceId);
      }
      this.dropRows(dropped);
    };
    const onDevice = ({ deviceId }: { deviceId: string }) => {
      this.profileOfDevice.delete(deviceId);
      const state = this.devices.get(deviceId);
      if (!state) return;
      if (this.env.services.devices.findRow(deviceId)?.device_profile_id !== state.profileId) {
        this.devices.delete(deviceId);
        this.dropRows([deviceId]);
      }
    };
    const onDeviceDeleted = ({ deviceId }: { deviceId: string }) => this.forget(deviceId);
    // a fleet's CONNECTs read their devices' rows: their CONNECT events need not read them again
    const onDevicesRead = ({
      devices,
    }: {
      devices: readonly { id: string; device_profile_id: string }[];
    }) => {
      if (this.profileOfDevice.size + devices.length > MAX_CACHED_DEVICES) return;
      for (const d of devices) this.profileOfDevice.set(d.id, d.device_profile_id);
    };
    events.on('profileChanged', onProfile);
    events.on('deviceSaved', onDevice);
    events.on('deviceDeleted', onDeviceDeleted);
    events.on('devicesRead', onDevicesRead);
    this.unsubscribe = () => {
      events.off('profileChanged', onProfile);
      events.off('deviceSaved', onDevice);
      events.off('deviceDeleted', onDeviceDeleted);
      events.off('devicesRead', onDevicesRead);
    };
  }

  /** Progress that no longer applies (another profile, rules removed) must not resume later. */
  private dropRows(deviceIds: string[]): void {
    if (deviceIds.length === 0) return;
    this.states
      .remove(deviceIds)
      .catch((err: unknown) =>
        this.env.log(`[device profile] could not drop rule states: ${errorText(err)}`),
      );
  }

  // --- what a device state uses -------------------------------------------------------------------

  private deviceEnv(deviceId: string): DeviceEnv {
    const { services } = this.env;
    const originator = { entityType: 'DEVICE', id: deviceId };
    const attribute = (entityId: string, key: string) => {
      const found = services.telemetry.attributes(entityId, ['SERVER_SCOPE'], [key])[0];
      return found ? keyValueOf(found.value) : null;
    };
    const source: DynamicSource = {
      customerValue: (key) => {
        const customerId = services.devices.findRow(deviceId)?.customer_id;
        return customerId && customerId !== NULL_UUID ? attribute(customerId, key) : null;
      },
      tenantValue: (key) => attribute(services.ctx.tenantId, key),
    };
    const actions: AlarmActions = {
      findActive: (type) => services.alarms.findActive(originator, type),
      raise: ({ type, severity, details, alarm, startTs }) =>
        services.alarms.createOrUpdateActive({
          originator,
          type,
          severity,
          details,
          propagation: {
            propagate: alarm.propagate ?? false,
            propagateToOwner: alarm.propagateToOwner ?? false,
            propagateToTenant: alarm.propagateToTenant ?? false,
            propagateRelationTypes: alarm.propagateRelationTypes ?? [],
          },
          ...(startTs !== undefined ? { startTs } : {}),
        }),
      clear: (type, details) =>
        services.alarms.clearActive(originator, type, { clearTs: Date.now(), details }),
      emit: (relation, alarm, metadata, queueName) => {
        const msg = newMsg('ALARM', originator, alarm, metadata);
        if (queueName) msg.queueName = queueName;
        this.emit(msg, relation);
      },
      now: () => Date.now(),
    };
    return { actions, source, loadLatest: (snapshot, keys) => this.loadLatest(deviceId, snapshot, keys) };
  }

  /** The device's stored values of the keys: latest time series, attributes (server over shared over client), fields. */
  private loadLatest(deviceId: string, snapshot: DataSnapshot, keys: Set<string>): void {
    const { services } = this.env;
    const device: DeviceRow | undefined = services.devices.findRow(deviceId);
    if (!device) return;
    const series: string[] = [];
    const attributes: string[] = [];
    for (const k of keys) {
      const [type, name] = splitConditionKey(k);
      if (type === 'TIME_SERIES') series.push(name);
      else if (type === 'ATTRIBUTE') attributes.push(name);
      else if (type === 'ENTITY_FIELD') {
        const field =
          name === 'name'
            ? device.name
            : name === 'type'
              ? device.type
              : name === 'label'
                ? device.label
                : name === 'createdTime'
                  ? device.created_time
                  : undefined;
        const value = keyValueOf(field ?? null);
        if (value) snapshot.putValue(k, device.created_time, value);
      }
    }
    if (series.length > 0)
      for (const [name, point] of services.ctx.telemetry.latest(device.num, series)) {
        const value = keyValueOf(point.value);
        if (value) snapshot.putValue(conditionKey('TIME_SERIES', name), point.ts, value);
      }
    if (attributes.length > 0) {
      const found = services.telemetry.attributes(deviceId, ATTRIBUTE_SCOPES, attributes);
      found.sort((a, b) => ATTRIBUTE_SCOPES.indexOf(a.scope) - ATTRIBUTE_SCOPES.indexOf(b.scope));
      for (const a of found) {
        const value = keyValueOf(a.value);
        if (value) snapshot.putValue(conditionKey('ATTRIBUTE', a.key), a.lastUpdateTs, value);
      }
    }
  }
}
