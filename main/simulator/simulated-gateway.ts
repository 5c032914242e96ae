import type { MqttClient } from 'mqtt';
import type {
  AttributeLogEntry,
  GatewayState,
  GatewayStatus,
  RpcLogEntry,
  TelemetryValue,
} from '../../shared/schemas/simulation.ts';
import { FAILURE_REASONS } from '../../shared/schemas/simulation.ts';
import type { Meter, RingLog } from './counters.ts';
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
  private periods = 0;

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
  }

  /** Connects, subscribes, connects the devices and starts publishing; rejects if the first connection fails. */
  async start(): Promise<void> {
    this.state = 'connecting';
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
      counters: this.meter.snapshot(),
    };
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
      );
    }
    if (!this.active) return;
    this.state = 'connected';
    this.error = null;
    this.backoffMs = 1000;
    if (this.plan.devices.length && this.plan.keys.length && this.periods < this.maxPeriods) {
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
    for (let i = 0; i < this.devices.length; i += CONNECT_BATCH) {
      await Promise.all(
        this.devices.slice(i, i + CONNECT_BATCH).map(async ({ name }) => {
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
    const tick = { elapsedMs: now - this.hooks.startedAt, now };
    const members: string[] = [];
    const points: number[] = [];
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
      if (n === 0) continue;
      members.push(`${JSON.stringify(d.name)}:[${JSON.stringify({ ts: now, values })}]`);
      points.push(n);
    }
    let from = 0;
    for (const chunk of chunkMembers(members)) {
      this.meter.recordTelemetry(points.slice(from, (from += chunk.count)).reduce((a, b) => a + b, 0));
      void this.publish(TOPIC.telemetry, chunk.payload, this.plan.qos);
    }
    this.periods++;
    if (this.periods >= this.maxPeriods) {
      this.clearTimers();
      this.state = 'finished';
      this.hooks.onFinished(this);
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
    let resolveDone: (reason: string | null) => void = () => undefined;
    const result = new Promise<string | null>((resolve) => (resolveDone = resolve));
    const entry: Pending = {
      done: result.then(() => undefined),
      settle: (reason) => {
        if (!this.pending.delete(entry)) return;
        if (reason !== null) this.meter.recordFailure(reason, qos);
        else if (qos === 1) this.meter.recordAck();
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

  private scheduleReconnect(): void {
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
      if (this.client) {
        const c = this.client;
        this.client = null;
        c.end(true);
      }
      if (err instanceof ConnectError && err.permanent) {
        this.state = 'failed';
        this.hooks.onFailed(this, err);
      } else {
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
      this.hooks.attributeLog.push({
        ts: Date.now(),
        gateway: this.plan.name,
        device: body.device,
        data: isObject(body.data) ? body.data : {},
        ...(Array.isArray(body.deleted) ? { deleted: body.deleted.map(String) } : {}),
      });
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
    const entry = this.hooks.rpcLog.push({
      ts: Date.now(),
      gateway: this.plan.name,
      device,
      id,
      method,
      params: params ?? null,
      responder: rule?.responder.kind ?? null,
      status: rule ? 'pending' : 'ignored',
    });
    if (!rule) return;
    let reply: unknown;
    try {
      reply = await respond(rule.responder, { method, params }, this.abort.signal);
    } catch {
      entry.status = 'failed';
      return;
    }
    const failure = await this.publish(TOPIC.rpc, { device, id, data: reply }, this.plan.qos);
    entry.status = failure === null ? 'answered' : 'failed';
    entry.reply = reply;
    entry.answeredAt = Date.now();
  }
}
