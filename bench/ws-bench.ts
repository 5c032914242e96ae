/**
 * npm run bench:ws — ThingsBoard's WebSocket API under bench:ingest's load.
 *
 * One `sandboard serve` child, bench:ingest's 10 gateways x 100 devices publishing QoS 1 telemetry. Three
 * load runs: without WebSocket subscribers, with 100 sessions on /api/ws each subscribed (ENTITY_DATA,
 * latestCmd on the 3 keys) to the 100 devices of gateway 0 (10,000 entity subscriptions), and without
 * again; the ingest ratio compares the middle run to the mean of the other two, and so does the server
 * CPU ratio (the serve child's CPU from /proc per datapoint acknowledged). The sessions run in a child
 * process of their own (lib/ws-sessions-child.ts), so decoding their frames does not slow the load
 * generator. The update latency runs from a publish's PUBACK to the first WebSocket frame carrying its
 * timestamp, both noted as performance.timeOrigin + now (one clock across the two processes), on 10 of
 * the sessions; the others only count frames.
 *
 * Env: BENCH_DURATION_S (measured seconds per run, default 8), BENCH_WARMUP_S (1), BENCH_WINDOW (4).
 * Last line: BENCH {"name":"ws","updateP50Ms":..,"updateP99Ms":..,"ingestRatio":..,"serverCpuRatio":..}.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentile, printBench, printFigures, round } from './lib/bench-output.ts';
import { benchHttp, createBenchGateways, tenantToken } from './lib/bench-http.ts';
import {
  connectClients,
  connectDevices,
  DEVICES_PER_GATEWAY,
  KEYS,
  runServerLoad,
  type ServerLoadResult,
} from './lib/gateway-load.ts';
import { startServeChild } from './lib/serve-child.ts';
import type { WsSessionsConfig, WsSessionsResult } from './lib/ws-sessions-child.ts';

const GATEWAYS = 10;
const SESSIONS = 100;
const MEASURED_SESSIONS = 10;
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 8) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 1) * 1000;
const WINDOW = Number(process.env.BENCH_WINDOW ?? 4);
const BASE = Date.now() - 86_400_000;
const TARGETS = { updateP99Ms: 100, ingestRatio: 0.85 };
const SESSIONS_CHILD = fileURLToPath(new URL('./lib/ws-sessions-child.ts', import.meta.url));

/** The sessions' process, once every session has its data page. */
async function startSessions(config: WsSessionsConfig): Promise<ChildProcess> {
  const child = fork(SESSIONS_CHILD, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the WebSocket sessions' process exited with ${code}`)));
  });
  child.send(config);
  await ready;
  return child;
}

/** Closes the sessions and collects what they saw. */
async function stopSessions(child: ChildProcess): Promise<WsSessionsResult> {
  const result = once(child, 'message') as Promise<[WsSessionsResult]>;
  child.send('stop');
  return (await result)[0];
}

/** Server CPU µs per datapoint acknowledged over a whole run (warm-up included). */
const cpuPerDatapointUs = (r: ServerLoadResult) => (r.serverCpuMs * 1000) / (r.messages * KEYS.length);

const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-bench-ws-'));
const serve = await startServeChild(dataDir);
let sessions: ChildProcess | null = null;
try {
  console.log(
    `${GATEWAYS} gateways x ${DEVICES_PER_GATEWAY} devices, QoS 1, ${WINDOW} in flight per gateway, ` +
      `${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s measured per run; ${SESSIONS} WebSocket sessions x ` +
      `${DEVICES_PER_GATEWAY} devices in a process of their own; ${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(1)}`,
  );
  const http = benchHttp(serve.urls.http);
  const token = await tenantToken(http);
  const tokens = await createBenchGateways(http, token, GATEWAYS);
  const clients = await connectClients(serve.urls.mqtt, tokens);
  await connectDevices(clients, WINDOW);
  const pid = serve.child.pid!;
  const load = (onAck?: (g: number, i: number, at: number) => void) =>
    runServerLoad(pid, clients, {
      window: WINDOW,
      warmupMs: WARMUP_MS,
      durationMs: DURATION_MS,
      base: BASE,
      ...(onAck ? { onAck } : {}),
    });

  const before = await load();

  sessions = await startSessions({
    url: `${serve.urls.http.replace(/^http/, 'ws')}/api/ws`,
    token,
    sessions: SESSIONS,
    measured: MEASURED_SESSIONS,
    base: BASE,
  });
  // PUBACKs of gateway 0, on the sessions' clock: absolute ms
  const acked = new Map<number, number>();
  const during = await load((g, i, at) => {
    if (g === 0) acked.set(i, performance.timeOrigin + at);
  });
  const seen = await stopSessions(sessions);
  sessions = null;

  const after = await load();
  await Promise.all(clients.map((c) => c.endAsync()));

  const baseline = (before.datapointsPerSec + after.datapointsPerSec) / 2;
  const ingestRatio = during.datapointsPerSec / baseline;
  const latencies: number[] = [];
  for (const firstFrames of seen.firstFrames)
    for (const [i, at] of firstFrames) {
      const ack = acked.get(i);
      // a frame can arrive before its PUBACK: the server pushes it the moment the write is durable
      if (ack !== undefined) latencies.push(Math.max(0, at - ack));
    }
  const updateP50Ms = percentile(latencies, 50);
  const updateP99Ms = percentile(latencies, 99);
  const cpuWithout = (cpuPerDatapointUs(before) + cpuPerDatapointUs(after)) / 2;
  const cpuWith = cpuPerDatapointUs(during);
  const serverCpuRatio = cpuWith / cpuWithout;
  printFigures({
    'ingest without subscribers (before / after)': `${Math.round(before.datapointsPerSec)} / ${Math.round(after.datapointsPerSec)} datapoints/s`,
    'ingest with 100 sessions x 100 devices subscribed': [during.datapointsPerSec, 'datapoints/s'],
    'ingest ratio, subscribed / not (target >= 0.85)': ingestRatio,
    'server CPU per datapoint without subscribers (before / after)': `${round(cpuPerDatapointUs(before))} / ${round(cpuPerDatapointUs(after))} µs`,
    'server CPU per datapoint with subscribers': [cpuWith, 'µs'],
    'server CPU ratio, subscribed / not': serverCpuRatio,
    'frames the sessions received during the run': seen.frames,
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
    serverCpuUsPerDatapoint: round(cpuWith),
    baselineServerCpuUsPerDatapoint: round(cpuWithout),
    serverCpuRatio: round(serverCpuRatio),
    datapointsPerSec: Math.round(during.datapointsPerSec),
    baselineDatapointsPerSec: Math.round(baseline),
    sessions: SESSIONS,
    entitySubscriptions: SESSIONS * DEVICES_PER_GATEWAY,
  });
} finally {
  if (sessions && sessions.exitCode === null) sessions.kill('SIGTERM');
  await serve.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
