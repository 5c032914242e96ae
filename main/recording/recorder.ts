import { MqttTap, type TappedPublish, type TappedSession } from '../../shared/mqtt-tap-events.ts';
import {
  RECORDING_FORMAT,
  RECORDING_VERSION,
  type RecordingFilter,
  type RecordingHeader,
  type RecordingRecord,
} from '../../shared/schemas/recording.ts';
import type { RecordingInfo } from '../../shared/schemas/recordings-api.ts';
import type { DeviceRow } from '../platform/devices.ts';
import type {
  AlarmEvent,
  PlatformEventMap,
  PlatformEvents,
  RpcRequestEvent,
  RpcResultEvent,
} from '../platform/events.ts';
import { parseJson } from '../platform/paging.ts';
import {
  DeviceHttpTapEvents,
  type DeviceHttpTap,
  type TappedHttpCall,
} from '../transport/http/device-http-tap.ts';
import type { SessionRegistry } from '../transport/mqtt/session-registry.ts';
import { topicMatches } from '../transport/mqtt/topic-filter.ts';
import type { TrafficTap } from '../transport/mqtt/traffic-tap.ts';
import { lineOf, MAX_PENDING_BYTES, mib, RecordingFile } from './recording-file.ts';

/** What a recorder listens to and looks up. */
export interface RecorderSources {
  events: PlatformEvents;
  mqttTap: TrafficTap;
  registry: SessionRegistry;
  httpTap: DeviceHttpTap | undefined;
  devices: { findRow(id: string): DeviceRow | undefined };
  edgeName(id: string): string | undefined;
  /** written into the header's source */
  version: string;
}

export interface RecorderOptions {
  id: string;
  name: string;
  path: string;
  durationMs: number;
  filter: RecordingFilter;
  /** the file's bound */
  limitBytes: number;
}

/** The end record always fits: this much of the bound is kept for it. */
const END_RESERVE_BYTES = 512;
/** Devices whose filter decision is kept, keys of latest values kept, device RPC methods remembered. */
const MAX_DEVICES = 100_000;
const MAX_LATEST_KEYS = 200_000;
const MAX_OPEN_DEVICE_RPC = 10_000;
/** Records waiting behind a publish the platform has not answered yet. */
const MAX_QUEUED = 20_000;
/**
 * A publish unanswered for this long keeps its place no longer: what waited behind it is written, and it
 * is written when its answer comes.
 */
const MAX_WAIT_MS = 5_000;

const DEVICE_RPC_REQUEST = /^v1\/devices\/me\/rpc\/request\/(\d+)$/;
const DEVICE_RPC_RESPONSE = /^v1\/devices\/me\/rpc\/response\/(\d+)$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

const ALARM_EVENTS: Partial<Record<AlarmEvent['kind'], 'raised' | 'cleared' | 'updated'>> = {
  CREATED: 'raised',
  CLEAR: 'cleared',
  UPDATED: 'updated',
  SEVERITY_UPDATED: 'updated',
};

/** Each record kind without its `t`, which the recorder stamps. */
type Unstamped = RecordingRecord extends infer R ? (R extends { t: number } ? Omit<R, 't'> : never) : never;

interface Slot {
  /** undefined: a publish (or a POST) not answered yet */
  record: Unstamped | undefined;
  at: number;
  /** what it waits for, and since when */
  key?: object;
  since?: number;
}

/**
 * One recording under way: it taps MQTT publishes and sessions, device HTTP API calls and the
 * platform's events, keeps what its filter lets through, and appends it to its file in batches. It
 * ends when its duration is over, when it is stopped, or when the file reaches its bound (truncated);
 * then it writes the outcomes it gathered (each device's latest values, the edge events queued) and the
 * end record.
 */
export class Recorder {
  readonly id: string;
  readonly startedAt: number;
  readonly options: RecorderOptions;
  name: string;
  state: 'recording' | 'stopped' = 'recording';
  truncated = false;
  reason: string | undefined;
  records = 0;
  /** resolves once the file is closed */
  readonly done: Promise<void>;

  private readonly sources: RecorderSources;
  private readonly file: RecordingFile;
  private readonly trafficLimit: number;
  private readonly names: Set<string> | undefined;
  private readonly types: Set<string> | undefined;
  private readonly topics: string[] | undefined;
  private lastT = 0;
  private endedAt: number | undefined;
  private readonly stops: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private resolveDone!: () => void;
  /** device id -> whether the filter lets it in */
  private readonly admitted = new Map<string, boolean>();
  /** device id -> the name its device record gave it */
  private readonly named = new Map<string, string>();
  /** device id -> key -> the latest value stored during the recording */
  private readonly latest = new Map<string, Map<string, { ts: number; value: unknown }>>();
  private latestKeys = 0;
  private latestDropped = false;
  private readonly edgeEvents = new Map<string, { count: number; types: Record<string, number> }>();
  /** `${deviceId}:${requestId}` -> method of a device's own RPC request, until its answer */
  private readonly deviceRpc = new Map<string, string>();
  /**
   * Records in order: a publish (or a device's POST) takes its place when it arrives and is filled when
   * answered, so that what it caused (an alarm, an RPC) comes after it in the file.
   */
  private queue: Slot[] = [];
  private head = 0;
  private readonly waiting = new Map<object, Slot>();
  /** gateway session id -> how many devices it had connected when last looked at */
  private readonly gatewayDevices = new Map<string, number>();

  private constructor(sources: RecorderSources, options: RecorderOptions, file: RecordingFile, now: number) {
    this.sources = sources;
    this.options = options;
    this.id = options.id;
    this.name = options.name;
    this.file = file;
    this.startedAt = now;
    // The outcomes gathered till the end get an eighth of the bound (at most 1 MiB), the end record its own.
    const closing = Math.min(1024 * 1024, Math.floor(options.limitBytes / 8));
    this.trafficLimit = options.limitBytes - closing - END_RESERVE_BYTES;
    const { devices, deviceTypes, topics } = options.filter;
    this.names = devices?.length ? new Set(devices) : undefined;
    this.types = deviceTypes?.length ? new Set(deviceTypes) : undefined;
    this.topics = topics?.length ? topics : undefined;
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  /** Creates the file, writes the header and starts listening. */
  static async start(sources: RecorderSources, options: RecorderOptions): Promise<Recorder> {
    const file = await RecordingFile.create(options.path);
    const recorder = new Recorder(sources, options, file, Date.now());
    recorder.begin();
    return recorder;
  }

  info(): RecordingInfo {
    return {
      id: this.id,
      name: this.name,
      state: this.state,
      startedAt: this.startedAt,
      durationMs: this.options.durationMs,
      recordedMs: (this.endedAt ?? Date.now()) - this.startedAt,
      records: this.records,
      bytes: this.file.bytes,
      limitBytes: this.options.limitBytes,
      truncated: this.truncated,
      ...(this.reason === undefined ? {} : { reason: this.reason }),
      filter: this.options.filter,
    };
  }

  /** Ends it (once): the outcomes, the end record, the file closed. */
  stop(reason?: string, truncated = false): Promise<void> {
    if (this.state !== 'recording') return this.done;
    this.state = 'stopped';
    this.endedAt = Date.now();
    this.truncated = truncated;
    this.reason = reason;
    clearTimeout(this.timer);
    for (const stop of this.stops.splice(0)) stop();
    this.writeQueued();
    this.writeOutcomes();
    const end = lineOf({
      kind: 'end',
      t: this.stamp(this.endedAt),
      records: this.records,
      truncated: this.truncated,
      ...(this.reason === undefined ? {} : { reason: this.reason }),
    });
    this.file.append(end.line, end.bytes);
    void this.file
      .close()
      .catch((err: unknown) => {
        this.reason ??= `the file could not be closed: ${(err as Error).message}`;
      })
      .finally(() => this.resolveDone());
    return this.done;
  }

  private begin(): void {
    const header: RecordingHeader = {
      kind: 'header',
      format: RECORDING_FORMAT,
      version: RECORDING_VERSION,
      id: this.id,
      name: this.name,
      startedAt: this.startedAt,
      durationMs: this.options.durationMs,
      filter: this.options.filter,
      source: { app: 'sandboard', version: this.sources.version },
    };
    const { line, bytes } = lineOf(header);
    this.file.append(line, bytes);

    const { events, mqttTap, httpTap } = this.sources;
    this.stops.push(mqttTap.hold());
    this.stops.push(mqttTap.events.on(MqttTap.received, (r) => this.onReceived(r)));
    this.stops.push(mqttTap.events.on(MqttTap.publish, (r) => this.onPublish(r)));
    this.stops.push(mqttTap.events.on(MqttTap.session, (s) => this.onSession(s)));
    if (httpTap) {
      this.stops.push(httpTap.events.on(DeviceHttpTapEvents.received, (e) => this.onHttpReceived(e)));
      this.stops.push(httpTap.events.on(DeviceHttpTapEvents.call, (c) => this.onHttp(c)));
    }
    this.listen(events, 'telemetry', (e) => this.onTelemetry(e));
    this.listen(events, 'attributes', (e) => this.onAttributes(e));
    this.listen(events, 'attributesDeleted', (e) => this.onAttributesDeleted(e));
    this.listen(events, 'alarm', (e) => this.onAlarm(e));
    this.listen(events, 'rpcRequest', (e) => this.onRpcRequest(e));
    this.listen(events, 'rpcResponse', (e) => this.onRpcResponse(e));
    this.listen(events, 'rpcResult', (e) => this.onRpcResult(e));
    this.listen(events, 'edgeEventsQueued', (e) => this.onEdgeEvents(e));
    this.endAfter(this.options.durationMs);
  }

  /** Stops when the duration is over by the wall clock, which a timer may reach a millisecond early. */
  private endAfter(ms: number): void {
    this.timer = setTimeout(() => {
      const left = this.startedAt + this.options.durationMs - Date.now();
      if (left > 0) this.endAfter(left);
      else void this.stop();
    }, ms);
    this.timer.unref();
  }

  private listen<K extends keyof PlatformEventMap>(
    events: PlatformEvents,
    name: K,
    listener: (...args: PlatformEventMap[K]) => void,
  ): void {
    const guarded = ((...args: PlatformEventMap[K]) => {
      try {
        listener(...args);
      } catch (err) {
        void this.stop(`recording failed: ${(err as Error).message}`, true);
      }
    }) as never;
    events.on(name, guarded);
    this.stops.push(() => events.off(name, guarded));
  }

  /** Milliseconds since the start, never before the record above. */
  private stamp(at: number): number {
    const t = Math.max(this.lastT, at - this.startedAt);
    this.lastT = t;
    return t;
  }

  /** The record with its `t` second, after its kind, as a person reads it. */
  private stamped(record: Unstamped, at: number): object {
    const { kind, ...rest } = record;
    return { kind, t: this.stamp(at), ...rest };
  }

  private put(record: Unstamped, at = Date.now()): void {
    if (this.state !== 'recording') return;
    if (this.head === this.queue.length) this.write(record, at);
    else if (this.queue.length - this.head >= MAX_QUEUED) this.overflow();
    else {
      this.queue.push({ record, at });
      this.drain();
    }
  }

  /** A place in order for what `key` will be once answered. */
  private reserve(key: object, at: number): void {
    if (this.queue.length - this.head >= MAX_QUEUED) return this.overflow();
    const slot: Slot = { record: undefined, at, key, since: Date.now() };
    this.queue.push(slot);
    this.waiting.set(key, slot);
  }

  /** Fills the place `key` took, false if it took none; writes what is ready from the front. */
  private fill(key: object, record: Unstamped, at: number): boolean {
    const slot = this.waiting.get(key);
    if (!slot) return false;
    this.waiting.delete(key);
    slot.record = record;
    slot.at = at;
    this.drain();
    return true;
  }

  /** Writes what is ready from the front; a place held too long is given up. */
  private drain(): void {
    while (this.head < this.queue.length && this.state === 'recording') {
      const next = this.queue[this.head]!;
      if (!next.record) {
        if (Date.now() - next.since! <= MAX_WAIT_MS) break;
        this.waiting.delete(next.key!);
        this.head++;
        continue;
      }
      this.head++;
      this.write(next.record, next.at);
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 4096) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  private overflow(): void {
    void this.stop(`${MAX_QUEUED} records waited for publishes the platform had not answered`, true);
  }

  private write(record: Unstamped, at: number): void {
    const { line, bytes } = lineOf(this.stamped(record, at));
    if (this.file.error) {
      void this.stop(`writing the file failed: ${this.file.error.message}`, true);
    } else if (!this.file.fits(bytes, this.trafficLimit)) {
      void this.stop(`the recording reached its size bound (${mib(this.options.limitBytes)})`, true);
    } else if (this.file.backlog + bytes > MAX_PENDING_BYTES) {
      void this.stop(`the disk could not keep up (${mib(MAX_PENDING_BYTES)} waited to be written)`, true);
    } else {
      this.file.append(line, bytes);
      this.records++;
    }
  }

  // --- which devices --------------------------------------------------------------------------------

  private admits(deviceId: string, row?: DeviceRow): boolean {
    const known = this.admitted.get(deviceId);
    if (known !== undefined) return known;
    const device = row ?? this.sources.devices.findRow(deviceId);
    let yes = device !== undefined && this.matches(device);
    if (device && !yes) {
      // a device behind a gateway is recorded with its gateway
      const gatewayId = parseJson(device.additional_info).lastConnectedGateway;
      const gateway = typeof gatewayId === 'string' ? this.sources.devices.findRow(gatewayId) : undefined;
      yes = gateway !== undefined && this.matches(gateway);
    }
    if (this.admitted.size < MAX_DEVICES) this.admitted.set(deviceId, yes);
    return yes;
  }

  private matches(device: DeviceRow): boolean {
    if (!this.names && !this.types) return true;
    return Boolean(this.names?.has(device.name) || this.types?.has(device.type));
  }

  /** The device's name, written as a device record before its first traffic. */
  private nameOf(deviceId: string, row?: DeviceRow): string | undefined {
    const name = this.named.get(deviceId);
    if (name !== undefined) return name;
    const device = row ?? this.sources.devices.findRow(deviceId);
    if (!device) return undefined;
    const info = parseJson(device.additional_info);
    const gatewayId = info.lastConnectedGateway;
    const via = typeof gatewayId === 'string' && this.admits(gatewayId) ? this.nameOf(gatewayId) : undefined;
    this.named.set(deviceId, device.name);
    this.put({
      kind: 'device',
      name: device.name,
      type: device.type,
      ...(info.gateway === true ? { gateway: true } : {}),
      ...(via === undefined ? {} : { via }),
    });
    return device.name;
  }

  // --- traffic --------------------------------------------------------------------------------------

  private onReceived(r: TappedPublish): void {
    if (!this.admits(r.deviceId)) return;
    if (this.topics && !this.topics.some((f) => topicMatches(f, r.topic))) return;
    if (this.nameOf(r.deviceId) !== undefined) this.reserve(r, r.ts);
  }

  private onPublish(r: TappedPublish): void {
    if (!this.admits(r.deviceId)) return;
    if (this.topics && !this.topics.some((f) => topicMatches(f, r.topic))) return;
    const device = this.nameOf(r.deviceId);
    if (device === undefined) return;
    if (r.gateway) this.nameGatewayDevices(r.sessionId, r.deviceId);
    let payload: string | undefined;
    try {
      payload = utf8.decode(r.payload);
    } catch {
      payload = undefined;
    }
    const record: Unstamped = {
      kind: 'mqtt.publish',
      device,
      direction: r.direction,
      topic: r.topic,
      qos: r.qos as 0 | 1 | 2,
      ...(r.retain ? { retain: true } : {}),
      ...(payload === undefined ? { payloadBase64: Buffer.from(r.payload).toString('base64') } : { payload }),
      ...(r.properties ? { properties: r.properties } : {}),
      ...(r.direction === 'in'
        ? { expect: { reasonCode: r.reasonCode, ...(r.reason === undefined ? {} : { reason: r.reason }) } }
        : {}),
    };
    if (!this.fill(r, record, r.ts)) this.put(record, r.ts);
    if (payload !== undefined) this.onDeviceRpc(r, device, payload);
  }

  /** A device's own RPC request (client-side) and the answer the platform gave it. */
  private onDeviceRpc(r: TappedPublish, device: string, payload: string): void {
    if (r.direction === 'in') {
      const m = DEVICE_RPC_REQUEST.exec(r.topic);
      if (!m || r.reasonCode !== 0) return;
      const body = parseJson(safeJson(payload));
      if (typeof body.method !== 'string') return;
      const id = Number(m[1]);
      if (this.deviceRpc.size < MAX_OPEN_DEVICE_RPC) this.deviceRpc.set(`${r.deviceId}:${id}`, body.method);
      this.put({
        kind: 'rpc.request',
        device,
        id,
        origin: 'device',
        method: body.method.slice(0, 255),
        ...(body.params === undefined ? {} : { params: body.params }),
      });
      return;
    }
    const m = DEVICE_RPC_RESPONSE.exec(r.topic);
    if (!m) return;
    const key = `${r.deviceId}:${m[1]}`;
    const method = this.deviceRpc.get(key);
    if (method === undefined) return;
    this.deviceRpc.delete(key);
    this.put({ kind: 'expect.rpc', device, id: Number(m[1]), method, response: safeJson(payload) });
  }

  /** Devices a gateway connected since the last look, named with `via` before the gateway's traffic. */
  private nameGatewayDevices(sessionId: string, gatewayId: string): void {
    const session = this.sources.registry.directSessions(gatewayId).find((s) => s.id === sessionId);
    if (!session || this.gatewayDevices.get(sessionId) === session.subDevices.size) return;
    this.gatewayDevices.set(sessionId, session.subDevices.size);
    for (const d of session.subDevices.values()) if (!this.named.has(d.id)) this.nameOf(d.id, d);
  }

  private onSession(s: TappedSession): void {
    if (!this.admits(s.deviceId)) return;
    const device = this.nameOf(s.deviceId);
    if (device === undefined) return;
    if (s.kind === 'disconnected') {
      this.put({ kind: 'mqtt.disconnect', device }, s.ts);
      return;
    }
    const version = this.sources.registry.directSessions(s.deviceId).find((x) => x.id === s.sessionId)
      ?.client.version;
    this.put(
      {
        kind: 'mqtt.connect',
        device,
        clientId: s.clientId,
        ...(version === 3 || version === 4 || version === 5 ? { protocolVersion: version } : {}),
        expect: { reasonCode: 0 },
      },
      s.ts,
    );
  }

  private onHttpReceived(e: { key: object; deviceId: string; ts: number }): void {
    if (this.admits(e.deviceId) && this.nameOf(e.deviceId) !== undefined) this.reserve(e.key, e.ts);
  }

  private onHttp(c: TappedHttpCall & { key: object }): void {
    if (!this.admits(c.deviceId)) return;
    const device = this.nameOf(c.deviceId);
    if (device === undefined) return;
    const record: Unstamped = {
      kind: 'http.request',
      device,
      method: c.method,
      path: c.path,
      ...(c.body === undefined ? {} : { body: c.body }),
      ...(c.contentType === undefined ? {} : { contentType: c.contentType.slice(0, 255) }),
      expect: { status: c.status },
    };
    if (!this.fill(c.key, record, c.ts)) this.put(record, c.ts);
  }

  // --- outcomes and what the platform sends ---------------------------------------------------------

  private onTelemetry(e: PlatformEventMap['telemetry'][0]): void {
    if (!this.admits(e.deviceId)) return;
    let keys = this.latest.get(e.deviceId);
    if (!keys) this.latest.set(e.deviceId, (keys = new Map()));
    for (const entry of e.entries)
      for (const [key, value] of Object.entries(entry.values)) {
        const was = keys.get(key);
        if (was && was.ts > entry.ts) continue;
        if (!was && this.latestKeys >= MAX_LATEST_KEYS) {
          this.latestDropped = true;
          continue;
        }
        if (!was) this.latestKeys++;
        keys.set(key, { ts: entry.ts, value });
      }
  }

  private onAttributes(e: PlatformEventMap['attributes'][0]): void {
    if (e.scope !== 'SHARED_SCOPE' || !this.admits(e.deviceId)) return;
    const device = this.nameOf(e.deviceId);
    if (device !== undefined)
      this.put({ kind: 'attributes.update', device, scope: 'SHARED_SCOPE', values: e.values });
  }

  private onAttributesDeleted(e: PlatformEventMap['attributesDeleted'][0]): void {
    if (e.scope !== 'SHARED_SCOPE' || !this.admits(e.deviceId)) return;
    const device = this.nameOf(e.deviceId);
    if (device !== undefined)
      this.put({ kind: 'attributes.update', device, scope: 'SHARED_SCOPE', values: {}, deleted: e.keys });
  }

  private onAlarm(e: AlarmEvent): void {
    const event = ALARM_EVENTS[e.kind];
    const { originator } = e.alarm;
    if (!event || originator.entityType !== 'DEVICE' || !this.admits(originator.id)) return;
    const device = this.nameOf(originator.id);
    if (device === undefined) return;
    this.put({
      kind: 'expect.alarm',
      device,
      event,
      type: e.alarm.type,
      severity: e.alarm.severity,
      status: e.alarm.status,
    });
  }

  private onRpcRequest(e: RpcRequestEvent): void {
    if (!this.admits(e.deviceId)) return;
    const device = this.nameOf(e.deviceId);
    if (device === undefined) return;
    this.put({
      kind: 'rpc.request',
      device,
      id: e.id,
      origin: 'server',
      method: e.method,
      params: e.params,
      ...(e.oneway ? { oneway: true } : {}),
    });
  }

  private onRpcResponse(e: PlatformEventMap['rpcResponse'][0]): void {
    if (!this.admits(e.deviceId)) return;
    const device = this.nameOf(e.deviceId);
    if (device !== undefined) this.put({ kind: 'rpc.response', device, id: e.id, response: e.response });
  }

  private onRpcResult(e: RpcResultEvent): void {
    if (!this.admits(e.deviceId)) return;
    const device = this.nameOf(e.deviceId);
    if (device === undefined) return;
    this.put({
      kind: 'expect.rpc',
      device,
      id: e.id,
      method: e.method,
      status: e.status,
      ...(e.response === undefined ? {} : { response: e.response }),
    });
  }

  private onEdgeEvents(e: PlatformEventMap['edgeEventsQueued'][0]): void {
    for (const ev of e.events) {
      // events of a device the filter leaves out are not counted; of other entities, only without a filter
      const device = this.sources.devices.findRow(ev.entityId);
      if (device ? !this.admits(device.id, device) : this.names || this.types) continue;
      let counts = this.edgeEvents.get(ev.edgeId);
      if (!counts) {
        if (this.edgeEvents.size >= MAX_DEVICES) continue;
        this.edgeEvents.set(ev.edgeId, (counts = { count: 0, types: {} }));
      }
      counts.count++;
      counts.types[ev.type] = (counts.types[ev.type] ?? 0) + 1;
    }
  }

  /** What waited behind publishes still unanswered (those are after the end). */
  private writeQueued(): void {
    const limit = this.options.limitBytes - END_RESERVE_BYTES;
    for (let i = this.truncated ? this.queue.length : this.head; i < this.queue.length; i++) {
      const slot = this.queue[i]!;
      if (!slot.record) continue;
      const { line, bytes } = lineOf(this.stamped(slot.record, slot.at));
      if (!this.file.fits(bytes, limit)) break;
      this.file.append(line, bytes);
      this.records++;
    }
    this.queue = [];
    this.waiting.clear();
  }

  /** The outcomes gathered: each recorded device's latest values, the edge events each edge got. */
  private writeOutcomes(): void {
    const limit = this.options.limitBytes - END_RESERVE_BYTES;
    const at = this.endedAt ?? Date.now();
    const closing: Unstamped[] = [];
    for (const [deviceId, keys] of this.latest) {
      const device = this.named.get(deviceId);
      if (device === undefined || keys.size === 0) continue;
      const values: Record<string, unknown> = {};
      for (const [key, { value }] of keys) values[key] = value;
      closing.push({ kind: 'expect.latest', device, values });
    }
    for (const [edgeId, { count, types }] of this.edgeEvents) {
      const edge = this.sources.edgeName(edgeId);
      if (edge !== undefined) closing.push({ kind: 'expect.edgeEvents', edge, count, types });
    }
    let left = 0;
    for (const record of closing) {
      const { line, bytes } = lineOf(this.stamped(record, at));
      if (this.file.fits(bytes, limit)) {
        this.file.append(line, bytes);
        this.records++;
      } else left++;
    }
    const missing = [
      left ? `${left} outcome record${left > 1 ? 's' : ''} did not fit in the size bound` : '',
      this.latestDropped ? `latest values past ${MAX_LATEST_KEYS} keys were not kept` : '',
    ].filter(Boolean);
    if (left) this.truncated = true;
    if (missing.length) this.reason = [this.reason, ...missing].filter(Boolean).join('; ');
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
