import type { MqttClient } from 'mqtt';
import type {
  AttributeLogEntry,
  GatewayState,
  GatewayStatus,
  RpcLogEntry,
  ScriptErrorEntry,
  TelemetryValue,
} from '../../shared/schemas/simulation.ts';
import { FAILURE_REASONS } from '../../shared/schemas/simulation.ts';
import type { Meter, RingLog } from './counters.ts';
import {
  activeFaults,
  gatewayFaults,
  strikes,
  timestampShiftMs,
  type FaultBook,
  type GatewayFault,
} from './faults.ts';
import { DeviceScript, type ScriptOutcome } from './device-script.ts';
import { deviceGeneratorFactory, type ValueGenerator } from './generators.ts';
import {
  ConnectError,
  failureReason,
  openMqttClient,
  subscribeAll,
  type GatewayConnection,
} from './mqtt-connection.ts';
import { findRpcRule, respond } from './rpc-responders.ts';
import type { GatewayPlan } from './scenario.ts';

export const TOPIC = {
  connect: 'v1/gateway/connect',
  disconnect: 'v1/gateway/disconnect',
  telemetry: 'v1/gateway/telemetry',
  attributes: 'v1/gateway/attributes',
  rpc: 'v1/gateway/rpc',
} as const;

/** Telemetry of many devices is split into messages of at most this size (brokers cap packets: 64 KiB here). */
const MAX_PAYLOAD_BYTES = 48_000;
/** Periods are skipped while this many QoS 1 publishes wait for their PUBACK. */
const MAX_IN_FLIGHT = 1000;
const CONNECT_BATCH = 200;
const STOP_WAIT_MS = 3000;
const MAX_BACKOFF_MS = 30_000;

export interface GatewayHooks {
  /** the start of the simulation: generators see ms since then */
  startedAt: number;
  /** stop publishing after this many periods (0/undefined: no limit) */
  maxPeriods?: number;
  attributeLog: RingLog<Omit<AttributeLogEntry, 'seq'>>;
  rpcLog: RingLog<Omit<RpcLogEntry, 'seq'>>;
  /** errors of the devices' scripts */
  scriptLog?: RingLog<Omit<ScriptErrorEntry, 'seq'>>;
  /** the run's faults: this gateway injects those that concern it and counts them here */
  faults?: FaultBook;
  /** the gateway sent its last period */
  onFinished(gateway: SimulatedGateway): void;
  /** the gateway gave up reconnecting (bad token, not a gateway, ...) */
  onFailed(gateway: SimulatedGateway, error: Error): void;
}

interface SimDevice {
  name: string;
  n: number;
  generators: [string, ValueGenerator][];
}

/** Telemetry of one device changed by a fault: sent in its own message, counted for each fault. */
interface FaultedMember {
  member: string;
  points: number;
  /** faults[index] of each fault that changed it */
  tags: number[];
  latencyMs: number;
  duplicate: boolean;
  reorder: boolean;
}

/** Faults that change telemetry as it is built, each period. */
const TELEMETRY_FAULTS = new Set([
  'latency',
  'drop',
  'duplicate',
  'reorder',
  'clockSkew',
  'futureTimestamps',
  'pastTimestamps',
]);

interface Pending {
  settle(reason: string | null): void;
  done: Promise<void>;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
  ]);
}

/** Joins `"name":[...]` members into JSON objects of at most MAX_PAYLOAD_BYTES each; count: members in it. */
function chunkMembers(members: string[]): { payload: string; count: number }[] {
  const chunks: { payload: string; count: number }[] = [];
  let current: string[] = [];
  let size = 2;
  for (const m of members) {
    const bytes = Buffer.byteLength(m) + 1;
    if (current.length && size + bytes > MAX_PAYLOAD_BYTES) {
      chunks.push({ payload: `{${current.join(',')}}`, count: current.length });
      current = [];
      size = 2;
    }
    current.push(m);
    size += bytes;
  }
  if (current.length) chunks.push({ payload: `{${current.join(',')}}`, count: current.length });
  return chunks;
}

/**
 * One simulated gateway: a real MQTT client (user name = the gateway token) that connects its devices
 * with v1/gateway/connect, publishes their telemetry every period, answers RPC per its responders, logs
 * shared attribute updates, counts every publish and its PUBACK, and reconnects when the link drops.
 */
export class SimulatedGateway {
  readonly plan: GatewayPlan;
  readonly meter: Meter;
  readonly deviceId: string | null;
  state: GatewayState = 'stopped';
  error: string | null = null;
  private readonly connection: GatewayConnection;
  private readonly hooks: GatewayHooks;
  private readonly devices: SimDevice[];
  private readonly connected = new Set<string>();
  private readonly refused = new Map<string, string>();
  private readonly pending = new Set<Pending>();
  private readonly abort = new AbortController();
  private client: MqttClient | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private backoffMs = 1000;
  /** connections retried after a failed one (a refusal that may pass, no answer, a drop) */
  connectRetries = 0;
  private periods = 0;
  private readonly faults: GatewayFault[];
  private readonly faultTimers = new Set<NodeJS.Timeout>();
  private readonly storms = new Map<number, NodeJS.Timeout>();
  private faultsScheduled = false;
  /** a fault dropped the connection: reconnect at this time (epoch ms), and count the answer for it */
  private forcedDrop: { index: number; until: number } | null = null;
  /** devices a fault disconnected through the gateway, until the fault ends */
  private readonly faultDisconnected = new Set<string>();
  /** devices whose connect a noConnect fault left out, with that fault, until their first telemetry */
  private readonly unannounced = new Map<string, number>();
  /** telemetry a reorder fault holds back until after the next period's */
  private held: FaultedMember[] = [];
  /** the devices' script, when the gateway has one */
  private script: DeviceScript | null = null;
  /** what scripts published since the last flush: sent together, as a period's telemetry is */
  private scripted = new Map<string, { values: Record<string, unknown>; ts: number }>();
  private scriptedAttributes = new Map<string, Record<string, unknown>>();
  private flushScheduled = false;

  constructor(options: {
    plan: GatewayPlan;
    connection: GatewayConnection;
    meter: Meter;
    hooks: GatewayHooks;
    deviceId?: string | null;
  }) {
    this.plan = options.plan;
    this.connection = options.connection;
    this.meter = options.meter;
    this.hooks = options.hooks;
    this.deviceId = options.deviceId ?? null;
    const factories = this.plan.keys.map(
      (k) => [k.key, deviceGeneratorFactory(k.generator, this.plan.seed, k.key)] as const,
    );
    this.devices = this.plan.devices.map((name, i) => ({
      name,
      n: i + 1,
      generators: factories.map(([key, make]): [string, ValueGenerator] => [key, make(name, i + 1)]),
    }));
    this.faults = gatewayFaults(
      this.hooks.faults?.faults ?? [],
      this.plan.name,
      this.plan.devices,
      this.plan.seed,
    );
  }

  /** Connects, subscribes, connects the devices and starts publishing; rejects if the first connection fails. */
  async start(): Promise<void> {
    this.state = 'connecting';
    this.script ??= this.plan.script
      ? new DeviceScript({
          source: this.plan.script,
          gateway: this.plan.name,
          deviceType: this.plan.deviceType,
          seed: this.plan.seed,
          devices: this.devices,
          onCall: () => this.meter.recordScriptCall(),
          onError: (e) => {
            this.meter.recordScriptError();
            this.hooks.scriptLog?.push({ ts: Date.now(), gateway: this.plan.name, ...e });
          },
        })
      : null;

    try {
      await this.connectAndSetup();
    } catch (err) {
      this.client?.end(true);
      this.client = null;
      if (this.state === 'connecting') {
        this.state = 'failed';
        this.error = (err as Error).message;
      }
      throw err;
    }
  }

  /** Waits for in-flight publishes, disconnects the devices and closes the connection. */
  async stop(): Promise<void> {
    if (this.state === 'stopped' || this.state === 'stopping') return;
    const final: GatewayState = this.state === 'failed' || this.state === 'finished' ? this.state : 'stopped';
    this.state = 'stopping';
    this.meter.halt();
    this.clearTimers();
    this.abort.abort();
    const client = this.client;
    if (client?.connected) {
      await withTimeout(Promise.all([...this.pending].map((p) => p.done)), STOP_WAIT_MS);
      await withTimeout(
        Promise.all([...this.connected].map((device) => this.publish(TOPIC.disconnect, { device }, 1))),
        STOP_WAIT_MS,
      );
      const ended = await withTimeout(
        client.endAsync().then(
          () => true,
          () => false,
        ),
        STOP_WAIT_MS,
      );
      if (!ended) client.end(true);
    } else {
      client?.end(true);
    }
    this.client = null;
    for (const p of [...this.pending]) p.settle('connection-lost');
    this.connected.clear();
    this.state = final;
  }

  status(): GatewayStatus {
    return {
      name: this.plan.name,
      state: this.state,
      error: this.error ?? this.refusedSummary(),
      deviceId: this.deviceId,
      protocolVersion: this.plan.protocolVersion,
      qos: this.plan.qos,
      periodMs: this.plan.periodMs,
      devicesCount: this.plan.devices.length,
      connectedDevices: this.connected.size,
      deviceNames: this.plan.devices.slice(0, 100),
      scriptedDevicesStopped: this.scriptedDevicesStopped,
      counters: this.meter.snapshot(),
    };
  }

  get scriptedDevicesStopped(): number {
    return this.script?.stoppedCount ?? 0;
  }

  /** Frees the script's programs in the sandbox (the run is over). */
  releaseScript(): void {
    this.script?.release();
  }

  private refusedSummary(): string | null {
    if (this.refused.size === 0) return null;
    const reasons = [...new Set(this.refused.values())].map((r) => `${r} ${FAILURE_REASONS[r] ?? ''}`.trim());
    return `${this.refused.size} device connect(s) refused: ${reasons.join(', ')}`;
  }

  private clearTimers(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.timer = this.reconnectTimer = null;
    for (const t of this.faultTimers) {
      clearTimeout(t);
      clearInterval(t);
    }
    this.faultTimers.clear();
    for (const t of this.storms.values()) clearInterval(t);
    this.storms.clear();
  }

  private get active(): boolean {
    return this.state === 'connecting' || this.state === 'reconnecting' || this.state === 'connected';
  }

  private async connectAndSetup(): Promise<void> {
    const client = await openMqttClient(this.connection);
    if (!this.active) {
      client.end(true);
      return;
    }
    this.client = client;
    client.on('error', () => undefined); // socket errors end in 'close', handled there
    // A server DISCONNECT's reason (v5: 0x83 for a rate-limited device, 0x96 for a gateway) names why
    // the publishes still waiting failed, instead of a bare lost connection.
    let disconnectReason: string | undefined;
    client.on('disconnect', (packet) => {
      if (typeof packet.reasonCode === 'number' && packet.reasonCode >= 0x80)
        disconnectReason = `0x${packet.reasonCode.toString(16)}`;
    });
    client.on('close', () => this.onClose(client, disconnectReason));
    client.on('message', (topic, payload) => this.onMessage(topic, payload));
    await subscribeAll(client, [TOPIC.rpc, TOPIC.attributes], this.connection.url);
    await this.connectDevices();
    if (!client.connected) {
      throw new ConnectError(
        this.plan.protocolVersion === 4
          ? 'the server closed the connection while the devices connected (MQTT 3.1.1: a device connect was rejected, e.g. past the device limit)'
          : 'the connection closed while the devices connected',
        false,
        // MQTT 3.1.1 refuses a device by closing the connection: only a v5 close says the broker was busy
        this.plan.protocolVersion === 5,
      );
    }
    if (!this.active) return;
    this.state = 'connected';
    this.error = null;
    this.backoffMs = 1000;
    if (this.forcedDrop) {
      this.hooks.faults?.answered(this.forcedDrop.index, 'reconnected');
      this.forcedDrop = null;
    }
    this.scheduleFaults();
    if (
      this.plan.devices.length &&
      (this.plan.keys.length || this.script) &&
      this.periods < this.maxPeriods
    ) {
      this.timer = setInterval(() => this.tick(), this.plan.periodMs);
      this.tick();
    }
  }

  private get maxPeriods(): number {
    return this.hooks.maxPeriods ? this.hooks.maxPeriods : Number.POSITIVE_INFINITY;
  }

  private async connectDevices(): Promise<void> {
    this.connected.clear();
    this.refused.clear();
    const type = this.plan.deviceType;
    const elapsed = Date.now() - this.hooks.startedAt;
    for (let i = 0; i < this.devices.length; i += CONNECT_BATCH) {
      await Promise.all(
        this.devices.slice(i, i + CONNECT_BATCH).map(async ({ name }) => {
          if (this.faultDisconnected.has(name)) return;
          const [silent] = activeFaults(this.faults, 'noConnect', elapsed, name);
          if (silent) {
            this.hooks.faults?.injected(silent.index);
            this.unannounced.set(name, silent.index);
            this.connected.add(name);
            return;
          }
          const failure = await this.publish(TOPIC.connect, { device: name, type }, 1);
          if (failure === null) this.connected.add(name);
          else if (failure !== 'not-connected') this.refused.set(name, failure);
        }),
      );
    }
    const members: string[] = [];
    for (const d of this.devices) {
      if (!this.connected.has(d.name) || Object.keys(this.plan.attributes).length === 0) continue;
      members.push(`${JSON.stringify(d.name)}:${JSON.stringify(this.expandAttributes(d))}`);
    }
    for (const chunk of chunkMembers(members))
      await this.publish(TOPIC.attributes, chunk.payload, this.plan.qos);
  }

  private expandAttributes(d: SimDevice): Record<string, TelemetryValue> {
    const out: Record<string, TelemetryValue> = {};
    for (const [k, v] of Object.entries(this.plan.attributes)) {
      out[k] =
        typeof v === 'string'
          ? v
              .replaceAll('${gateway}', this.plan.name)
              .replaceAll('${device}', d.name)
              .replaceAll('${n}', String(d.n))
          : v;
    }
    return out;
  }

  /** One period: every connected device's values in one message (several when large). */
  private tick(): void {
    if (this.state !== 'connected' || !this.client?.connected || this.pending.size >= MAX_IN_FLIGHT) {
      this.meter.recordSkipped();
      return;
    }
    const now = Date.now();
    const elapsedMs = now - this.hooks.startedAt;
    const tick = { elapsedMs, now };
    const members: string[] = [];
    const points: number[] = [];
    const faulted: FaultedMember[] = [];
    const faultsNow = this.telemetryFaultsAt(elapsedMs);
    if (this.script)
      this.script.ticks(
        this.plan.devices.filter((name) => this.connected.has(name)),
        now,
        elapsedMs,
        (device, out) => this.scriptPublished(device, out),
      );
    for (const d of this.devices) {
      if (!this.connected.has(d.name)) continue;
      const values: Record<string, TelemetryValue> = {};
      let n = 0;
      for (const [key, gen] of d.generators) {
        const v = gen.next(tick);
        if (v === undefined) continue;
        values[key] = v;
        n++;
      }
      if (n > 0) this.addMember(d.name, now, values, n, faultsNow, members, points, faulted);
    }
    this.sendMembers(members, points, faulted, true);
    this.periods++;
    if (this.periods >= this.maxPeriods) {
      this.clearTimers();
      this.state = 'finished';
      this.hooks.onFinished(this);
    }
  }

  /** The faults that change telemetry at this point of the run. */
  private telemetryFaultsAt(elapsedMs: number): GatewayFault[] {
    if (this.faults.length === 0) return [];
    return this.faults.filter(
      (f) => TELEMETRY_FAULTS.has(f.fault.kind) && elapsedMs >= f.startMs && elapsedMs < f.endMs,
    );
  }

  /** One device's values as a member of the period's message, or (changed by a fault) one of its own. */
  private addMember(
    device: string,
    ts: number,
    values: Record<string, unknown>,
    n: number,
    faultsNow: GatewayFault[],
    members: string[],
    points: number[],
    faulted: FaultedMember[],
  ): void {
    const unannounced = this.unannounced.get(device);
    if (faultsNow.length === 0 && unannounced === undefined) {
      members.push(`${JSON.stringify(device)}:[${JSON.stringify({ ts, values })}]`);
      points.push(n);
      return;
    }
    const f = this.applyTelemetryFaults(faultsNow, device, ts, values, n);
    if (f === null) return;
    if (unannounced !== undefined) {
      this.unannounced.delete(device);
      f.tags.push(unannounced);
    }
    if (f.tags.length) faulted.push(f);
    else {
      members.push(f.member);
      points.push(n);
    }
  }

  /** Sends a period's members in messages of up to 48 KB, and what faults changed (a reorder: a period late). */
  private sendMembers(members: string[], points: number[], faulted: FaultedMember[], period: boolean): void {
    let from = 0;
    for (const chunk of chunkMembers(members)) {
      this.meter.recordTelemetry(points.slice(from, (from += chunk.count)).reduce((a, b) => a + b, 0));
      void this.publish(TOPIC.telemetry, chunk.payload, this.plan.qos);
    }
    const held = period ? this.held : [];
    if (period) this.held = [];
    for (const f of faulted) {
      if (f.reorder) this.held.push(f);
      else this.sendFaulted(f);
    }
    for (const f of held) this.sendFaulted(f);
  }

  /** What a script call published: sent with what the other devices' calls publish meanwhile. */
  private scriptPublished(device: string, out: ScriptOutcome | null): void {
    if (!out || (out.telemetry.length === 0 && out.attributes.length === 0)) return;
    const ts = Date.now();
    // a device's values of one flush make one member: a message's keys are its devices
    for (const values of out.telemetry) {
      const member = this.scripted.get(device);
      if (member) member.values = { ...member.values, ...values };
      else this.scripted.set(device, { values, ts });
    }
    for (const values of out.attributes)
      this.scriptedAttributes.set(device, { ...this.scriptedAttributes.get(device), ...values });
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // the sandbox answers a batch of calls at once: their results go out in the same messages
    setImmediate(() => this.flushScripted());
  }

  private flushScripted(): void {
    this.flushScheduled = false;
    const scripted = this.scripted;
    const attributes = this.scriptedAttributes;
    this.scripted = new Map();
    this.scriptedAttributes = new Map();
    if (this.state !== 'connected' && this.state !== 'finished') return;
    const elapsedMs = Date.now() - this.hooks.startedAt;
    const faultsNow = this.telemetryFaultsAt(elapsedMs);
    const members: string[] = [];
    const points: number[] = [];
    const faulted: FaultedMember[] = [];
    for (const [device, { values, ts }] of scripted) {
      if (!this.connected.has(device)) continue;
      this.addMember(device, ts, values, Object.keys(values).length, faultsNow, members, points, faulted);
    }
    this.sendMembers(members, points, faulted, false);
    const attributeMembers = [...attributes].map(([d, v]) => `${JSON.stringify(d)}:${JSON.stringify(v)}`);
    for (const chunk of chunkMembers(attributeMembers))
      void this.publish(TOPIC.attributes, chunk.payload, this.plan.qos);
  }

  /** A device's telemetry as the active faults make it; null when a fault drops it. */
  private applyTelemetryFaults(
    active: GatewayFault[],
    device: string,
    now: number,
    values: Record<string, unknown>,
    points: number,
  ): FaultedMember | null {
    const book = this.hooks.faults;
    let ts = now;
    const out: FaultedMember = {
      member: '',
      points,
      tags: [],
      latencyMs: 0,
      duplicate: false,
      reorder: false,
    };
    for (const g of active) {
      if (!g.devices.has(device)) continue;
      switch (g.fault.kind) {
        case 'drop':
          if (!strikes(g)) continue;
          book?.injected(g.index);
          book?.answered(g.index, 'not-sent');
          return null;
        case 'duplicate':
          if (!strikes(g)) continue;
          out.duplicate = true;
          break;
        case 'reorder':
          if (!strikes(g)) continue;
          out.reorder = true;
          break;
        case 'latency':
          out.latencyMs = Math.max(out.latencyMs, g.fault.latencyMs);
          break;
        default:
          ts += timestampShiftMs(g.fault);
      }
      out.tags.push(g.index);
    }
    out.member = `${JSON.stringify(device)}:[${JSON.stringify({ ts, values })}]`;
    return out;
  }

  /** Sends telemetry a fault changed, in its own message (twice for a duplicate), counting the answers. */
  private sendFaulted(f: FaultedMember): void {
    const book = this.hooks.faults;
    const send = () => {
      if (this.state !== 'connected') return;
      for (let copy = 0; copy < (f.duplicate ? 2 : 1); copy++) {
        this.meter.recordTelemetry(f.points);
        for (const tag of f.tags) book?.injected(tag);
        void this.publish(TOPIC.telemetry, `{${f.member}}`, this.plan.qos).then((failure) => {
          for (const tag of f.tags) book?.answered(tag, this.answerOf(failure));
        });
      }
    };
    if (f.latencyMs > 0) this.faultTimeout(send, f.latencyMs);
    else send();
  }

  private answerOf(failure: string | null): string {
    return failure === null ? (this.plan.qos === 1 ? 'acknowledged' : 'sent') : failure;
  }

  private faultTimeout(fn: () => void, ms: number): void {
    const t = setTimeout(() => {
      this.faultTimers.delete(t);
      fn();
    }, ms);
    this.faultTimers.add(t);
  }

  /** Once connected the first time: the start and end of each fault, on the run's clock. */
  private scheduleFaults(): void {
    if (this.faultsScheduled || this.faults.length === 0) return;
    this.faultsScheduled = true;
    const elapsed = Date.now() - this.hooks.startedAt;
    for (const g of this.faults) {
      this.faultTimeout(() => this.startFault(g), Math.max(0, g.startMs - elapsed));
      if (Number.isFinite(g.endMs)) this.faultTimeout(() => this.endFault(g), Math.max(0, g.endMs - elapsed));
    }
  }

  private whole(g: GatewayFault): boolean {
    return g.fault.device === undefined && (g.fault.share === undefined || g.fault.share >= 1);
  }

  private startFault(g: GatewayFault): void {
    const book = this.hooks.faults;
    if (!this.active) return;
    book?.mark(g.index, this.plan.name, 'start', `${g.devices.size} device(s)`);
    const f = g.fault;
    switch (f.kind) {
      case 'disconnect':
        if (this.whole(g)) this.dropConnection(g.index, g.endMs);
        else void this.disconnectDevices(g);
        return;
      case 'reconnectStorm': {
        const every = f.intervalMs ?? 1000;
        this.dropConnection(g.index, 0);
        const t = setInterval(() => {
          if (this.state === 'connected') this.dropConnection(g.index, 0);
        }, every);
        this.storms.set(g.index, t);
        return;
      }
      case 'malformed':
      case 'oversized':
      case 'burst':
        this.sendBadTelemetry(g);
        return;
      default:
    }
  }

  private endFault(g: GatewayFault): void {
    if (!this.active) return;
    this.hooks.faults?.mark(g.index, this.plan.name, 'end');
    if (g.fault.kind === 'reconnectStorm') {
      clearInterval(this.storms.get(g.index));
      this.storms.delete(g.index);
    }
    if (g.fault.kind === 'disconnect' && !this.whole(g)) void this.reconnectDevices(g);
  }

  /** Cuts the connection as a network failure would; the gateway reconnects at `untilElapsed` (run ms). */
  private dropConnection(index: number, untilElapsed: number): void {
    const client = this.client;
    if (!client?.connected) return;
    this.hooks.faults?.injected(index);
    this.forcedDrop = { index, until: this.hooks.startedAt + untilElapsed };
    client.stream.destroy();
  }

  private async disconnectDevices(g: GatewayFault): Promise<void> {
    const book = this.hooks.faults;
    for (const device of g.devices) {
      if (!this.connected.has(device)) continue;
      this.connected.delete(device);
      this.faultDisconnected.add(device);
      book?.injected(g.index);
      const failure = await this.publish(TOPIC.disconnect, { device }, 1);
      book?.answered(g.index, this.answerOf(failure));
    }
  }

  private async reconnectDevices(g: GatewayFault): Promise<void> {
    for (const device of g.devices) {
      if (!this.faultDisconnected.delete(device)) continue;
      const failure = await this.publish(TOPIC.connect, { device, type: this.plan.deviceType }, 1);
      if (failure === null) this.connected.add(device);
    }
  }

  /** Malformed or oversized telemetry, or a burst as fast as it goes: each publish counted with its answer. */
  private sendBadTelemetry(g: GatewayFault): void {
    const book = this.hooks.faults;
    const device = [...g.devices][0] ?? this.plan.devices[0];
    if (device === undefined) return;
    const name = JSON.stringify(device);
    const now = Date.now();
    const payloads: string[] = [];
    const f = g.fault;
    if (f.kind === 'malformed') {
      for (let i = 0; i < (f.count ?? 1); i++)
        payloads.push(`{${name}:[{"ts":${now},"values":{"temperature":`);
    } else if (f.kind === 'oversized') {
      const bytes = f.bytes ?? 1_048_576;
      payloads.push(`{${name}:[{"ts":${now},"values":{"blob":"${'x'.repeat(bytes)}"}}]}`);
    } else if (f.kind === 'burst') {
      const devices = [...g.devices].map((d) => JSON.stringify(d));
      for (let i = 0; i < (f.messages ?? 1000); i++)
        payloads.push(
          `{${devices.map((d) => `${d}:[{"ts":${now + i},"values":{"burst":${i}}}]`).join(',')}}`,
        );
    }
    for (const payload of payloads) {
      book?.injected(g.index);
      void this.publish(TOPIC.telemetry, payload, this.plan.qos).then((failure) =>
        book?.answered(g.index, this.answerOf(failure)),
      );
    }
  }

  /**
   * Publishes and counts: sent now; for QoS 1 acknowledged or failed by PUBACK reason code, for either
   * QoS failed 'connection-lost' when the link drops first. Resolves null on success, else the reason.
   */
  private publish(topic: string, body: unknown, qos: 0 | 1): Promise<string | null> {
    const client = this.client;
    if (!client?.connected) return Promise.resolve('not-connected');
    this.meter.recordSent(qos);
    const sentAt = performance.now();
    let resolveDone: (reason: string | null) => void = () => undefined;
    const result = new Promise<string | null>((resolve) => (resolveDone = resolve));
    const entry: Pending = {
      done: result.then(() => undefined),
      settle: (reason) => {
        if (!this.pending.delete(entry)) return;
        if (reason !== null) this.meter.recordFailure(reason, qos);
        else if (qos === 1) this.meter.recordAck(performance.now() - sentAt);
        resolveDone(reason);
      },
    };
    this.pending.add(entry);
    const payload = typeof body === 'string' ? body : JSON.stringify(body);
    client.publish(topic, payload, { qos }, (err) => entry.settle(err ? failureReason(err) : null));
    return result;
  }

  private onClose(client: MqttClient, reason = 'connection-lost'): void {
    if (client !== this.client) return;
    this.client = null;
    for (const p of [...this.pending]) p.settle(reason);
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    // while connecting, start() or reconnect() sees the failure; after the last period nothing is due
    if (this.state !== 'connected') return;
    this.state = 'reconnecting';
    this.scheduleReconnect();
  }

  /**
   * A gateway whose first connection failed for a reason that may pass (no answer in time, refused, the
   * open-file limit): it is retried with backoff, as after a drop, and its status says so meanwhile.
   */
  retryLater(err: Error): void {
    if (this.state !== 'failed') return;
    this.state = 'reconnecting';
    this.noteRetry(err);
    this.scheduleReconnect();
  }

  private noteRetry(err: Error): void {
    this.connectRetries++;
    this.error = `${err.message} (retry ${this.connectRetries} in ${Math.round(this.backoffMs / 1000)} s)`;
  }

  private scheduleReconnect(): void {
    if (this.forcedDrop) {
      // a fault cut the link: back when the fault says (at once in a storm), not after a backoff
      const wait = Math.max(0, this.forcedDrop.until - Date.now());
      this.reconnectTimer = setTimeout(() => void this.reconnect(), wait);
      return;
    }
    this.reconnectTimer = setTimeout(() => void this.reconnect(), this.backoffMs);
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
  }

  private async reconnect(): Promise<void> {
    this.reconnectTimer = null;
    if (this.state !== 'reconnecting') return;
    try {
      await this.connectAndSetup();
    } catch (err) {
      if (this.state !== 'reconnecting') return;
      this.error = (err as Error).message;
      const forced = this.forcedDrop !== null;
      if (this.forcedDrop) {
        const code = /\(0x([0-9a-f]+)\)/.exec(this.error)?.[0].slice(1, -1) ?? 'refused';
        this.hooks.faults?.answered(this.forcedDrop.index, code);
        this.forcedDrop = null;
      }
      if (this.client) {
        const c = this.client;
        this.client = null;
        c.end(true);
      }
      if (err instanceof ConnectError && err.permanent) {
        this.state = 'failed';
        this.hooks.onFailed(this, err);
      } else {
        if (!forced) this.noteRetry(err as Error);
        this.scheduleReconnect();
      }
    }
  }

  private onMessage(topic: string, payload: Buffer): void {
    let body: unknown;
    try {
      body = JSON.parse(payload.toString('utf8'));
    } catch {
      return;
    }
    if (!isObject(body) || typeof body.device !== 'string') return;
    if (topic === TOPIC.attributes) {
      this.meter.recordAttributeUpdate();
      const data = isObject(body.data) ? body.data : {};
      const deleted = Array.isArray(body.deleted) ? body.deleted.map(String) : undefined;
      const now = Date.now();
      this.hooks.attributeLog.push({
        ts: now,
        gateway: this.plan.name,
        device: body.device,
        data,
        ...(deleted ? { deleted } : {}),
      });
      const device = body.device;
      if (this.script?.runs(device))
        void this.script
          .attributes(device, data, deleted ?? [], now, now - this.hooks.startedAt)
          .then((out) => this.scriptPublished(device, out));
    } else if (topic === TOPIC.rpc && isObject(body.data)) {
      void this.answerRpc(body.device, body.data);
    }
  }

  private async answerRpc(device: string, data: Record<string, unknown>): Promise<void> {
    const id = Number(data.id);
    const method = typeof data.method === 'string' ? data.method : '';
    const params = data.params;
    this.meter.recordRpc();
    const rule = findRpcRule(this.plan.rpc, method);
    const scripted = this.script?.runs(device) ?? false;
    const entry = this.hooks.rpcLog.push({
      ts: Date.now(),
      gateway: this.plan.name,
      device,
      id,
      method,
      params: params ?? null,
      responder: scripted ? 'script' : (rule?.responder.kind ?? null),
      status: rule || scripted ? 'pending' : 'ignored',
    });
    if (!rule && !scripted) return;
    const now = Date.now();
    const [silent] = activeFaults(this.faults, 'rpcSilent', now - this.hooks.startedAt, device);
    if (silent) {
      entry.status = 'ignored';
      this.hooks.faults?.injected(silent.index);
      this.hooks.faults?.answered(silent.index, 'no-answer');
      return;
    }
    let reply: unknown;
    const out = scripted
      ? await this.script!.rpc(device, method, params, now, now - this.hooks.startedAt)
      : null;
    this.scriptPublished(device, out);
    if (out?.reply !== undefined) reply = out.reply;
    else if (!rule) {
      entry.status = out ? 'ignored' : 'failed';
      return;
    } else {
      entry.responder = rule.responder.kind;
      try {
        reply = await respond(rule.responder, { method, params }, this.abort.signal);
      } catch {
        entry.status = 'failed';
        return;
      }
    }
    const failure = await this.publish(TOPIC.rpc, { device, id, data: reply }, this.plan.qos);
    entry.status = failure === null ? 'answered' : 'failed';
    if (failure === null) this.meter.recordRpcAnswered();
    entry.reply = reply;
    entry.answeredAt = Date.now();
  }
}
