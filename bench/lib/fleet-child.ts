/**
 * One load process of `npm run bench:fleet`: holds a slice of the fleet's MQTT clients (3.1.1, QoS 1),
 * so that no single process has to hold 19,000 sockets. Driven by its parent over IPC:
 * `connect` connects every client at once (the storm) and reports how many were refused, `publish`
 * sends one QoS 1 publish per device spread over `spreadMs` and reports the PUBACK latencies, `end`
 * disconnects and exits.
 *
 * Direct devices are lean MQTT 3.1.1 clients (lean-mqtt-client.ts: the same packets as mqtt.js, at a
 * fraction of its CPU, which would otherwise take the cores serve needs during the storm); gateways are
 * mqtt.js clients. `client: 'mqttjs'` makes the direct devices mqtt.js clients too, to compare.
 *
 * argv[2]: JSON {mode: 'direct', url, tokens: string[], client: 'lean' | 'mqttjs'} or
 *          {mode: 'gateway', url, gateways: {token, prefix}[], devicesPerGateway, window}.
 */
import mqtt, { type MqttClient } from 'mqtt';
import { LeanMqttClient } from './lean-mqtt-client.ts';

export type FleetChildConfig =
  | { mode: 'direct'; url: string; tokens: string[]; client: 'lean' | 'mqttjs' }
  | {
      mode: 'gateway';
      url: string;
      gateways: { token: string; prefix: string }[];
      devicesPerGateway: number;
      window: number;
    };

export type FleetCommand = { cmd: 'connect' } | { cmd: 'publish'; spreadMs: number } | { cmd: 'end' };

export type FleetReport =
  | { type: 'ready' }
  | { type: 'connected'; ok: number; refused: number; errors: string[]; lastMs: number; emfile: boolean }
  | { type: 'published'; latencies: number[]; failed: number }
  | { type: 'ended' };

const config = JSON.parse(process.argv[2]!) as FleetChildConfig;
const clients: MqttClient[] = [];
const devices: LeanMqttClient[] = [];
const KEEPALIVE_S = 600;
const send = (report: FleetReport) => process.send!(report);

function connectOne(username: string): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(config.url, {
      protocolVersion: 4,
      username,
      clean: true,
      keepalive: KEEPALIVE_S,
      reconnectPeriod: 0,
      connectTimeout: 60_000,
    });
    client.once('connect', () => {
      client.removeAllListeners('error');
      client.on('error', () => undefined);
      resolve(client);
    });
    client.once('error', (err) => {
      client.end(true);
      reject(err);
    });
    client.once('close', () => reject(new Error('closed before CONNACK')));
  });
}

function connectDevice(username: string): Promise<LeanMqttClient> {
  const url = new URL(config.url);
  return LeanMqttClient.connect({
    host: url.hostname,
    port: Number(url.port || 1883),
    clientId: `fleet_${username}`,
    username,
    keepaliveS: KEEPALIVE_S,
    connectTimeoutMs: 60_000,
  });
}

// keep alive: a PINGREQ from every device that sent nothing for half its keep alive
setInterval(() => {
  for (const d of devices) d.pingIfIdle((KEEPALIVE_S * 1000) / 2);
}, 10_000).unref();

const publish = (client: MqttClient, topic: string, body: unknown) =>
  client.publishAsync(topic, JSON.stringify(body), { qos: 1 });

async function connectAll(): Promise<void> {
  const started = performance.now();
  let lastMs = 0;
  const errors = new Map<string, number>();
  let refused = 0;
  const usernames = config.mode === 'direct' ? config.tokens : config.gateways.map((g) => g.token);
  await Promise.all(
    usernames.map((u) =>
      (config.mode === 'direct' && config.client === 'lean' ? connectDevice(u) : connectOne(u)).then(
        (c) => {
          if (c instanceof LeanMqttClient) devices.push(c);
          else clients.push(c);
          lastMs = performance.now() - started;
        },
        (err: Error & { code?: string | number }) => {
          refused++;
          const key = `${err.code ?? ''} ${err.message}`.trim();
          errors.set(key, (errors.get(key) ?? 0) + 1);
        },
      ),
    ),
  );
  if (config.mode === 'gateway') {
    // every gateway announces its devices (v1/gateway/connect, which creates them), `window` in flight each
    const { devicesPerGateway, window } = config;
    await Promise.all(
      clients.map(async (client, g) => {
        let next = 0;
        const prefix = config.gateways[g]!.prefix;
        const worker = async () => {
          while (next < devicesPerGateway) {
            const d = next++;
            await publish(client, 'v1/gateway/connect', { device: `${prefix} Device ${d}` }).catch(() => {
              refused++;
            });
          }
        };
        await Promise.all(Array.from({ length: window }, worker));
      }),
    );
    lastMs = performance.now() - started;
  }
  const emfile = [...errors.keys()].some((k) => k.includes('EMFILE'));
  send({
    type: 'connected',
    ok: clients.length + devices.length,
    refused,
    errors: [...errors].map(([k, n]) => `${n}x ${k}`).slice(0, 5),
    lastMs,
    emfile,
  });
}

async function publishAll(spreadMs: number): Promise<void> {
  const latencies: number[] = [];
  let failed = 0;
  const timed = async (fn: () => Promise<unknown>) => {
    const t = performance.now();
    try {
      await fn();
      latencies.push(performance.now() - t);
    } catch {
      failed++;
    }
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  if (config.mode === 'direct') {
    const gap = spreadMs / Math.max(1, devices.length + clients.length);
    const pending: Promise<void>[] = [];
    for (const [i, device] of devices.entries()) {
      const body = JSON.stringify({ temperature: 20 + (i % 10) });
      pending.push(timed(() => device.publish('v1/devices/me/telemetry', body)));
      if (i % 50 === 49) await sleep(gap * 50);
    }
    for (const [i, client] of clients.entries()) {
      pending.push(timed(() => publish(client, 'v1/devices/me/telemetry', { temperature: 20 + (i % 10) })));
      if (i % 50 === 49) await sleep(gap * 50);
    }
    await Promise.all(pending);
  } else {
    // each gateway sends its devices' telemetry, 100 devices a message, one message per gateway in flight
    const { devicesPerGateway } = config;
    await Promise.all(
      clients.map(async (client, g) => {
        const prefix = config.gateways[g]!.prefix;
        for (let first = 0; first < devicesPerGateway; first += 100) {
          const body: Record<string, unknown> = {};
          for (let d = first; d < Math.min(devicesPerGateway, first + 100); d++)
            body[`${prefix} Device ${d}`] = [{ temperature: d % 40 }];
          await timed(() => publish(client, 'v1/gateway/telemetry', body));
        }
      }),
    );
  }
  send({ type: 'published', latencies, failed });
}

process.on('message', (msg: FleetCommand) => {
  if (msg.cmd === 'connect') void connectAll();
  else if (msg.cmd === 'publish') void publishAll(msg.spreadMs);
  else {
    for (const c of clients) c.end(true);
    for (const d of devices) d.end();
    send({ type: 'ended' });
    setImmediate(() => process.exit(0));
  }
});
send({ type: 'ready' });
