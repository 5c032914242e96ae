import { INACTIVITY_TIMEOUT_KEY, type DeviceRow } from '../platform/devices.ts';
import type { Services } from '../platform/services.ts';
import type { RuleEngine } from '../rule-engine/rule-engine.ts';
import { newMsg } from '../platform/tb-msg.ts';

interface ActivityState {
  device: DeviceRow;
  lastActivity: number;
  active: boolean;
  /** the device's own `inactivityTimeout` server attribute (ms), as ThingsBoard's DefaultDeviceStateService reads it */
  timeoutMs: number | undefined;
}

type ActivityEvent = 'CONNECT_EVENT' | 'DISCONNECT_EVENT' | 'ACTIVITY_EVENT' | 'INACTIVITY_EVENT';

interface PendingEvent {
  type: ActivityEvent | undefined;
  device: DeviceRow;
  attrs: Record<string, unknown>;
}

export { INACTIVITY_TIMEOUT_KEY };

/** Timeouts read with CONNECTs' credentials, kept until the next batch is written; more are not kept. */
const MAX_PREFETCHED = 100_000;

function timeoutOf(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
}

/**
 * CONNECT / DISCONNECT / ACTIVITY / INACTIVITY events and the server attributes ThingsBoard keeps for
 * them (active, lastConnectTime, lastDisconnectTime, lastActivityTime, written on transitions only).
 * They are gathered over one turn of the event loop and written in one store write after it, so a
 * fleet connecting at once has its CONNACKs sent first and its attributes saved in batches.
 */
export class DeviceActivity {
  private readonly state = new Map<string, ActivityState>();
  private readonly services: Services;
  private readonly engine: RuleEngine;
  private readonly timeoutMs: number;
  private readonly timer: NodeJS.Timeout;
  private messages = 0;
  private pending: PendingEvent[] = [];
  private flushScheduled = false;
  /** devices seen for the first time: the next batch reads their stored timeouts */
  private timeoutsToRead: ActivityState[] = [];
  /** stored timeouts (undefined: none) of devices whose CONNECT credentials were just looked up */
  private readonly prefetched = new Map<string, unknown>();

  private readonly onAttributes = (e: {
    deviceId: string;
    scope: string;
    values: Record<string, unknown>;
  }) => {
    if (e.scope !== 'SERVER_SCOPE' || !(INACTIVITY_TIMEOUT_KEY in e.values)) return;
    const s = this.state.get(e.deviceId);
    if (s) s.timeoutMs = timeoutOf(e.values[INACTIVITY_TIMEOUT_KEY]);
    if (this.prefetched.has(e.deviceId)) this.prefetched.set(e.deviceId, e.values[INACTIVITY_TIMEOUT_KEY]);
  };

  private readonly onAttributesDeleted = (e: { deviceId: string; scope: string; keys: string[] }) => {
    if (
      e.scope === 'SERVER_SCOPE' &&
      e.keys.includes(INACTIVITY_TIMEOUT_KEY) &&
      this.prefetched.has(e.deviceId)
    )
      this.prefetched.set(e.deviceId, undefined);
  };

  private readonly onDevicesRead = (e: {
    devices: readonly { id: string }[];
    inactivityTimeouts?: ReadonlyMap<string, unknown>;
  }) => {
    const timeouts = e.inactivityTimeouts;
    if (!timeouts || this.prefetched.size + e.devices.length > MAX_PREFETCHED) return;
    for (const d of e.devices) if (!this.state.has(d.id)) this.prefetched.set(d.id, timeouts.get(d.id));
  };

  constructor(services: Services, engine: RuleEngine, inactivityTimeoutMs: number) {
    this.services = services;
    this.engine = engine;
    this.timeoutMs = inactivityTimeoutMs;
    services.ctx.events.on('attributes', this.onAttributes);
    services.ctx.events.on('attributesDeleted', this.onAttributesDeleted);
    services.ctx.events.on('devicesRead', this.onDevicesRead);
    // every second: a device's own timeout may be much shorter than the default
    this.timer = setInterval(() => this.sweep(), 1000);
    this.timer.unref();
  }

  /** A CONNECT: its event, and the activity it is; their server attributes are saved in one write. */
  connected(device: DeviceRow): void {
    const now = Date.now();
    this.messages++;
    const becameActive = this.markActive(device, now);
    const connect = { active: true, lastConnectTime: now };
    const activity = { active: true, lastActivityTime: now };
    this.queue(undefined, device, becameActive ? { ...connect, lastActivityTime: now } : connect);
    this.queue('CONNECT_EVENT', device, connect);
    if (becameActive) this.queue('ACTIVITY_EVENT', device, activity);
  }

  disconnected(device: DeviceRow): void {
    this.event('DISCONNECT_EVENT', device, { lastDisconnectTime: Date.now() });
  }

  /** Every message of a device counts as activity. */
  touch(device: DeviceRow): void {
    this.messages++;
    const now = Date.now();
    if (this.markActive(device, now))
      this.event('ACTIVITY_EVENT', device, { active: true, lastActivityTime: now });
  }

  /** Records activity now; true when the device was not active before (an ACTIVITY event is due). */
  private markActive(device: DeviceRow, now: number): boolean {
    const s = this.state.get(device.id);
    if (s) {
      s.lastActivity = now;
      if (s.active) return false;
      s.active = true;
      return true;
    }
    const state: ActivityState = { device, lastActivity: now, active: true, timeoutMs: undefined };
    this.state.set(device.id, state);
    if (this.prefetched.has(device.id)) {
      state.timeoutMs = timeoutOf(this.prefetched.get(device.id));
      this.prefetched.delete(device.id);
    } else this.timeoutsToRead.push(state);
    return true;
  }

  forget(deviceId: string): void {
    this.state.delete(deviceId);
    this.prefetched.delete(deviceId);
  }

  /** Messages seen since start, for the messages/s counter. */
  messageCount(): number {
    return this.messages;
  }

  stop(): void {
    this.flush();
    clearInterval(this.timer);
    this.services.ctx.events.off('attributes', this.onAttributes);
    this.services.ctx.events.off('attributesDeleted', this.onAttributesDeleted);
    this.services.ctx.events.off('devicesRead', this.onDevicesRead);
  }

  private sweep(): void {
    const now = Date.now();
    for (const s of this.state.values()) {
      if (s.active && now - s.lastActivity >= (s.timeoutMs ?? this.timeoutMs)) {
        s.active = false;
        this.event('INACTIVITY_EVENT', s.device, { active: false, inactivityAlarmTime: now });
      }
    }
  }

  private event(type: ActivityEvent, device: DeviceRow, attrs: Record<string, unknown>): void {
    this.queue(undefined, device, attrs);
    this.queue(type, device, attrs);
  }

  /** An attribute save (type undefined) or a rule engine event, in the order they happened. */
  private queue(type: ActivityEvent | undefined, device: DeviceRow, attrs: Record<string, unknown>): void {
    this.pending.push({ type, device, attrs });
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    // what is not taken up by now (a CONNECT refused or dropped) is read again if that device connects later
    this.prefetched.clear();
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    if (this.timeoutsToRead.length) {
      const stored = this.services.telemetry.attributeOfMany(
        this.timeoutsToRead.map((s) => s.device.id),
        'SERVER_SCOPE',
        INACTIVITY_TIMEOUT_KEY,
      );
      for (const s of this.timeoutsToRead) s.timeoutMs = timeoutOf(stored.get(s.device.id));
      this.timeoutsToRead = [];
    }
    const saves = batch.flatMap((e) =>
      e.type ? [] : [{ deviceId: e.device.id, scope: 'SERVER_SCOPE' as const, values: e.attrs }],
    );
    this.services.telemetry.saveAttributesBatch(saves).catch(() => undefined);
    for (const e of batch)
      if (e.type)
        this.engine.submit(
          newMsg(e.type, { entityType: 'DEVICE', id: e.device.id }, e.attrs, {
            deviceName: e.device.name,
            deviceType: e.device.type,
          }),
        );
  }
}
