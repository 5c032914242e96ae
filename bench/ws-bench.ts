/**
 * npm run bench:ws — ThingsBoard's WebSocket API under bench:ingest's load.
 *
 * One `sandboard serve` child, bench:ingest's 10 gateways x 100 devices publishing QoS 1 telemetry. Three
 * load runs: without WebSocket subscribers, with 100 sessions on /api/ws each subscribed (ENTITY_DATA,
 * latestCmd on the 3 keys) to the 100 devices of gateway 0 (10,000 entity subscriptions), and without
 * again; the ingest ratio compares the middle run to the mean of the other two. The update latency runs
 * from a publish's PUBACK to the first WebSocket frame carrying its timestamp (measured on 10 of the
 * sessions, the others only count frames, to keep this process's share of the CPU small).
 *
 * Env: BENCH_DURATION_S (measured seconds per run, default 8), BENCH_WARMUP_S (1), BENCH_WINDOW (4).
 * Last line: BENCH {"name":"ws","updateP50Ms":..,"updateP99Ms":..,"ingestRatio":..}.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, printBench, printFigures, round } from './lib/bench-output.ts';
import { benchHttp, createBenchGateways, tenantToken } from './lib/bench-http.ts';
import {
  connectClients,
  connectDevices,
  DEVICES_PER_GATEWAY,
  DEVICES_PER_PUBLISH,
  KEYS,
  runLoad,
} from './lib/gateway-load.ts';
import { startServeChild } from './lib/serve-child.ts';

const GATEWAYS = 10;
const SESSIONS = 100;
const MEASURED_SESSIONS = 10;
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 8) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 1) * 1000;
const WINDOW = Number(process.env.BENCH_WINDOW ?? 4);
const BASE = Date.now() - 86_400_000;
const TARGETS = { updateP99Ms: 100, ingestRatio: 0.85 };
const GROUPS = DEVICES_PER_GATEWAY / DEVICES_PER_PUBLISH;

interface EntityUpdate {
  entityId: { id: string };
  latest: { TIME_SERIES?: Record<string, { ts: number }> } | null;
}

/** Gateway 0's publishes: when each was acknowledged and when its first frame arrived. */
class Latencies {
  private readonly acked = new Map<number, number>();
  private readonly framed = new Map<number, number>();
  readonly values: number[] = [];
  ack(i: number, at: number): void {
    const frame = this.framed.get(i);
    if (frame !== undefined) {
      this.values.push(Math.max(0, frame - at));
      this.framed.delete(i);
    } else this.acked.set(i, at);
  }
  frame(i: number, at: number): void {
    const ack = this.acked.get(i);
    if (ack !== undefined) {
      this.values.push(Math.max(0, at - ack));
      this.acked.delete(i);
    } else if (!this.framed.has(i)) this.framed.set(i, at);
  }
}

/** Opens a session subscribed to gateway 0's devices; resolves once its data page arrived. */
async function openSession(
  url: string,
  token: string,
  measure: ((m: string) => void) | null,
  frames: { count: number },
  deviceIndex: Map<string, number>,
): Promise<WebSocket> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve());
    ws.addEventListener('error', () => reject(new Error('WebSocket failed to open')));
  });
  const first = new Promise<void>((resolve, reject) => {
    ws.addEventListener('message', (e) => {
      const text = String(e.data);
      if (deviceIndex.size === 0) {
        const m = JSON.parse(text) as {
          errorCode: number;
          errorMsg: string;
          data?: {
            data: { entityId: { id: string }; latest: { ENTITY_FIELD: { name: { value: string } } } }[];
          };
        };
        if (m.errorCode !== 0 || !m.data) return reject(new Error(`ENTITY_DATA failed: ${m.errorMsg}`));
        for (const e of m.data.data)
          deviceIndex.set(e.entityId.id, Number(/ (\d+)$/.exec(e.latest.ENTITY_FIELD.name.value)![1]));
        resolve();
        return;
      }
      frames.count++;
      measure?.(text);
    });
  });
  ws.send(
    JSON.stringify({
      authCmd: { cmdId: 0, token },
      cmds: [
        {
          type: 'ENTITY_DATA',
          cmdId: 1,
          query: {
            entityFilter: { type: 'entityName', entityType: 'DEVICE', entityNameFilter: 'GW0 Device ' },
            pageLink: { pageSize: DEVICES_PER_GATEWAY, page: 0 },
            entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
          },
          latestCmd: { keys: KEYS.map((key) => ({ type: 'TIME_SERIES', key })) },
        },
      ],
    }),
  );
  await first;
  if (deviceIndex.size !== DEVICES_PER_GATEWAY)
    throw new Error(`a session follows ${deviceIndex.size} devices, not ${DEVICES_PER_GATEWAY}`);
  return ws;
}

const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-bench-ws-'));
const serve = await startServeChild(dataDir);
let sessions: WebSocket[] = [];
try {
  console.log(
    `${GATEWAYS} gateways x ${DEVICES_PER_GATEWAY} devices, QoS 1, ${WINDOW} in flight per gateway, ` +
      `${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s measured per run; ${SESSIONS} WebSocket sessions x ` +
      `${DEVICES_PER_GATEWAY} devices; ${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(1)}`,
  );
  const http = benchHttp(serve.urls.http);
  const token = await tenantToken(http);
  const tokens = await createBenchGateways(http, token, GATEWAYS);
  const clients = await connectClients(serve.urls.mqtt, tokens);
  await connectDevices(clients, WINDOW);
  const load = (onAck?: (g: number, i: number, at: number) => void) =>
    runLoad(clients, {
      window: WINDOW,
      warmupMs: WARMUP_MS,
      durationMs: DURATION_MS,
      base: BASE,
      ...(onAck ? { onAck } : {}),
    });

  const before = await load();

  const timed = Array.from({ length: MEASURED_SESSIONS }, () => new Latencies());
  const frames = { count: 0 };
  const wsUrl = `${serve.urls.http.replace(/^http/, 'ws')}/api/ws`;
  const opened = [];
  for (let s = 0; s < SESSIONS; s++) {
    const latencies = timed[s];
    const index = new Map<string, number>();
    const measure = latencies
      ? (text: string) => {
          const at = performance.now();
          const m = JSON.parse(text) as { update: EntityUpdate[] | null };
          for (const e of m.update ?? []) {
            const ts = e.latest?.TIME_SERIES?.temperature?.ts;
            const device = index.get(e.entityId.id);
            if (ts === undefined || device === undefined) continue;
            // publish i of gateway 0 carries devices (i % 10) * 10 .. +9 at ts BASE + floor(i / 10)
            latencies.frame((ts - BASE) * GROUPS + Math.floor(device / DEVICES_PER_PUBLISH), at);
          }
        }
      : null;
    opened.push(await openSession(wsUrl, token, measure, frames, index));
  }
  sessions = opened;
  const framesBefore = frames.count;
  const during = await load((g, i, at) => {
    if (g === 0) for (const latencies of timed) latencies.ack(i, at);
  });
  const framesDuring = frames.count - framesBefore;
  for (const ws of sessions) ws.close();
  sessions = [];

  const after = await load();
  await Promise.all(clients.map((c) => c.endAsync()));

  const baseline = (before.datapointsPerSec + after.datapointsPerSec) / 2;
  const ingestRatio = during.datapointsPerSec / baseline;
  const latencies = timed.flatMap((t) => t.values);
  const updateP50Ms = percentile(latencies, 50);
  const updateP99Ms = percentile(latencies, 99);
  printFigures({
    'ingest without subscribers (before / after)': `${Math.round(before.datapointsPerSec)} / ${Math.round(after.datapointsPerSec)} datapoints/s`,
    'ingest with 100 sessions x 100 devices subscribed': [during.datapointsPerSec, 'datapoints/s'],
    'ingest ratio, subscribed / not (target >= 0.85)': ingestRatio,
    'frames the sessions received during the run': framesDuring,
    'updates timed (PUBACK and frame seen, 10 sessions)': latencies.length,
    'update latency PUBACK -> frame p50': [updateP50Ms, 'ms'],
    'update latency PUBACK -> frame p99 (target <= 100)': [updateP99Ms, 'ms'],
  });
  const ok = updateP99Ms <= TARGETS.updateP99Ms && ingestRatio >= TARGETS.ingestRatio;
  console.log(ok ? 'targets met' : 'targets NOT met');
  printBench({
    name: 'ws',
    updateP50Ms: round(updateP50Ms),
    updateP99Ms: round(updateP99Ms),
    ingestRatio: round(ingestRatio),
    datapointsPerSec: Math.round(during.datapointsPerSec),
    baselineDatapointsPerSec: Math.round(baseline),
    sessions: SESSIONS,
    entitySubscriptions: SESSIONS * DEVICES_PER_GATEWAY,
  });
} finally {
  for (const ws of sessions) ws.close();
  await serve.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
