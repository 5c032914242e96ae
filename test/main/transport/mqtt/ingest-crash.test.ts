import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ingestValues, type PublisherSpec } from '../../../fixtures/mqtt-ingest-publisher.ts';
import {
  serveLogin as login,
  serveRest as rest,
  startServe,
  type ServeProcess,
} from '../../../helpers/serve-process.ts';
import { tempDir } from '../../../helpers/temp-dir.ts';

/**
 * Runs `sandboard serve` as a child, publishes QoS 1 telemetry into it from several MQTT clients (3.1.1 and
 * 5, direct devices and gateways, the gateways creating devices as they go) through the publisher fixture,
 * and SIGKILLs the server at a random moment, again and again on the same data directory. At the end, a
 * last server must hold, as seen through REST, every datapoint of every publish that got its PUBACK, and
 * nothing that was not published.
 */
const PUBLISHER = fileURLToPath(new URL('../../../fixtures/mqtt-ingest-publisher.ts', import.meta.url));
const CYCLES = 5;
const IN_FLIGHT = 16;
/** an hour ago, on a whole minute; cycle c publishes at BASE + c * CYCLE_SPAN + seq */
const BASE = Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000;
const CYCLE_SPAN = 10_000_000;
const KEYS = ['seq', 'quarter', 'label'] as const;

const DIRECT = [
  { name: 'crash-direct-v4', version: 4 as const },
  { name: 'crash-direct-v5', version: 5 as const },
];
const GATEWAYS = [
  { name: 'crash-gw-v5', version: 5 as const },
  { name: 'crash-gw-v4', version: 4 as const },
];
/** Devices behind a gateway: the v5 gateway keeps the same ones, the 3.1.1 one creates new ones every cycle. */
const gatewayDevices = (gateway: string, cycle: number) =>
  gateway === 'crash-gw-v5'
    ? ['a', 'b', 'c'].map((x) => `${gateway}-${x}`)
    : [0, 1].map((x) => `${gateway}-c${cycle}-${x}`);

const token = (name: string) => `tok-${name}`;
const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

interface CycleResult {
  /** acknowledged seqs per device name */
  acked: Map<string, number[]>;
  acks: number;
}

/** Publishes into the server until it is killed; resolves with what was acknowledged. */
async function publishUntilKilled(serve: ServeProcess, cycle: number): Promise<CycleResult> {
  const clients: PublisherSpec['clients'] = [
    ...DIRECT.map((d) => ({ token: token(d.name), version: d.version, devices: null })),
    ...GATEWAYS.map((g) => ({
      token: token(g.name),
      version: g.version,
      devices: gatewayDevices(g.name, cycle),
    })),
  ];
  const devicesOf = clients.map((c, i) => c.devices ?? [DIRECT[i]!.name]);
  const spec: PublisherSpec = {
    url: serve.urls.mqtt,
    base: BASE + cycle * CYCLE_SPAN,
    inFlight: IN_FLIGHT,
    clients,
  };
  const publisher = spawn(process.execPath, ['--no-warnings', PUBLISHER, JSON.stringify(spec)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  publisher.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const acked = new Map<string, number[]>();
  let acks = 0;
  // Kill once a random number of acks came in, after a random delay (sometimes at once).
  const target = randomInt(50, 800);
  let reached: () => void = () => {};
  const targetReached = new Promise<void>((resolve) => (reached = resolve));
  createInterface({ input: publisher.stdout! }).on('line', (line) => {
    const [word, client, seq] = line.split(' ');
    if (word !== 'ack') return;
    for (const device of devicesOf[Number(client)]!) {
      const list = acked.get(device) ?? [];
      list.push(Number(seq));
      acked.set(device, list);
    }
    if (++acks >= target) reached();
  });
  const publisherClosed = once(publisher, 'close');
  let killed = false;
  const exitedEarly = once(serve.child, 'exit').then(() => {
    if (!killed) throw new Error(`sandboard serve exited by itself in cycle ${cycle}: ${serve.stderr()}`);
  });
  await Promise.race([targetReached, exitedEarly, publisherClosed]);
  if (publisher.exitCode !== null) throw new Error(`publisher exited early: ${stderr}`);
  await new Promise((resolve) => setTimeout(resolve, randomInt(0, 150)));
  const serverExit = once(serve.child, 'exit');
  killed = true;
  serve.child.kill('SIGKILL');
  const [, signal] = (await serverExit) as [number | null, NodeJS.Signals | null];
  expect(signal, serve.stderr()).toBe('SIGKILL');
  await exitedEarly;
  // The publisher ends once its connections are gone; what it printed until then is all that was acked.
  await publisherClosed;
  expect(stderr).toBe('');
  return { acked, acks };
}

describe('MQTT ingest under SIGKILL', () => {
  it(
    'keeps every PUBACKed datapoint across repeated kills of sandboard serve',
    { timeout: 90_000 },
    async () => {
      const dir = tempDir('sandboard-ingest-crash-');
      const args = ['--data-dir', dir, '--http-port', '0', '--mqtt-port', '0', '--analytics-port', '0'];
      /** acknowledged ts per device, over all cycles */
      const expected = new Map<string, Set<number>>();
      let totalAcks = 0;
      const started = performance.now();

      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const serve = await startServe(args);
        if (cycle === 0) {
          const admin = await login(serve);
          for (const d of [...DIRECT, ...GATEWAYS.map((g) => ({ ...g, gateway: true }))]) {
            const body = JSON.stringify({
              name: d.name,
              ...('gateway' in d ? { additionalInfo: { gateway: true } } : {}),
            });
            await rest(serve, `/api/device?accessToken=${token(d.name)}`, {
              method: 'POST',
              token: admin,
              body,
            });
          }
        }
        const { acked, acks } = await publishUntilKilled(serve, cycle);
        totalAcks += acks;
        for (const [device, seqs] of acked) {
          const set = expected.get(device) ?? new Set<number>();
          for (const seq of seqs) set.add(BASE + cycle * CYCLE_SPAN + seq);
          expected.set(device, set);
        }
      }

      // A last start replays what the kills left; REST must show every acknowledged datapoint.
      const serve = await startServe(args);
      const admin = await login(serve);
      let checked = 0;
      const missing: string[] = [];
      const wrong: string[] = [];
      for (const [device, tsSet] of expected) {
        const { id } = await rest<{ id: { id: string } }>(
          serve,
          `/api/tenant/devices?deviceName=${encodeURIComponent(device)}`,
          { token: admin },
        );
        const series = await rest<Record<string, { ts: number; value: unknown }[]>>(
          serve,
          `/api/plugins/telemetry/DEVICE/${id.id}/values/timeseries?keys=${KEYS.join(',')}` +
            `&startTs=0&endTs=${BASE + CYCLES * CYCLE_SPAN}&limit=100000&useStrictDataTypes=true`,
          { token: admin },
        );
        for (const key of KEYS) {
          const stored = new Map((series[key] ?? []).map((p) => [p.ts, p.value]));
          // Whatever is stored, acknowledged or not, is exactly what was published for its ts.
          for (const [ts, value] of stored) {
            const seq = (ts - BASE) % CYCLE_SPAN;
            if (value !== ingestValues(seq)[key]) wrong.push(`${device} ${key}@${ts}=${String(value)}`);
          }
          for (const ts of tsSet) {
            checked++;
            if (!stored.has(ts)) missing.push(`${device} ${key}@${ts}`);
          }
        }
      }
      const summary = {
        cycles: CYCLES,
        totalAcks,
        devices: expected.size,
        datapointsChecked: checked,
        seconds: Math.round((performance.now() - started) / 1000),
      };
      console.log(`ingest crash test: ${JSON.stringify(summary)}`);
      expect(missing.slice(0, 20), `${missing.length} acknowledged datapoints missing`).toEqual([]);
      expect(wrong.slice(0, 20)).toEqual([]);
      // The test must be able to fail: every cycle acknowledged publishes, and the gateways created devices.
      expect(totalAcks).toBeGreaterThan(CYCLES * 50);
      expect(expected.size).toBeGreaterThanOrEqual(DIRECT.length + 3 + 2 * CYCLES);
    },
  );
});
