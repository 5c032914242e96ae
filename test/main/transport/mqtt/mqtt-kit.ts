import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { expect } from 'vitest';
import { createDevice, okEmpty, okJson, type ApiPlatform, type DeviceJson } from '../../api/api-kit.ts';

/** MQTT protocol levels: 4 is MQTT 3.1.1, 5 is MQTT 5. */
export type MqttVersion = 4 | 5;
export const VERSIONS: MqttVersion[] = [4, 5];
export const versionName = (v: MqttVersion) => (v === 5 ? 'MQTT 5' : 'MQTT 3.1.1');

/** How long a test waits for something that must arrive. */
const ARRIVAL_MS = 5_000;

let clientCounter = 0;

/** A connected client; closed (forcibly) when the test's platform stops or at the end via closeAll. */
export async function connect(
  url: string,
  username: string | undefined,
  version: MqttVersion,
  options: IClientOptions = {},
): Promise<MqttClient> {
  const client = await mqtt.connectAsync(
    url,
    {
      protocolVersion: version,
      clientId: `test-${process.pid}-${++clientCounter}`,
      reconnectPeriod: 0,
      connectTimeout: 5_000,
      ...(username === undefined ? {} : { username }),
      ...options,
    },
    false,
  );
  open.add(client);
  client.once('close', () => open.delete(client));
  // Failed connections and broker-side closes are asserted on explicitly; never let them go unhandled.
  client.on('error', () => undefined);
  return client;
}

const open = new Set<MqttClient>();

/** Ends every client still open (call in afterEach). */
export async function closeAll(): Promise<void> {
  await Promise.all([...open].map((c) => c.endAsync(true).catch(() => undefined)));
  open.clear();
}

/** The CONNACK return / reason code a refused connection got. */
export async function refusedConnect(
  url: string,
  username: string | undefined,
  version: MqttVersion,
): Promise<number> {
  try {
    const client = await connect(url, username, version);
    await client.endAsync(true);
  } catch (err) {
    return (err as { code?: number }).code ?? -1;
  }
  throw new Error('the connection was accepted');
}

/** A payload as the tests give it: objects are sent as JSON, strings and buffers as they are. */
function encode(payload: unknown): string | Buffer {
  return typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload);
}

export interface PublishOutcome {
  /** 0 = PUBACK success; otherwise the v5 PUBACK reason code; 'closed' = the broker closed the connection */
  code: number | 'closed';
  reasonString?: string;
}

/**
 * Publishes with QoS 1 and resolves with what the broker answered: the PUBACK reason code, or 'closed'
 * when it dropped the connection instead (MQTT 3.1.1 on failure).
 */
export function publish(client: MqttClient, topic: string, payload: unknown): Promise<PublishOutcome> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const onClose = () => {
      if (settled) return;
      settled = true;
      resolve({ code: 'closed' });
      // Flushes the publish callback that waits for a PUBACK that will never come.
      client.end(true);
    };
    client.once('close', onClose);
    client.publish(topic, encode(payload), { qos: 1 }, (err, packet) => {
      client.off('close', onClose);
      if (settled) return;
      const code = (err as { code?: unknown } | undefined)?.code;
      if (err && typeof code !== 'number') {
        // A socket error (ECONNRESET when the broker drops us mid-write) is a closed connection too.
        if (!client.connected) return onClose();
        settled = true;
        return reject(err);
      }
      settled = true;
      const props = (packet as { properties?: { reasonString?: string } } | undefined)?.properties;
      resolve({
        code: typeof code === 'number' ? code : 0,
        ...(err && props?.reasonString ? { reasonString: props.reasonString } : {}),
      });
    });
  });
}

/** Publishes and expects a PUBACK with reason code 0. */
export async function publishOk(client: MqttClient, topic: string, payload: unknown): Promise<void> {
  const outcome = await publish(client, topic, payload);
  expect(outcome, `publish to ${topic}`).toEqual({ code: 0 });
}

/** What a failed publish does on each protocol: v5 a PUBACK reason code, 3.1.1 a closed connection. */
export async function expectRefused(
  client: MqttClient,
  version: MqttVersion,
  topic: string,
  payload: unknown,
  v5Code: number,
): Promise<PublishOutcome> {
  const outcome = await publish(client, topic, payload);
  expect(outcome.code, `publish to ${topic} of ${String(encode(payload)).slice(0, 80)}`).toBe(
    version === 5 ? v5Code : 'closed',
  );
  return outcome;
}

/** Subscribes and returns the granted QoS / reason codes. */
export async function subscribe(client: MqttClient, ...topics: string[]): Promise<number[]> {
  return new Promise<number[]>((resolve, reject) =>
    client.subscribe(topics, { qos: 1 }, (err, _grants, suback) => {
      // A refused filter fails the call; the SUBACK still carries every filter's code.
      const granted = (suback as { granted?: (number | { qos: number })[] } | undefined)?.granted;
      if (granted) resolve(granted.map((g) => (typeof g === 'number' ? g : g.qos)));
      else reject(err ?? new Error('no SUBACK'));
    }),
  );
}

export async function subscribeOk(client: MqttClient, ...topics: string[]): Promise<void> {
  expect(await subscribe(client, ...topics)).toEqual(topics.map(() => 1));
}

export interface Received {
  topic: string;
  payload: Buffer;
  json: unknown;
}

/**
 * Every message a client receives, in order. take() hands out the first message not yet taken that
 * matches, waiting for it if needed; messages can be taken out of order, but a test can also check what
 * arrived before a given message (positive control for "nothing arrives").
 */
export class Inbox {
  readonly all: (Received & { taken: boolean })[] = [];
  private waiters: { match: (m: Received) => boolean; resolve: (m: Received) => void }[] = [];

  constructor(client: MqttClient) {
    client.on('message', (topic, payload) => {
      let json: unknown;
      try {
        json = JSON.parse(payload.toString('utf8'));
      } catch {
        json = undefined;
      }
      const m = { topic, payload, json, taken: false };
      this.all.push(m);
      const i = this.waiters.findIndex((w) => w.match(m));
      if (i >= 0) {
        m.taken = true;
        this.waiters.splice(i, 1)[0]!.resolve(m);
      }
    });
  }

  take(topic: string | RegExp, where: (json: unknown) => boolean = () => true): Promise<Received> {
    const match = (m: Received) =>
      (typeof topic === 'string' ? m.topic === topic : topic.test(m.topic)) && where(m.json);
    const found = this.all.find((m) => !m.taken && match(m));
    if (found) {
      found.taken = true;
      return Promise.resolve(found);
    }
    return new Promise<Received>((resolve, reject) => {
      const waiter = { match, resolve: (m: Received) => (clearTimeout(timer), resolve(m)) };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(
          new Error(
            `no message on ${String(topic)} within ${ARRIVAL_MS} ms; got ${JSON.stringify(this.all.map((m) => [m.topic, m.json]))}`,
          ),
        );
      }, ARRIVAL_MS);
      this.waiters.push(waiter);
    });
  }

  /** Messages that arrived before `m` (in arrival order). */
  before(m: Received): Received[] {
    return this.all.slice(0, this.all.indexOf(m as Received & { taken: boolean }));
  }
}

/** Resolves once the broker closed the client; with the v5 DISCONNECT reason code if one was sent. */
export function closedByBroker(client: MqttClient): Promise<number | undefined> {
  let reason: number | undefined;
  const onDisconnect = (packet: { reasonCode?: number }) => (reason = packet.reasonCode ?? 0);
  client.on('disconnect', onDisconnect);
  // Not events.once(): that rejects on the 'error' a dropped socket may emit first.
  return new Promise((resolve) =>
    client.once('close', () => {
      client.off('disconnect', onDisconnect);
      resolve(reason);
    }),
  );
}

export type Series = Record<string, { ts: number; value: unknown }[]>;

export interface Api {
  p: ApiPlatform;
  token: string;
}

/** The shared platform with the tenant administrator logged in once (for a describe block). */
export function loggedIn(platform: () => ApiPlatform): () => Promise<Api> {
  let token: string | undefined;
  return async () => {
    const p = platform();
    token ??= await p.login();
    return { p, token };
  };
}

/** A device created through REST with a chosen access token (gateway: additionalInfo.gateway = true). */
export async function newDevice(
  { p, token }: Api,
  name: string,
  options: { gateway?: boolean; accessToken?: string } = {},
): Promise<DeviceJson & { accessToken: string }> {
  const accessToken = options.accessToken ?? `tok-${name.replace(/[^A-Za-z0-9]/g, '')}-${process.pid}`;
  const device = await createDevice(
    p,
    token,
    { name, ...(options.gateway ? { additionalInfo: { gateway: true } } : {}) },
    accessToken,
  );
  return { ...device, accessToken };
}

export async function deviceByName({ p, token }: Api, name: string): Promise<DeviceJson> {
  return okJson<DeviceJson>(p.http(`/api/tenant/devices?deviceName=${encodeURIComponent(name)}`, { token }));
}

/** Latest values (strict types), or history with a range. */
export async function timeseries(
  { p, token }: Api,
  deviceId: string,
  query: Record<string, string | number> = {},
): Promise<Series> {
  const qs = new URLSearchParams({ useStrictDataTypes: 'true' });
  for (const [k, v] of Object.entries(query)) qs.set(k, String(v));
  return okJson<Series>(
    p.http(`/api/plugins/telemetry/DEVICE/${deviceId}/values/timeseries?${qs.toString()}`, { token }),
  );
}

export async function attributes(
  { p, token }: Api,
  deviceId: string,
  scope: 'CLIENT_SCOPE' | 'SHARED_SCOPE' | 'SERVER_SCOPE',
): Promise<Record<string, unknown>> {
  const list = await okJson<{ key: string; value: unknown }[]>(
    p.http(`/api/plugins/telemetry/DEVICE/${deviceId}/values/attributes/${scope}`, { token }),
  );
  return Object.fromEntries(list.map((a) => [a.key, a.value]));
}

export async function saveShared({ p, token }: Api, deviceId: string, values: Record<string, unknown>) {
  await okEmpty(
    p.http(`/api/plugins/telemetry/DEVICE/${deviceId}/attributes/SHARED_SCOPE`, {
      method: 'POST',
      token,
      json: values,
    }),
  );
}

export async function deleteShared({ p, token }: Api, deviceId: string, keys: string[]) {
  const res = await p.http(
    `/api/plugins/telemetry/DEVICE/${deviceId}/SHARED_SCOPE?keys=${encodeURIComponent(keys.join(','))}`,
    { method: 'DELETE', token },
  );
  expect(res.status, await res.text()).toBe(200);
}
