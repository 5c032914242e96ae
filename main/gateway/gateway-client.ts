/**
 * The gateway side of ThingsBoard's gateway MQTT API: one MQTT session (user name = the gateway token)
 * on behalf of many devices. Data from many callers is batched into one v1/gateway/telemetry and one
 * v1/gateway/attributes publish (QoS 1); each caller's promise settles on the PUBACK of the publish that
 * carried its data, so a resolved send means the platform took it. One batch is in flight at a time: what
 * comes while it waits for its PUBACK goes out in the next one, at once when the platform answers. Light
 * traffic goes out in the next event-loop turn; under load the batches grow to what the platform
 * acknowledges per turn (as a group commit does), with fewer, larger publishes. Devices are connected
 * (v1/gateway/connect, with their profile) before their first data.
 */
import { EventEmitter } from 'node:events';
import type { IClientOptions, MqttClient } from 'mqtt';
import { mqttLib } from '../mqtt-lib.ts';

export interface GatewayClientOptions {
  /** mqtt://host:port or mqtts://host:port */
  url: string;
  /** the gateway device's access token (the MQTT user name) */
  token: string;
  clientId?: string;
  protocolVersion?: 4 | 5;
  ca?: string;
  rejectUnauthorized?: boolean;
  /** what to do about an untrusted platform certificate, in the caller's words (default: the CLI's flags) */
  untrustedCertificateHint?: string;
  connectTimeoutMs?: number;
  /** wait this long to gather more data into one publish (default 0: one event-loop turn) */
  batchWindowMs?: number;
  /** largest publish payload (default 60,000 bytes; the embedded broker takes 64 KiB packets) */
  maxPayloadBytes?: number;
  /** a send not acknowledged within this fails (default 10 s) */
  ackTimeoutMs?: number;
  /** delay between reconnection attempts (default 2 s) */
  reconnectPeriodMs?: number;
}

export interface TsEntry {
  ts: number;
  values: Record<string, unknown>;
}

export interface DeviceData {
  attributes?: Record<string, unknown>;
  telemetry?: TsEntry[];
}

export interface AttributeUpdate {
  device: string;
  data: Record<string, unknown>;
  deleted?: string[];
}

export interface GatewayRpcRequest {
  device: string;
  id: number;
  method: string;
  params: unknown;
}

/** The platform refused or did not acknowledge data (PUBACK failure, timeout, no session). */
export class PlatformSendError extends Error {
  /** 502 refused, 504 no acknowledgement in time, 503 not connected */
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

interface Waiter {
  resolve(): void;
  reject(err: Error): void;
}

interface Batch {
  telemetry: Map<string, TsEntry[]>;
  attributes: Map<string, Record<string, unknown>>;
  types: Map<string, string>;
  waiters: Waiter[];
}

const newBatch = (): Batch => ({
  telemetry: new Map(),
  attributes: new Map(),
  types: new Map(),
  waiters: [],
});

const TOPICS = ['v1/gateway/attributes', 'v1/gateway/attributes/response', 'v1/gateway/rpc'];

const UNTRUSTED_CERTIFICATE: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'a self-signed certificate in its chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'unknown issuer',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'unknown issuer',
  ERR_TLS_CERT_ALTNAME_INVALID: 'issued for another host name',
  CERT_HAS_EXPIRED: 'expired',
};

function describeConnectError(
  err: Error & { code?: unknown },
  url: string,
  hint = 'trust it with --ca FILE, or skip the check with --insecure',
): Error {
  switch (err.code) {
    case 4:
    case 0x86:
      return new Error(`${url} refused the gateway token (bad user name or password)`);
    case 5:
    case 0x87:
      return new Error(`${url} refused the connection: not authorized`);
    case 'ECONNREFUSED':
      return new Error(`cannot connect to ${url}: connection refused (is the platform running?)`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new Error(`cannot connect to ${url}: host not found`);
  }
  const untrusted = typeof err.code === 'string' ? UNTRUSTED_CERTIFICATE[err.code] : undefined;
  if (untrusted) return new Error(`${url}: its TLS certificate is not trusted (${untrusted}); ${hint}`);
  return new Error(`cannot connect to ${url}: ${err.message}`);
}

/** The JSON object {k1: v1, k2: v2} from fragments '"k1":v1'. */
const wrap = (fragments: string[]) => `{${fragments.join(',')}}`;

/**
 * Splits per-device fragments into payloads below max bytes; a device whose own fragment is larger is
 * split into several fragments by the caller's splitter.
 */
function pack(fragments: string[], max: number): string[] {
  const payloads: string[] = [];
  let current: string[] = [];
  let size = 2;
  for (const f of fragments) {
    if (current.length && size + f.length + 1 > max) {
      payloads.push(wrap(current));
      current = [];
      size = 2;
    }
    current.push(f);
    size += f.length + 1;
  }
  if (current.length) payloads.push(wrap(current));
  return payloads;
}

export class GatewayClient extends EventEmitter<{
  attributes: [AttributeUpdate];
  rpc: [GatewayRpcRequest];
  connected: [];
  disconnected: [string];
}> {
  readonly url: string;
  private readonly client: MqttClient;
  private readonly options: GatewayClientOptions;
  private readonly maxPayload: number;
  private readonly ackTimeoutMs: number;
  private batch: Batch = newBatch();
  private flushScheduled = false;
  /** a batch is out, waiting for its PUBACKs */
  private flushing = false;
  /** devices connected in this MQTT session -> the connect's PUBACK */
  private devices = new Map<string, Promise<void>>();
  private readonly pendingRequests = new Map<
    number,
    { resolve(v: Record<string, unknown> | undefined): void; timer: NodeJS.Timeout }
  >();
  private nextRequestId = 1;
  private closed = false;
  /** sends acknowledged (publishes) and datapoints carried, for counters */
  readonly stats = { publishes: 0, publishFailures: 0, reconnects: 0 };

  private constructor(client: MqttClient, options: GatewayClientOptions) {
    super();
    this.client = client;
    this.options = options;
    this.url = options.url;
    this.maxPayload = options.maxPayloadBytes ?? 60_000;
    this.ackTimeoutMs = options.ackTimeoutMs ?? 10_000;
    client.on('message', (topic, payload) => this.onMessage(topic, payload));
    client.on('connect', () => {
      // a new MQTT session: the platform forgot which devices this gateway connected
      this.devices = new Map();
      this.stats.reconnects++;
      this.emit('connected');
    });
    client.on('close', () => {
      if (!this.closed) this.emit('disconnected', 'connection closed');
    });
  }

  /** Connects and subscribes; rejects with a message a person can act on (bad token, not a gateway). */
  static async connect(options: GatewayClientOptions): Promise<GatewayClient> {
    const timeoutMs = options.connectTimeoutMs ?? 10_000;
    const mqttOptions: IClientOptions = {
      username: options.token,
      clientId: options.clientId ?? `sandboard-gw-${Math.random().toString(16).slice(2, 10)}`,
      protocolVersion: options.protocolVersion ?? 5,
      clean: true,
      reconnectPeriod: 0,
      connectTimeout: timeoutMs,
      keepalive: 30,
      resubscribe: true,
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
      ...(options.rejectUnauthorized !== undefined ? { rejectUnauthorized: options.rejectUnauthorized } : {}),
    };
    const client = mqttLib().connect(options.url, mqttOptions);
    await new Promise<void>((resolve, reject) => {
      let error: Error | undefined;
      const timer = setTimeout(() => {
        error ??= new Error(`no answer from ${options.url} within ${timeoutMs} ms`);
        client.end(true);
      }, timeoutMs + 1000);
      const onConnect = () => {
        clearTimeout(timer);
        client.off('close', onClose);
        client.off('error', onError);
        resolve();
      };
      const onClose = () => {
        clearTimeout(timer);
        client.off('connect', onConnect);
        client.off('error', onError);
        client.end(true);
        reject(error ?? new Error(`${options.url} closed the connection before accepting it`));
      };
      const onError = (err: Error) => {
        error ??= describeConnectError(
          err as Error & { code?: unknown },
          options.url,
          options.untrustedCertificateHint,
        );
      };
      client.on('error', onError);
      client.once('connect', onConnect);
      client.once('close', onClose);
    });
    // errors after the first connection are reconnection attempts; keep a listener so they do not throw
    client.on('error', () => undefined);
    const gateway = new GatewayClient(client, options);
    let refused: string | undefined;
    try {
      const granted = await client.subscribeAsync(TOPICS, { qos: 1 });
      const bad = granted.filter((g) => g.qos >= 0x80).map((g) => g.topic);
      if (bad.length) refused = bad.join(', ');
    } catch (err) {
      refused = (err as Error).message;
    }
    if (refused !== undefined) {
      client.end(true);
      throw new Error(
        `${options.url} refused the gateway subscriptions (${refused}): is the device of this token a gateway (additionalInfo.gateway = true)?`,
      );
    }
    client.options.reconnectPeriod = options.reconnectPeriodMs ?? 2000;
    return gateway;
  }

  get connected(): boolean {
    return this.client.connected;
  }

  /** Sends a device's attributes and telemetry in the next batch; resolves on the platform's PUBACK. */
  send(device: string, type: string, data: DeviceData): Promise<void> {
    if (this.closed) return Promise.reject(new PlatformSendError(503, 'the gateway is stopped'));
    const b = this.batch;
    if (!b.types.has(device)) b.types.set(device, type);
    if (data.attributes && Object.keys(data.attributes).length) {
      const current = b.attributes.get(device);
      if (current) Object.assign(current, data.attributes);
      else b.attributes.set(device, { ...data.attributes });
    }
    if (data.telemetry && data.telemetry.length) {
      const list = b.telemetry.get(device);
      if (list) list.push(...data.telemetry);
      else b.telemetry.set(device, [...data.telemetry]);
    }
    const promise = new Promise<void>((resolve, reject) => b.waiters.push({ resolve, reject }));
    this.scheduleFlush();
    return promise;
  }

  /** Connects a device (once per MQTT session) and waits for the PUBACK. */
  connectDevice(device: string, type: string): Promise<void> {
    let p = this.devices.get(device);
    if (!p) {
      p = this.publish('v1/gateway/connect', JSON.stringify({ device, type }));
      this.devices.set(device, p);
      p.catch(() => this.devices.delete(device));
    }
    return p;
  }

  /** Asks the platform for attributes of a device (v1/gateway/attributes/request); the answer as sent. */
  async requestAttributes(
    device: string,
    keys: string[],
    client: boolean,
    timeoutMs: number,
  ): Promise<Record<string, unknown> | undefined> {
    const id = this.nextRequestId++;
    const answer = new Promise<Record<string, unknown> | undefined>((resolve) => {
      const timer = setTimeout(() => {
        this.pendingRequests.delete(id);
        resolve(undefined);
      }, timeoutMs);
      this.pendingRequests.set(id, { resolve, timer });
    });
    try {
      await this.publish('v1/gateway/attributes/request', JSON.stringify({ id, device, client, keys }));
    } catch (err) {
      const p = this.pendingRequests.get(id);
      if (p) clearTimeout(p.timer);
      this.pendingRequests.delete(id);
      throw err;
    }
    return answer;
  }

  /** Answers a server-side RPC ({"device","id","data"} on v1/gateway/rpc). */
  replyRpc(device: string, id: number, data: unknown): Promise<void> {
    return this.publish('v1/gateway/rpc', JSON.stringify({ device, id, data }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const failed = this.batch.waiters;
    this.batch = newBatch();
    for (const w of failed) w.reject(new PlatformSendError(503, 'the gateway stopped'));
    for (const [id, p] of this.pendingRequests) {
      clearTimeout(p.timer);
      p.resolve(undefined);
      this.pendingRequests.delete(id);
    }
    await this.client.endAsync(false).catch(() => this.client.end(true));
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.flushing) return;
    this.flushScheduled = true;
    const run = () => {
      this.flushScheduled = false;
      this.flushing = true;
      void this.flush().finally(() => {
        this.flushing = false;
        if (this.batch.waiters.length) this.scheduleFlush();
      });
    };
    const window = this.options.batchWindowMs ?? 0;
    if (window > 0) setTimeout(run, window);
    else setImmediate(run);
  }

  private async flush(): Promise<void> {
    const b = this.batch;
    this.batch = newBatch();
    if (!b.waiters.length) return;
    try {
      await Promise.all([...b.types].map(([device, type]) => this.connectDevice(device, type)));
      const publishes: Promise<void>[] = [];
      if (b.telemetry.size) {
        const fragments: string[] = [];
        for (const [device, entries] of b.telemetry) fragments.push(...this.deviceFragments(device, entries));
        for (const payload of pack(fragments, this.maxPayload))
          publishes.push(this.publish('v1/gateway/telemetry', payload));
      }
      if (b.attributes.size) {
        const fragments = [...b.attributes].map(
          ([device, values]) => `${JSON.stringify(device)}:${JSON.stringify(values)}`,
        );
        for (const payload of pack(fragments, this.maxPayload))
          publishes.push(this.publish('v1/gateway/attributes', payload));
      }
      await Promise.all(publishes);
      for (const w of b.waiters) w.resolve();
    } catch (err) {
      const e = err instanceof PlatformSendError ? err : new PlatformSendError(502, (err as Error).message);
      for (const w of b.waiters) w.reject(e);
    }
  }

  /** '"device":[entries]' fragments, split so that each stays below the payload limit. */
  private deviceFragments(device: string, entries: TsEntry[]): string[] {
    const name = JSON.stringify(device);
    const whole = `${name}:${JSON.stringify(entries)}`;
    if (whole.length < this.maxPayload - 2 || entries.length === 1) return [whole];
    const half = Math.ceil(entries.length / 2);
    return [
      ...this.deviceFragments(device, entries.slice(0, half)),
      ...this.deviceFragments(device, entries.slice(half)),
    ];
  }

  private publish(topic: string, payload: string): Promise<void> {
    if (this.closed) return Promise.reject(new PlatformSendError(503, 'the gateway is stopped'));
    return new Promise<void>((resolve, reject) => {
      let done = false;
      const timer = setTimeout(() => {
        if (done) return;
        done = true;
        this.stats.publishFailures++;
        reject(
          new PlatformSendError(
            504,
            this.client.connected
              ? `the platform did not acknowledge ${topic} within ${this.ackTimeoutMs} ms`
              : `not connected to ${this.url} (reconnecting); nothing acknowledged within ${this.ackTimeoutMs} ms`,
          ),
        );
      }, this.ackTimeoutMs);
      this.client.publish(topic, payload, { qos: 1 }, (err) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (err) {
          this.stats.publishFailures++;
          const code = (err as { code?: unknown }).code;
          const reason = typeof code === 'number' ? ` (reason code 0x${code.toString(16)})` : '';
          reject(new PlatformSendError(502, `the platform refused ${topic}: ${err.message}${reason}`));
        } else {
          this.stats.publishes++;
          resolve();
        }
      });
    });
  }

  private onMessage(topic: string, payload: Buffer): void {
    let body: unknown;
    try {
      body = JSON.parse(payload.toString('utf8'));
    } catch {
      return;
    }
    if (typeof body !== 'object' || body === null) return;
    const msg = body as Record<string, unknown>;
    if (topic === 'v1/gateway/attributes/response') {
      const id = typeof msg.id === 'number' ? msg.id : Number(msg.id);
      const p = this.pendingRequests.get(id);
      if (!p) return;
      clearTimeout(p.timer);
      this.pendingRequests.delete(id);
      p.resolve(msg);
    } else if (topic === 'v1/gateway/attributes') {
      if (typeof msg.device !== 'string' || typeof msg.data !== 'object' || msg.data === null) return;
      this.emit('attributes', {
        device: msg.device,
        data: msg.data as Record<string, unknown>,
        ...(Array.isArray(msg.deleted) ? { deleted: msg.deleted as string[] } : {}),
      });
    } else if (topic === 'v1/gateway/rpc') {
      const data = msg.data as Record<string, unknown> | undefined;
      if (typeof msg.device !== 'string' || !data || typeof data.id !== 'number') return;
      this.emit('rpc', {
        device: msg.device,
        id: data.id,
        method: typeof data.method === 'string' ? data.method : '',
        params: data.params ?? {},
      });
    }
  }
}
