import { MqttTap, type TappedPublish } from '../../../shared/mqtt-tap-events.ts';
import { TypedEvents } from '../../../shared/typed-events.ts';
import { TrafficRing } from './traffic-ring.ts';

const MAX_TOPICS = 1_000;
/** the last payload a topic keeps beyond the ring is cut to this */
const LAST_PAYLOAD_BYTES = 4_096;
const RATE_WINDOW_MS = 10_000;

/** What the tap reads of a session. */
export interface TapSession {
  id: string;
  client: { id: string; version?: number | undefined };
  device: { id: string; name: string };
  gateway: boolean;
}

export interface TopicEntry {
  deviceId: string;
  topic: string;
  count: number;
  last: TappedPublish;
  /** messages in the current and the previous rate window */
  windowStart: number;
  inWindow: number;
  inPrevious: number;
}

/** Count, last message and rate per device and topic (at most MAX_TOPICS pairs; later ones are not kept). */
export class TopicTable {
  private readonly byDevice = new Map<string, Map<string, TopicEntry>>();
  private size = 0;

  add(r: TappedPublish): void {
    let topics = this.byDevice.get(r.deviceId);
    let entry = topics?.get(r.topic);
    const last =
      r.payload.length > LAST_PAYLOAD_BYTES ? { ...r, payload: r.payload.slice(0, LAST_PAYLOAD_BYTES) } : r;
    if (!entry) {
      if (this.size >= MAX_TOPICS) return;
      if (!topics) this.byDevice.set(r.deviceId, (topics = new Map()));
      entry = {
        deviceId: r.deviceId,
        topic: r.topic,
        count: 0,
        last,
        windowStart: r.ts,
        inWindow: 0,
        inPrevious: 0,
      };
      topics.set(r.topic, entry);
      this.size++;
    }
    entry.count++;
    entry.last = last;
    if (r.ts - entry.windowStart >= RATE_WINDOW_MS) {
      entry.inPrevious = r.ts - entry.windowStart >= 2 * RATE_WINDOW_MS ? 0 : entry.inWindow;
      entry.windowStart = r.ts - ((r.ts - entry.windowStart) % RATE_WINDOW_MS);
      entry.inWindow = 0;
    }
    entry.inWindow++;
  }

  /** Messages per second over the last RATE_WINDOW_MS. */
  static rate(e: TopicEntry, now: number): number {
    const intoWindow = now - e.windowStart;
    if (intoWindow >= 2 * RATE_WINDOW_MS) return 0;
    if (intoWindow >= RATE_WINDOW_MS)
      return (e.inWindow * (1 - (intoWindow - RATE_WINDOW_MS) / RATE_WINDOW_MS)) / 10;
    const previousShare = 1 - intoWindow / RATE_WINDOW_MS;
    return Math.round(((e.inWindow + e.inPrevious * previousShare) / (RATE_WINDOW_MS / 1000)) * 10) / 10;
  }

  entries(): TopicEntry[] {
    const all: TopicEntry[] = [];
    for (const topics of this.byDevice.values()) for (const e of topics.values()) all.push(e);
    return all;
  }

  forgetDevice(deviceId: string): void {
    const topics = this.byDevice.get(deviceId);
    if (!topics) return;
    this.size -= topics.size;
    this.byDevice.delete(deviceId);
  }

  clear(): void {
    this.byDevice.clear();
    this.size = 0;
  }
}

/**
 * The MQTT inspector's tap on the broker: every publish in (once the platform answered it) and out, into
 * a ring within a byte budget, per-topic counters, and MqttTap events for whoever listens. Disabled, the
 * broker pays one property read per publish; enabled, a record object and a payload copy.
 */
export class TrafficTap {
  readonly events = new TypedEvents();
  readonly ring: TrafficRing;
  readonly topics = new TopicTable();
  recorded = 0;
  /** publishes are tapped: the inspector is on, or someone holds the tap (a recording) */
  active: boolean;
  private inspecting: boolean;
  private holders = 0;
  private seq = 0;

  constructor(options: { enabled: boolean; budgetBytes: number }) {
    this.inspecting = options.enabled;
    this.active = options.enabled;
    this.ring = new TrafficRing(options.budgetBytes);
  }

  /** the inspector keeps what it taps (its ring and topic counters) */
  get enabled(): boolean {
    return this.inspecting;
  }

  set enabled(on: boolean) {
    this.inspecting = on;
    this.active = on || this.holders > 0;
  }

  /** Taps publishes (MqttTap events) while held, the inspector on or off; the function returned lets go. */
  hold(): () => void {
    this.holders++;
    this.active = true;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.holders--;
      this.active = this.inspecting || this.holders > 0;
    };
  }

  /** A publish from a client; settle it once the platform answered. */
  incoming(
    session: TapSession,
    packet: { topic: string; qos: number; retain: boolean; properties?: object },
    payload: Buffer,
  ): TappedPublish {
    const r = this.make(session, 'in', packet.topic, packet.qos, packet.retain, payload, packet.properties);
    this.events.emit(MqttTap.received, r);
    return r;
  }

  settle(r: TappedPublish, reasonCode: number, reason?: string): void {
    r.reasonCode = reasonCode;
    if (reason !== undefined) r.reason = reason;
    this.keep(r);
  }

  /** A publish the platform sent a client. */
  outgoing(session: TapSession, topic: string, payload: Buffer, qos: number): void {
    const r = this.make(session, 'out', topic, qos, false, payload, undefined);
    r.reasonCode = 0;
    this.keep(r);
  }

  get lastSeq(): number {
    return this.seq;
  }

  clear(): void {
    this.ring.clear();
    this.topics.clear();
  }

  private make(
    session: TapSession,
    direction: 'in' | 'out',
    topic: string,
    qos: number,
    retain: boolean,
    payload: Buffer,
    properties: object | undefined,
  ): TappedPublish {
    return {
      seq: ++this.seq,
      ts: Date.now(),
      direction,
      sessionId: session.id,
      clientId: session.client.id,
      deviceId: session.device.id,
      deviceName: session.device.name,
      gateway: session.gateway,
      protocolVersion: session.client.version ?? 4,
      topic,
      qos,
      retain,
      // the ring keeps a copy: the packet's buffer may be a slice of a much larger socket read (a
      // listener alone, a recorder, reads it at once and keeps none)
      payload: this.inspecting ? Uint8Array.prototype.slice.call(payload) : payload,
      properties:
        properties && Object.keys(properties).length ? (properties as Record<string, unknown>) : undefined,
      reasonCode: -1,
      reason: undefined,
      msgIds: undefined,
    };
  }

  private keep(r: TappedPublish): void {
    if (this.inspecting) {
      this.recorded++;
      this.ring.push(r);
      this.topics.add(r);
    }
    this.events.emit(MqttTap.publish, r);
  }
}
