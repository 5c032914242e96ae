/**
 * One replayed MQTT connection: a device, or a gateway and the devices connected through it. It connects
 * with the device's access token, sends publishes with a bounded window of unacknowledged ones (QoS 1
 * pipelining), and answers the RPC requests it gets with the recorded answers.
 */
import { randomBytes } from 'node:crypto';
import type { IClientOptions, IClientPublishOptions, MqttClient } from 'mqtt';
import { mqttLib } from '../mqtt-lib.ts';

/** What a connect or a publish got: 0 accepted, else the reason code (or -1: the connection was lost). */
export type Answer = { code: number; reason?: string };

export interface SessionOptions {
  url: string;
  token: string;
  clientId?: string;
  protocolVersion?: 3 | 4 | 5;
  gateway: boolean;
  /** unacknowledged publishes at most */
  window: number;
  /** an RPC request reached the connection: the answer's payload, or undefined for none */
  onRpc(device: string | undefined, method: string, params: unknown): unknown;
  connectTimeoutMs?: number;
}

const RESPONSE_TOPIC = 'v1/devices/me/rpc/response/';
const MAX_DEVICE_RPC_ANSWERS = 10_000;

const codeOf = (err: unknown): number => {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : -1;
};

export class ReplaySession {
  private client: MqttClient | undefined;
  private readonly inflight = new Set<Promise<void>>();
  private readonly options: SessionOptions;
  private lost: string | undefined;
  /** the platform's answers to the device's own RPC requests, by request id (bounded) */
  readonly deviceRpcAnswers = new Map<string, string>();

  constructor(options: SessionOptions) {
    this.options = options;
  }

  get protocolVersion(): 3 | 4 | 5 {
    return this.options.protocolVersion ?? 4;
  }

  get connected(): boolean {
    return this.client?.connected ?? false;
  }

  /** Connects (and subscribes to its RPC requests); the CONNACK's answer. */
  async connect(): Promise<Answer> {
    const o = this.options;
    const options: IClientOptions = {
      username: o.token,
      clientId: o.clientId ?? `sandboard-replay-${randomBytes(6).toString('hex')}`,
      protocolVersion: o.protocolVersion ?? 4,
      clean: true,
      reconnectPeriod: 0,
      connectTimeout: o.connectTimeoutMs ?? 10_000,
      keepalive: 30,
      resubscribe: false,
    };
    const client = mqttLib().connect(o.url, options);
    const answer = await new Promise<Answer>((resolve) => {
      client.once('connect', () => resolve({ code: 0 }));
      client.once('error', (err) => resolve({ code: codeOf(err), reason: err.message }));
      client.once('close', () => resolve({ code: -1, reason: 'the connection was closed' }));
    });
    if (answer.code !== 0) {
      client.end(true);
      return answer;
    }
    this.client = client;
    client.on('error', () => {});
    client.on('close', () => (this.lost = 'the connection was closed'));
    client.on('message', (topic, payload) => this.received(topic, payload));
    const topics = ['v1/devices/me/rpc/request/+', 'v1/devices/me/rpc/response/+'];
    await client.subscribeAsync(o.gateway ? [...topics, 'v1/gateway/rpc'] : topics, { qos: 1 });
    return answer;
  }

  private received(topic: string, payload: Buffer): void {
    if (topic.startsWith(RESPONSE_TOPIC)) {
      if (this.deviceRpcAnswers.size < MAX_DEVICE_RPC_ANSWERS)
        this.deviceRpcAnswers.set(topic.slice(RESPONSE_TOPIC.length), payload.toString('utf8'));
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(payload.toString('utf8')) as Record<string, unknown>;
    } catch {
      return;
    }
    if (topic === 'v1/gateway/rpc') {
      const data = body.data as { id?: unknown; method?: unknown; params?: unknown } | undefined;
      if (typeof body.device !== 'string' || !data || typeof data.method !== 'string') return;
      const response = this.options.onRpc(body.device, data.method, data.params);
      if (response !== undefined)
        void this.send(
          'v1/gateway/rpc',
          JSON.stringify({ device: body.device, id: data.id, data: response }),
          {
            qos: 1,
          },
        );
      return;
    }
    const requestId = topic.slice('v1/devices/me/rpc/request/'.length);
    if (typeof body.method !== 'string') return;
    const response = this.options.onRpc(undefined, body.method, body.params);
    if (response !== undefined)
      void this.send(`v1/devices/me/rpc/response/${requestId}`, JSON.stringify(response), { qos: 1 });
  }

  /** Publishes once the window has room; the promise of its answer (PUBACK) is returned at once. */
  async publish(
    topic: string,
    payload: Buffer | string,
    options: IClientPublishOptions,
  ): Promise<{ answer: Promise<Answer> }> {
    while (this.inflight.size >= this.options.window) await Promise.race(this.inflight);
    const answer = this.send(topic, payload, options);
    const settled = answer.then(() => {
      this.inflight.delete(settled);
    });
    this.inflight.add(settled);
    return { answer };
  }

  private send(topic: string, payload: Buffer | string, options: IClientPublishOptions): Promise<Answer> {
    const client = this.client;
    if (!client || this.lost) return Promise.resolve({ code: -1, reason: this.lost ?? 'not connected' });
    return new Promise((resolve) => {
      client.publish(topic, payload, options, (err) =>
        resolve(err ? { code: codeOf(err), reason: err.message } : { code: 0 }),
      );
    });
  }

  /** Every publish sent so far is answered. */
  async drain(): Promise<void> {
    while (this.inflight.size) await Promise.all(this.inflight);
  }

  async close(): Promise<void> {
    await this.drain();
    const client = this.client;
    this.client = undefined;
    if (client) await client.endAsync().catch(() => {});
  }
}
