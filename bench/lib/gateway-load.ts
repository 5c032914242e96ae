import mqtt, { type MqttClient } from 'mqtt';
import { processCpuMs } from './proc-cpu.ts';

/**
 * The ingest benchmark's load: gateways, each publishing QoS 1 messages on v1/gateway/telemetry for
 * DEVICES_PER_PUBLISH of its DEVICES_PER_GATEWAY devices at a time (cycling through them), each device
 * with 3 keys, keeping at most `window` publishes per gateway waiting for their PUBACK.
 */
export const DEVICES_PER_GATEWAY = 100;
export const DEVICES_PER_PUBLISH = 10;
export const KEYS = ['temperature', 'humidity', 'pressure'] as const;
export const DATAPOINTS_PER_PUBLISH = DEVICES_PER_PUBLISH * KEYS.length;

export const deviceName = (gateway: number, device: number) => `GW${gateway} Device ${device}`;

/** Device index (0..99) of the j-th device of publish i, and the publish's timestamp. */
export function publishShape(i: number, base: number): { first: number; ts: number } {
  const groups = DEVICES_PER_GATEWAY / DEVICES_PER_PUBLISH;
  return { first: (i % groups) * DEVICES_PER_PUBLISH, ts: base + Math.floor(i / groups) };
}

/** The values of device j in publish i: a double, a long and a double. */
export function values(i: number, j: number): { temperature: number; humidity: number; pressure: number } {
  return {
    temperature: 20.5 + ((i + j) % 100) / 10,
    humidity: 40 + ((i + j) % 50),
    pressure: 1000.25 + ((i * 7 + j) % 200) / 4,
  };
}

/** Publish i of a gateway: {"GW0 Device 10": [{"ts": .., "values": {...}}], ... 10 devices}. */
export function telemetryPayload(gateway: number, i: number, base: number): string {
  const { first, ts } = publishShape(i, base);
  let s = '{';
  for (let j = 0; j < DEVICES_PER_PUBLISH; j++) {
    const v = values(i, j);
    s += `${j ? ',' : ''}"${deviceName(gateway, first + j)}":[{"ts":${ts},"values":{"temperature":${v.temperature},"humidity":${v.humidity},"pressure":${v.pressure}}}]`;
  }
  return `${s}}`;
}

export async function connectClients(url: string, usernames: (string | undefined)[]): Promise<MqttClient[]> {
  return Promise.all(
    usernames.map((username, g) =>
      mqtt.connectAsync(
        url,
        {
          protocolVersion: 5,
          clientId: `bench-gw-${g}`,
          reconnectPeriod: 0,
          connectTimeout: 10_000,
          ...(username ? { username } : {}),
        },
        false,
      ),
    ),
  );
}

function publishAsync(client: MqttClient, topic: string, payload: string): Promise<void> {
  return new Promise((resolve, reject) =>
    client.publish(topic, payload, { qos: 1 }, (err) => (err ? reject(err) : resolve())),
  );
}

/** Runs fn(i) for i in 0..count-1 with at most `window` at a time. */
export async function windowed(count: number, window: number, fn: (i: number) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(window, count) }, worker));
}

/** Connects every device of every gateway (v1/gateway/connect, QoS 1), `window` at a time per gateway. */
export async function connectDevices(clients: MqttClient[], window: number): Promise<void> {
  await Promise.all(
    clients.map((client, g) =>
      windowed(DEVICES_PER_GATEWAY, window, (d) =>
        publishAsync(client, 'v1/gateway/connect', JSON.stringify({ device: deviceName(g, d) })),
      ),
    ),
  );
}

export interface LoadResult {
  /** publishes acknowledged within the measured period */
  acked: number;
  /** publishes acknowledged over the whole run (warm-up included), per gateway */
  ackedPerGateway: number[];
  /** ms of the measured period */
  ms: number;
  /** PUBACK latencies (ms) of the publishes acknowledged in the measured period */
  latencies: number[];
  publishesPerSec: number;
  datapointsPerSec: number;
}

/**
 * Publishes for warmupMs + durationMs with a bounded in-flight window per gateway; counts the PUBACKs and
 * their latencies after the warm-up, then waits for the last ones. Any PUBACK error fails the run.
 */
export async function runLoad(
  clients: MqttClient[],
  options: {
    window: number;
    warmupMs: number;
    durationMs: number;
    base: number;
    /** called at each PUBACK with the gateway, the publish's index and performance.now() */
    onAck?: (gateway: number, i: number, at: number) => void;
  },
): Promise<LoadResult> {
  const latencies: number[] = [];
  const ackedPerGateway = clients.map(() => 0);
  let acked = 0;
  const start = performance.now();
  const measureFrom = start + options.warmupMs;
  const stopAt = measureFrom + options.durationMs;
  await Promise.all(
    clients.map(async (client, g) => {
      let i = 0;
      const worker = async () => {
        while (performance.now() < stopAt) {
          const sent = performance.now();
          const index = i++;
          await publishAsync(client, 'v1/gateway/telemetry', telemetryPayload(g, index, options.base));
          const now = performance.now();
          options.onAck?.(g, index, now);
          ackedPerGateway[g]!++;
          if (now >= measureFrom && now <= stopAt) {
            acked++;
            latencies.push(now - sent);
          }
        }
      };
      await Promise.all(Array.from({ length: options.window }, worker));
    }),
  );
  const ms = options.durationMs;
  const publishesPerSec = (acked / ms) * 1000;
  return {
    acked,
    ackedPerGateway,
    ms,
    latencies,
    publishesPerSec,
    datapointsPerSec: publishesPerSec * DATAPOINTS_PER_PUBLISH,
  };
}

export interface ServerLoadResult extends LoadResult {
  /** CPU ms the server process used over the whole run */
  serverCpuMs: number;
  /** device messages acknowledged over the whole run */
  messages: number;
}

/** runLoad against the server process `pid`, with the CPU it used and the messages it took. */
export async function runServerLoad(
  pid: number,
  clients: MqttClient[],
  options: Parameters<typeof runLoad>[1],
): Promise<ServerLoadResult> {
  const cpuBefore = processCpuMs(pid) ?? Number.NaN;
  const result = await runLoad(clients, options);
  const serverCpuMs = (processCpuMs(pid) ?? Number.NaN) - cpuBefore;
  const messages = result.ackedPerGateway.reduce((a, b) => a + b, 0) * DEVICES_PER_PUBLISH;
  return { ...result, serverCpuMs, messages };
}
