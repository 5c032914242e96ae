import { randomUUID } from 'node:crypto';
import type { IClientPublishOptions, MqttClient } from 'mqtt';
import { mqttLib } from '../mqtt-lib.ts';
import { expandTemplate, parseCsvTable, type TemplateState } from '../../shared/payload-template.ts';
import type {
  ClientConnection as ConnectionInfo,
  ClientPublishRequest,
  ClientReceivedMessage,
  ClientSentMessage,
  ClientState,
  RpcRule,
} from '../../shared/schemas/mqtt-client.ts';

const RECEIVED_KEPT = 500;
const SENT_KEPT = 200;
const TEXT_KEPT = 16_384;
const MAX_REPEATS = 4;
const MAX_RPC_RULES = 50;
/** a repeat skips a beat while this many of its publishes wait for their PUBACK */
const REPEAT_IN_FLIGHT = 50;

export interface ConnectOptions {
  url: string;
  clientId: string;
  username?: string;
  password?: string;
  protocolVersion: 4 | 5;
  label: string;
  deviceId: string | null;
  deviceType: string | null;
}

export class ClientInputError extends Error {}

interface Repeat {
  id: string;
  topic: string;
  everyMs: number;
  sent: number;
  inFlight: number;
  timer: NodeJS.Timeout;
}

function keepText(text: string): string {
  return text.length > TEXT_KEPT ? `${text.slice(0, TEXT_KEPT)}…` : text;
}

const RPC_REQUEST = /^v1\/devices\/me\/rpc\/request\/(\d+)$/;

/**
 * One connection of the in-app MQTT client: a real mqtt.js client over a real socket, as a device would
 * be, with what it sent (and the answer), what it received, repeating publishes and RPC auto-replies.
 */
export class ClientConnection {
  readonly id = randomUUID();
  readonly ownerId: string;
  private readonly options: ConnectOptions;
  private readonly client: MqttClient;
  private state: ConnectionInfo['state'] = 'connecting';
  private error: string | null = null;
  private readonly subscriptions = new Map<string, number>();
  private readonly sent: ClientSentMessage[] = [];
  private readonly received: ClientReceivedMessage[] = [];
  private readonly repeats = new Map<string, Repeat>();
  private rpcRules: RpcRule[] = [];
  private readonly template: TemplateState = { counter: 0, csvRow: 0 };

  constructor(ownerId: string, options: ConnectOptions) {
    this.ownerId = ownerId;
    this.options = options;
    this.client = mqttLib().connect(options.url, {
      clientId: options.clientId,
      ...(options.username !== undefined ? { username: options.username } : {}),
      ...(options.password !== undefined ? { password: options.password } : {}),
      protocolVersion: options.protocolVersion,
      reconnectPeriod: 0,
      connectTimeout: 10_000,
    });
    this.client.on('connect', () => {
      this.state = 'connected';
      this.error = null;
    });
    this.client.on('error', (err) => (this.error = err.message));
    this.client.on('disconnect', (packet) => {
      this.error = `The broker disconnected: reason code 0x${(packet.reasonCode ?? 0).toString(16)}${packet.properties?.reasonString ? ` (${packet.properties.reasonString})` : ''}`;
    });
    this.client.on('close', () => {
      this.state = 'closed';
      this.stopRepeats();
    });
    this.client.on('message', (topic, payload, packet) => {
      const text = payload.toString('utf8');
      this.received.push({
        ts: Date.now(),
        topic,
        payload: keepText(text),
        qos: packet.qos,
        retain: packet.retain,
      });
      if (this.received.length > RECEIVED_KEPT) this.received.shift();
      this.autoReply(topic, text);
    });
  }

  /** Resolves once connected; rejects with the broker's refusal. */
  ready(): Promise<void> {
    if (this.state === 'connected') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onConnect = () => (cleanup(), resolve());
      const onFail = (err?: Error) => (
        cleanup(),
        reject(new ClientInputError(err?.message ?? this.error ?? 'Connection closed'))
      );
      const cleanup = () => {
        this.client.off('connect', onConnect);
        this.client.off('error', onFail);
        this.client.off('close', onFail);
      };
      this.client.once('connect', onConnect);
      this.client.once('error', onFail);
      this.client.once('close', onFail);
    });
  }

  info(): ConnectionInfo {
    return {
      id: this.id,
      label: this.options.label,
      url: this.options.url,
      clientId: this.options.clientId,
      protocolVersion: this.options.protocolVersion,
      deviceId: this.options.deviceId,
      deviceType: this.options.deviceType,
      state: this.state,
      error: this.error,
      subscriptions: [...this.subscriptions].map(([topic, qos]) => ({ topic, qos })),
    };
  }

  snapshot(): ClientState {
    return {
      connection: this.info(),
      sent: [...this.sent].reverse(),
      received: [...this.received].reverse(),
      repeats: [...this.repeats.values()].map(({ id, topic, everyMs, sent }) => ({
        id,
        topic,
        everyMs,
        sent,
      })),
      rpcRules: this.rpcRules,
    };
  }

  /** Publishes once (the template filled in) and resolves with what the broker answered. */
  async publish(request: ClientPublishRequest): Promise<ClientSentMessage> {
    const publish = this.publisher(request);
    return publish();
  }

  /** Publishes every `everyMs` until stopped or `times` publishes; returns the repeat's id. */
  repeat(request: ClientPublishRequest & { everyMs: number }): string {
    if (this.repeats.size >= MAX_REPEATS)
      throw new ClientInputError(`A connection repeats at most ${MAX_REPEATS} publishes at once`);
    const publish = this.publisher(request);
    const repeat: Repeat = {
      id: randomUUID(),
      topic: request.topic,
      everyMs: request.everyMs,
      sent: 0,
      inFlight: 0,
      timer: setInterval(() => {
        if (repeat.inFlight >= REPEAT_IN_FLIGHT || this.state !== 'connected') return;
        repeat.sent++;
        repeat.inFlight++;
        publish()
          .catch(() => undefined)
          .finally(() => repeat.inFlight--);
        if (request.times !== undefined && repeat.sent >= request.times) this.stopRepeat(repeat.id);
      }, request.everyMs),
    };
    repeat.timer.unref();
    this.repeats.set(repeat.id, repeat);
    return repeat.id;
  }

  stopRepeat(id: string): void {
    const r = this.repeats.get(id);
    if (!r) return;
    clearInterval(r.timer);
    this.repeats.delete(id);
  }

  async subscribe(topic: string, qos: 0 | 1 | 2): Promise<number> {
    this.requireConnected();
    const granted = await this.client.subscribeAsync(topic, { qos });
    const code = granted[0]?.qos ?? 0x80;
    if (code < 0x80) this.subscriptions.set(topic, code);
    return code;
  }

  async unsubscribe(topic: string): Promise<void> {
    this.requireConnected();
    await this.client.unsubscribeAsync(topic);
    this.subscriptions.delete(topic);
  }

  setRpcRules(rules: RpcRule[]): void {
    if (rules.length > MAX_RPC_RULES) throw new ClientInputError(`At most ${MAX_RPC_RULES} RPC rules`);
    this.rpcRules = rules;
  }

  async close(): Promise<void> {
    this.stopRepeats();
    await this.client.endAsync(true).catch(() => undefined);
  }

  private publisher(request: ClientPublishRequest): () => Promise<ClientSentMessage> {
    this.requireConnected();
    const csv = request.csv ? parseCsvTable(request.csv) : undefined;
    // a bad template is refused before anything is sent
    expandTemplate(request.payload, { counter: 0, csvRow: 0 }, csv);
    const qos = request.qos ?? 1;
    const retain = request.retain ?? false;
    const opts: IClientPublishOptions = { qos, retain };
    if (request.properties && this.options.protocolVersion === 5) {
      const { userProperties, ...rest } = request.properties;
      opts.properties = { ...rest, ...(userProperties ? { userProperties } : {}) };
    }
    return async () => {
      const payload = expandTemplate(request.payload, this.template, csv);
      const entry: ClientSentMessage = {
        ts: Date.now(),
        topic: request.topic,
        payload: keepText(payload),
        qos,
        retain,
        reasonCode: null,
      };
      this.sent.push(entry);
      if (this.sent.length > SENT_KEPT) this.sent.shift();
      try {
        const packet = await this.client.publishAsync(request.topic, payload, opts);
        entry.reasonCode = (packet as { reasonCode?: number } | undefined)?.reasonCode ?? 0;
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        entry.reasonCode = typeof code === 'number' ? code : -1;
        entry.reason = (err as Error).message;
      }
      return entry;
    };
  }

  /** An RPC request a rule answers: the rule's JSON on v1/devices/me/rpc/response/{id}. */
  private autoReply(topic: string, text: string): void {
    const m = RPC_REQUEST.exec(topic);
    if (!m || this.rpcRules.length === 0) return;
    let method: unknown;
    try {
      method = (JSON.parse(text) as { method?: unknown }).method;
    } catch {
      return;
    }
    const rule = this.rpcRules.find((r) => r.method === method);
    if (!rule) return;
    void this.publish({
      topic: `v1/devices/me/rpc/response/${m[1]}`,
      payload: JSON.stringify(rule.response),
    }).catch(() => undefined);
  }

  private requireConnected(): void {
    if (this.state !== 'connected')
      throw new ClientInputError(`The connection is ${this.state}${this.error ? `: ${this.error}` : ''}`);
  }

  private stopRepeats(): void {
    for (const id of [...this.repeats.keys()]) this.stopRepeat(id);
  }
}
