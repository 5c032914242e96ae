/**
 * npm run bench:ingest — MQTT gateway telemetry ingest, durable, through the root rule chain.
 *
 * 10 gateways x 100 devices; each QoS 1 publish on v1/gateway/telemetry carries 10 devices x 3 keys
 * ({"GW0 Device 10": [{"ts": .., "values": {"temperature": .., "humidity": .., "pressure": ..}}], ...}),
 * each gateway cycling through its devices with a bounded in-flight window. The platform runs as
 * `sandboard serve` in its own process; the load generator is this process. A PUBACK means the data is in
 * the fsynced journal. Same payloads, same load, for two baselines: a bare aedes 2 broker (QoS 1
 * pass-through to no subscriber) in its own process, and raw sql.js inserts of the same rows (ts_kv +
 * ts_kv_latest, prepared, 1,000-row transactions, no journal).
 *
 * Env: BENCH_DURATION_S (measured seconds per load run, default 8), BENCH_WARMUP_S (1), BENCH_WINDOW
 * (in-flight publishes per gateway, 4). The platform runs three times: with the MQTT inspector off, on with
 * nobody watching (the figures above are this run's), and on with a WebSocket following all traffic;
 * inspectorIdleRatio and inspectorWatchedRatio compare the last two to the first. A run that wrote no snapshot
 * goes on loading (up to 30 s) until one is written, so that its event-loop figures cover one. BENCH_ONLY=calculated-fields runs
 * only the calculated fields phase against none, in turns (see calculatedFieldsOnly); BENCH_ONLY=launch-flags
 * only serve as users launch it against plain node, in turns (see launchFlagsOnly). serve is launched as
 * users launch it (bench/lib/serve-child.ts); BENCH_SERVE_NODE_ARGS adds Node flags (--trace-gc, --cpu-prof),
 * BENCH_SERVE_LOG=<file> keeps its output, BENCH_HEAP_SNAPSHOT=1 signals it for a heap snapshot after each
 * run (with --heapsnapshot-signal=SIGUSR2 in BENCH_SERVE_NODE_ARGS), BENCH_SMAPS=<file> keeps its memory map
 * after the run. Each run says what holds serve's memory right after it (the network thread's V8 heap, each
 * WebAssembly memory, the other anonymous pages, code; from /proc/PID/smaps and the eventLoop endpoint) and
 * once it has been idle long enough for its snapshot thread to stop. Last line: BENCH {"name":"ingest",...}.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MqttClient } from 'mqtt';
import type { EventLoopDelay } from '../shared/schemas/sandboard.ts';
import { SQLJS_SETTINGS } from '../main/store/durable-db.ts';
import { SNAPSHOT_THREAD_IDLE_MS } from '../main/store/snapshot-thread.ts';
import { percentile, printBench, printFigures, round } from './lib/bench-output.ts';
import {
  connectClients,
  connectDevices,
  DATAPOINTS_PER_PUBLISH,
  deviceName,
  DEVICES_PER_GATEWAY,
  DEVICES_PER_PUBLISH,
  KEYS,
  publishShape,
  runLoad,
  values,
  type LoadResult,
} from './lib/gateway-load.ts';
import { benchHttp, createBenchGateways, tenantToken } from './lib/bench-http.ts';
import { processCpuMs } from './lib/proc-cpu.ts';
import { processMemory, type ProcessMemory } from './lib/process-memory.ts';
import { startRawAedes } from './lib/raw-aedes.ts';
import { rawSqljsInsertRate, type RawRow } from './lib/raw-sqljs.ts';
import { startServeChild, type ServeLaunch } from './lib/serve-child.ts';
import {
  CALCULATED_FIELDS,
  CALCULATED_FIELDS_ENV,
  checkCalculatedOutputs,
  defineCalculatedFields,
  type ScriptKind,
} from './lib/calculated-fields-load.ts';

const GATEWAYS = 10;
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 8) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 1) * 1000;
const WINDOW = Number(process.env.BENCH_WINDOW ?? 4);
const RAW_SQLJS_ROWS = 300_000;
/** how long a run's load goes on, at most, for a snapshot to fall in it */
const SNAPSHOT_WAIT_MS = 30_000;
/** a day ago: inside the default retention, never "now" */
const BASE = Date.now() - 86_400_000;
const TARGETS = {
  datapointsPerSec: 50_000,
  ratioToRawSqljs: 0.6,
  pubackP99Ms: 50,
  rssMB: 300,
  rssAfterIngestMB: 300,
  eventLoopDelayMaxMs: 50,
  inspectorIdleRatio: 0.95,
  inspectorWatchedRatio: 0.85,
  calculatedFieldsRatio: 0.7,
};

/** VmRSS and VmHWM (peak) of a process, in MB. */
function memoryOf(pid: number): { rssMB: number; peakMB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMB: kb('VmRSS') / 1024, peakMB: kb('VmHWM') / 1024 };
}

async function closeClients(clients: MqttClient[]): Promise<void> {
  await Promise.all(clients.map((c) => c.endAsync()));
}

const load = (clients: MqttClient[]) =>
  runLoad(clients, { window: WINDOW, warmupMs: WARMUP_MS, durationMs: DURATION_MS, base: BASE });

/** The rows the platform stores for the first `publishes` publishes of each gateway. */
function rowsOf(publishes: number): RawRow[] {
  const rows: RawRow[] = [];
  for (let i = 0; rows.length < publishes * GATEWAYS * DATAPOINTS_PER_PUBLISH; i++) {
    for (let g = 0; g < GATEWAYS; g++) {
      const { first, ts } = publishShape(i, BASE);
      for (let j = 0; j < DEVICES_PER_PUBLISH; j++) {
        const v = values(i, j);
        const entityNum = g * DEVICES_PER_GATEWAY + first + j + 1;
        KEYS.forEach((key, k) => rows.push({ entityNum, keyId: k + 1, ts, value: v[key] }));
      }
    }
  }
  return rows;
}

async function rawAedesRun(): Promise<LoadResult> {
  const aedes = await startRawAedes();
  try {
    const clients = await connectClients(
      aedes.url,
      Array.from({ length: GATEWAYS }, () => undefined),
    );
    const result = await load(clients);
    await closeClients(clients);
    return result;
  } finally {
    await aedes.stop();
  }
}

interface PlatformRun extends LoadResult {
  rssAfterConnectMB: number;
  rssAfterIngestMB: number;
  /** serve's memory map after the run: its WebAssembly memories, code, the other anonymous pages */
  mapAfterIngest: ProcessMemory;
  /** the same, once serve has been idle long enough for its snapshot thread to stop */
  mapIdle: ProcessMemory;
  peakMB: number;
  connectMs: number;
  /** CPU time the server used during the whole load run (warm-up included) */
  serverCpuMs: number;
  storedCheck: string;
  /** with calculated fields: that their outputs were written and are right */
  calculatedCheck: string | null;
  /** messages the inspector's WebSocket got (watched mode) */
  watchedMessages: number;
  /** the server's event-loop delay over the load run */
  eventLoop: EventLoopDelay;
  /** serve's threads over the load run: how many, and the CPU of those that used some */
  threads: string;
  /** a snapshot was written during the load run (extended for one by loadExtendedMs) */
  snapshotDuringRun: boolean;
  loadExtendedMs: number;
}

/**
 * How the MQTT traffic inspector runs: off (SANDBOARD_INSPECTOR_BUDGET_MB=0), on with nobody watching
 * (the default), or on with a live WebSocket following all traffic, as the MQTT page does.
 */
type InspectorMode = 'off' | 'idle' | 'watched';

/** A UI-like WebSocket following all MQTT traffic; returns how many messages it got and its close. */
async function watchAllTraffic(
  httpUrl: string,
  token: string,
): Promise<{ received: () => number; close(): void }> {
  const ws = new WebSocket(`${httpUrl.replace(/^http/, 'ws')}/api/sandboard/ws`);
  let received = 0;
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve());
    ws.addEventListener('error', () => reject(new Error('live WebSocket failed')));
  });
  const watching = new Promise<void>((resolve) =>
    ws.addEventListener('message', (e) => {
      const m = JSON.parse(String(e.data)) as { type: string; messages?: unknown[] };
      if (m.type === 'ready') {
        ws.send(JSON.stringify({ type: 'mqttWatch', filter: {} }));
        resolve();
      }
      if (m.type === 'mqttMessages') received += m.messages!.length;
    }),
  );
  ws.send(JSON.stringify({ type: 'auth', token }));
  await watching;
  return { received: () => received, close: () => ws.close() };
}

async function platformRun(
  mode: InspectorMode,
  calculatedFields: ScriptKind | null = null,
  bin?: string,
  launch: ServeLaunch = 'user',
): Promise<PlatformRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-bench-ingest-'));
  // BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops.
  const profileDir = process.env.BENCH_CPU_PROF;
  const serve = await startServeChild(
    dataDir,
    {
      ...(profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}),
      SANDBOARD_INSPECTOR_BUDGET_MB: mode === 'off' ? '0' : '16',
      ...(calculatedFields ? CALCULATED_FIELDS_ENV : {}),
    },
    bin,
    launch,
  );
  let watcher: Awaited<ReturnType<typeof watchAllTraffic>> | undefined;
  try {
    const http = benchHttp(serve.urls.http);
    const token = await tenantToken(http);
    if (mode === 'watched') watcher = await watchAllTraffic(serve.urls.http, token);
    if (calculatedFields) await defineCalculatedFields(http, token, calculatedFields);
    const tokens = await createBenchGateways(http, token, GATEWAYS);
    const clients = await connectClients(serve.urls.mqtt, tokens);
    const connectStarted = performance.now();
    await connectDevices(clients, WINDOW);
    const connectMs = performance.now() - connectStarted;
    const afterConnect = memoryOf(serve.child.pid!);
    const cpuBefore = processCpuMs(serve.child.pid) ?? Number.NaN;
    const threadsBefore = threadCpuMs(serve.child.pid!);
    const eventLoopPath = '/api/sandboard/eventLoop';
    await http<EventLoopDelay>(`${eventLoopPath}?reset=true`, { token });
    const loadStarted = Date.now();
    const result = await load(clients);
    const serverCpuMs = (processCpuMs(serve.child.pid) ?? Number.NaN) - cpuBefore;
    const snapshotFile = join(dataDir, 'store.sqlite');
    const snapshotWritten = () => existsSync(snapshotFile) && statSync(snapshotFile).mtimeMs >= loadStarted;
    // The event-loop figures must cover a snapshot: where the run wrote none (a slow, shared machine), the
    // load goes on (other timestamps) until one is written, or SNAPSHOT_WAIT_MS have passed.
    const extendedFrom = Date.now();
    for (let k = 1; !snapshotWritten() && Date.now() - extendedFrom < SNAPSHOT_WAIT_MS; k++) {
      const more = { window: WINDOW, warmupMs: 0, durationMs: 2_000, base: BASE + k * 10_000_000 };
      await runLoad(clients, more);
    }
    const loadExtendedMs = Date.now() - extendedFrom;
    const threads = threadsDuring(serve.child.pid!, threadsBefore);
    const eventLoop = await http<EventLoopDelay>(eventLoopPath, { token });
    const snapshotDuringRun = snapshotWritten();
    const afterIngest = memoryOf(serve.child.pid!);
    const mapAfterIngest = processMemory(serve.child.pid!);
    // BENCH_SMAPS=<file>: serve's memory map after the run is copied there (diagnostics)
    if (process.env.BENCH_SMAPS)
      writeFileSync(process.env.BENCH_SMAPS, readFileSync(`/proc/${serve.child.pid}/smaps`));
    // BENCH_SERVE_NODE_ARGS='--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=<dir>' BENCH_HEAP_SNAPSHOT=1: a
    // heap snapshot of serve after the run (diagnostics: what the memory holds)
    if (process.env.BENCH_HEAP_SNAPSHOT) {
      serve.child.kill('SIGUSR2');
      await http(eventLoopPath, { token }); // answered once the snapshot is written
    }

    // What was acknowledged is stored: count one device's history through REST.
    const device = await http<{ id: { id: string } }>(
      `/api/tenant/devices?deviceName=${encodeURIComponent(deviceName(0, 0))}`,
      { token },
    );
    const series = await http<Record<string, unknown[]>>(
      `/api/plugins/telemetry/DEVICE/${device.id.id}/values/timeseries?keys=${KEYS.join(',')}` +
        `&startTs=${BASE}&endTs=${Date.now()}&limit=100000`,
      { token },
    );
    // Device 0 of gateway 0 is in every 10th publish of gateway 0, starting with the first.
    const expected = Math.ceil(result.ackedPerGateway[0]! / (DEVICES_PER_GATEWAY / DEVICES_PER_PUBLISH));
    const stored = KEYS.map((k) => series[k]?.length ?? 0);
    if (stored.some((n) => n < expected)) {
      throw new Error(`${deviceName(0, 0)}: ${stored.join('/')} points stored, ${expected} acknowledged`);
    }
    // idle: the snapshot thread stops after SNAPSHOT_THREAD_IDLE_MS without snapshots; what that gives back
    await new Promise((resolve) => setTimeout(resolve, SNAPSHOT_THREAD_IDLE_MS + 2_000));
    const mapIdle = processMemory(serve.child.pid!);
    const calculatedCheck = calculatedFields ? await checkCalculatedOutputs(http, token, device.id.id) : null;
    await closeClients(clients);
    if (watcher && watcher.received() === 0) throw new Error('the inspector WebSocket received no message');
    return {
      ...result,
      watchedMessages: watcher?.received() ?? 0,
      eventLoop,
      snapshotDuringRun,
      loadExtendedMs,
      threads,
      rssAfterConnectMB: afterConnect.rssMB,
      rssAfterIngestMB: afterIngest.rssMB,
      mapAfterIngest,
      mapIdle,
      peakMB: afterIngest.peakMB,
      connectMs,
      serverCpuMs,
      storedCheck: `${deviceName(0, 0)}: ${stored[0]} points per key stored, ${expected} acknowledged`,
      calculatedCheck,
    };
  } finally {
    watcher?.close();
    await serve.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** CPU ms each of a process's threads (by id) has used so far */
function threadCpuMs(pid: number): Map<string, number> {
  const byTid = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    byTid.set(tid, (Number(stat[11]) + Number(stat[12])) * 10);
  }
  return byTid;
}

/**
 * Which of serve's threads worked over the run: the main (network) thread, then each other thread that
 * used 100 ms or more ("+" started during the run; worker threads are such, V8's and libuv's helpers not).
 */
function threadsDuring(pid: number, before: Map<string, number>): string {
  const after = threadCpuMs(pid);
  const busy = [...after]
    .map(([tid, ms]) => ({ tid, ms: ms - (before.get(tid) ?? 0), started: !before.has(tid) }))
    .filter((t) => t.tid === String(pid) || t.ms >= 100)
    .sort((a, b) => b.ms - a.ms)
    .map((t) => `${t.tid === String(pid) ? 'main' : t.started ? '+' : ''}${t.ms}`);
  const ended = [...before.keys()].filter((tid) => !after.has(tid)).length;
  return `${before.size} -> ${after.size} (${ended} ended), CPU ms ${busy.join(' ')}`;
}

/**
 * RSS after the run, split by serve's memory map (each WebAssembly memory: sql.js's copies of the database)
 * and by what the network thread reports (its V8 heap, the store's image, array buffers): the rest of the
 * anonymous pages are the worker threads' heaps, malloc's arenas and the threads' stacks.
 */
function memoryBreakdown(run: PlatformRun): string {
  const m = run.eventLoop.memory;
  const map = run.mapAfterIngest;
  const a = map.anonymous;
  if (!m) return 'not reported';
  const r = Math.round;
  return (
    `RSS ${r(map.rssMB)} MB = main V8 heap ${r(m.heapTotalMB)} (live ${r(m.heapUsedMB)})` +
    ` + WebAssembly memories [${map.wasmMB.map(r).join(', ')}] (the store's image ${r(m.storeMB)})` +
    ` + other anonymous ${r(map.otherAnonymousMB - m.heapTotalMB)} (array buffers ${r(m.arrayBuffersMB)}, worker heaps, malloc, stacks; threads: ${map.threads})` +
    ` + code and files ${r(map.fileMB)}; all anonymous pages but WebAssembly's by kind: V8 heap pages of all threads ${r(a.v8PagesMB)},` +
    ` sql.js's database files [${a.sqljsFilesMB.map(r).join(', ')}], malloc arenas ${r(a.mallocMB)}, the rest ${r(a.restMB)} (mapped blocks of 1 MiB or more, large objects, stacks);` +
    ` idle ${Math.round(SNAPSHOT_THREAD_IDLE_MS / 1000) + 2} s later: RSS ${r(run.mapIdle.rssMB)} MB, WebAssembly [${run.mapIdle.wasmMB.map(r).join(', ')}], threads: ${run.mapIdle.threads}`
  );
}

/** The fields of memoryBreakdown, for BENCH lines. */
function memoryFields(run: PlatformRun): Record<string, number | undefined> {
  const m = run.eventLoop.memory;
  const map = run.mapAfterIngest;
  return {
    heapTotalMB: m?.heapTotalMB,
    heapUsedMB: m?.heapUsedMB,
    externalMB: m?.externalMB,
    arrayBuffersMB: m?.arrayBuffersMB,
    storeMB: m?.storeMB,
    wasmMemories: map.wasmMB.length,
    wasmMB: map.wasmMB.reduce((a, b) => a + b, 0),
    largestWasmMB: map.wasmMB[0] ?? 0,
    otherAnonymousMB: map.otherAnonymousMB - (m?.heapTotalMB ?? 0),
    codeMB: map.fileMB,
    v8PagesMB: map.anonymous.v8PagesMB,
    sqljsFilesMB: map.anonymous.sqljsFilesMB.reduce((a, b) => a + b, 0),
    mallocMB: map.anonymous.mallocMB,
    rssIdleMB: run.mapIdle.rssMB,
    idleWasmMB: run.mapIdle.wasmMB.reduce((a, b) => a + b, 0),
  };
}

/** The network thread's GC pauses over a run: the longest (its kind), and all of them. */
function gcPauses(delay: EventLoopDelay): string {
  const gc = delay.gc;
  if (!gc) return 'not reported';
  return `${gc.maxMs} ms (${gc.maxKind}) / ${gc.pauses} pauses, ${Math.round(gc.totalMs)} ms in ${Math.round(delay.sinceMs)} ms`;
}

/**
 * BENCH_ONLY=calculated-fields: only the calculated fields phase, BENCH_TURNS (default 2) turns of none /
 * with fields in turns; prints the ratios of datapoints/s and of datapoints per server CPU-second, medians.
 * BENCH_REF_BIN=<other checkout>/bin/sandboard.js: each turn also runs the fields phase on that serve.
 */
async function calculatedFieldsOnly(): Promise<void> {
  const turns = Number(process.env.BENCH_TURNS ?? 2);
  const rate: number[] = [];
  const cpu: number[] = [];
  const perCpu = (r: PlatformRun) =>
    (r.ackedPerGateway.reduce((a, b) => a + b, 0) * DATAPOINTS_PER_PUBLISH * 1000) / r.serverCpuMs;
  for (let t = 0; t < turns; t++) {
    const none = await platformRun('idle');
    const withFields = await platformRun('idle', 'arithmetic');
    if (process.env.BENCH_REF_BIN) {
      const ref = await platformRun('idle', 'arithmetic', process.env.BENCH_REF_BIN);
      console.log(
        `turn ${t + 1}: ${CALCULATED_FIELDS} fields, BENCH_REF_BIN's serve: ${Math.round(ref.datapointsPerSec)} dp/s ` +
          `(${Math.round(perCpu(ref))} per CPU-s); this checkout: ${Math.round(perCpu(withFields))} per CPU-s`,
      );
    }
    rate.push(withFields.datapointsPerSec / none.datapointsPerSec);
    cpu.push(perCpu(withFields) / perCpu(none));
    console.log(
      `turn ${t + 1}: none ${Math.round(none.datapointsPerSec)} dp/s (${Math.round(perCpu(none))} per CPU-s), ` +
        `${CALCULATED_FIELDS} fields ${Math.round(withFields.datapointsPerSec)} dp/s (${Math.round(perCpu(withFields))} per CPU-s); ` +
        `ratio ${round(rate.at(-1)!)}, by CPU ${round(cpu.at(-1)!)}; ${withFields.calculatedCheck}; load ${loadavg()[0]!.toFixed(1)}`,
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  printBench({
    name: 'ingest-calculated-fields',
    calculatedFieldsRatio: median(rate),
    calculatedFieldsCpuRatio: median(cpu),
    turns,
    loadAverage: loadavg()[0]!,
  });
}
if (process.env.BENCH_ONLY === 'calculated-fields') {
  await calculatedFieldsOnly();
  process.exit(0);
}

/**
 * BENCH_ONLY=launch-flags: what the core's launch settings (scripts/start-plan.ts's CORE_NODE_FLAGS and
 * CORE_ENV) save and cost. BENCH_TURNS (default 3) turns of serve as users launch it and plain
 * `node bin/sandboard.js serve`, the order alternating; medians of RSS after the run, datapoints/s and
 * datapoints per server CPU-second.
 */
async function launchFlagsOnly(): Promise<void> {
  const turns = Number(process.env.BENCH_TURNS ?? 3);
  // BENCH_ALT_NODE_ARGS: the other side is serve as users launch it plus these flags, not plain node;
  // BENCH_REF_BIN=<other checkout>/bin/sandboard.js: that checkout's serve, as users launch it (before/after)
  const refBin = process.env.BENCH_REF_BIN;
  const other: ServeLaunch = process.env.BENCH_ALT_NODE_ARGS || refBin ? 'alt' : 'plain';
  const label = {
    user: 'as users launch it',
    plain: 'plain node',
    alt: `${refBin ? "BENCH_REF_BIN's serve " : ''}with ${process.env.BENCH_ALT_NODE_ARGS ?? 'its flags'}`,
  };
  const runs: Record<ServeLaunch, PlatformRun[]> = { user: [], plain: [], alt: [] };
  for (let t = 0; t < turns; t++) {
    for (const launch of (t % 2 ? [other, 'user'] : ['user', other]) as ServeLaunch[]) {
      const run = await platformRun('idle', null, launch === 'alt' ? refBin : undefined, launch);
      runs[launch].push(run);
      console.log(
        `turn ${t + 1}, ${label[launch]}: ` +
          `${Math.round(run.datapointsPerSec)} dp/s (${Math.round(perServerCpuSecOf(run))} per CPU-s), ` +
          `RSS after the run ${Math.round(run.rssAfterIngestMB)} MB (peak ${Math.round(run.peakMB)}), ` +
          `event loop p99 / max ${run.eventLoop.p99Ms} / ${run.eventLoop.maxMs} ms, ` +
          `longest GC pause / all ${gcPauses(run.eventLoop)}, ` +
          `snapshot ${run.snapshotDuringRun ? 'yes' : 'no'} (${Math.round(run.loadExtendedMs / 1000)} s more load for one); ${memoryBreakdown(run)}; ` +
          `threads ${run.threads}; load ${loadavg()[0]!.toFixed(1)}`,
      );
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const of = (launch: ServeLaunch, f: (r: PlatformRun) => number) => median(runs[launch].map(f));
  const rss = (r: PlatformRun) => r.rssAfterIngestMB;
  const rssIdle = (r: PlatformRun) => r.mapIdle.rssMB;
  const heapTotal = (r: PlatformRun) => r.eventLoop.memory?.heapTotalMB ?? NaN;
  const gcPerSec = (r: PlatformRun) => ((r.eventLoop.gc?.totalMs ?? NaN) * 1000) / r.eventLoop.sinceMs;
  printBench({
    name: 'ingest-launch-flags',
    ...(other === 'alt' ? { altNodeArgs: process.env.BENCH_ALT_NODE_ARGS, refBin } : {}),
    rssAfterIngestMB: of('user', rss),
    [`${other}RssAfterIngestMB`]: of(other, rss),
    rssSavedMB: of(other, rss) - of('user', rss),
    rssIdleMB: of('user', rssIdle),
    [`${other}RssIdleMB`]: of(other, rssIdle),
    heapTotalMB: of('user', heapTotal),
    [`${other}HeapTotalMB`]: of(other, heapTotal),
    datapointsPerSecRatio: of('user', (r) => r.datapointsPerSec) / of(other, (r) => r.datapointsPerSec),
    cpuRatio: of('user', perServerCpuSecOf) / of(other, perServerCpuSecOf),
    datapointsPerServerCpuSec: of('user', perServerCpuSecOf),
    [`${other}DatapointsPerServerCpuSec`]: of(other, perServerCpuSecOf),
    eventLoopDelayMaxMs: of('user', (r) => r.eventLoop.maxMs),
    [`${other}EventLoopDelayMaxMs`]: of(other, (r) => r.eventLoop.maxMs),
    gcMaxPauseMs: of('user', (r) => r.eventLoop.gc?.maxMs ?? NaN),
    [`${other}GcMaxPauseMs`]: of(other, (r) => r.eventLoop.gc?.maxMs ?? NaN),
    gcPauseMsPerSec: of('user', gcPerSec),
    [`${other}GcPauseMsPerSec`]: of(other, gcPerSec),
    turns,
    loadAverage: loadavg()[0]!,
  });
}
/** datapoints per server CPU-second: steadier than datapoints/s when other processes share the CPUs */
function perServerCpuSecOf(r: PlatformRun): number {
  return (r.ackedPerGateway.reduce((a, b) => a + b, 0) * DATAPOINTS_PER_PUBLISH * 1000) / r.serverCpuMs;
}
if (process.env.BENCH_ONLY === 'launch-flags') {
  await launchFlagsOnly();
  process.exit(0);
}

const loadBefore = loadavg()[0]!;
console.log(
  `${GATEWAYS} gateways x ${DEVICES_PER_GATEWAY} devices, ${DEVICES_PER_PUBLISH} devices x ${KEYS.length} keys per publish, ` +
    `QoS 1, ${WINDOW} in flight per gateway, ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s measured per run; ` +
    `${cpus().length} CPUs, load average ${loadBefore.toFixed(1)}`,
);
const aedes = await rawAedesRun();
const rawRows = rowsOf(RAW_SQLJS_ROWS / GATEWAYS / DATAPOINTS_PER_PUBLISH);
const rawSqljs = await rawSqljsInsertRate(rawRows);
const rawSqljsTuned = await rawSqljsInsertRate(rawRows, { pragmas: SQLJS_SETTINGS });
const inspectorOff = await platformRun('off');
const platform = await platformRun('idle');
const inspectorWatched = await platformRun('watched');
const withCalculatedFields = await platformRun('idle', 'arithmetic');
const calculatedFieldsRatio = withCalculatedFields.datapointsPerSec / platform.datapointsPerSec;
// the same fields with scripts the sandbox runs (no target: what fields beyond arithmetic cost)
const withSandboxFields = await platformRun('idle', 'sandbox');
const calculatedFieldsSandboxRatio = withSandboxFields.datapointsPerSec / platform.datapointsPerSec;
const inspectorIdleRatio = platform.datapointsPerSec / inspectorOff.datapointsPerSec;
const perServerCpuSec = perServerCpuSecOf;
const inspectorWatchedRatio = inspectorWatched.datapointsPerSec / inspectorOff.datapointsPerSec;
const loadAfter = loadavg()[0]!;

const pubackP50Ms = percentile(platform.latencies, 50);
const pubackP99Ms = percentile(platform.latencies, 99);
const ratioToRawSqljs = platform.datapointsPerSec / rawSqljs.rowsPerSec;
const ratioToRawAedes = platform.datapointsPerSec / aedes.datapointsPerSec;
const rssMB = platform.rssAfterConnectMB;
// The load run lasts warm-up + measured period; its publishes are the acknowledged ones of both.
const runPublishes = platform.ackedPerGateway.reduce((a, b) => a + b, 0);
const cpuPerPublishMs = platform.serverCpuMs / runPublishes;
const datapointsPerServerCpuSec = (DATAPOINTS_PER_PUBLISH * 1000) / cpuPerPublishMs;
const cpuRatioToRawSqljs = datapointsPerServerCpuSec / rawSqljs.rowsPerCpuSec;
printFigures({
  'raw aedes QoS 1 pass-through': [aedes.datapointsPerSec, 'datapoints/s'],
  'raw aedes PUBACK p50 / p99': `${round(percentile(aedes.latencies, 50))} / ${round(percentile(aedes.latencies, 99))} ms`,
  'raw sql.js inserts, 1,000-row transactions, default settings': `${Math.round(rawSqljs.rowsPerSec)} rows/s (${Math.round(rawSqljs.rowsPerCpuSec)} per CPU-second)`,
  "raw sql.js inserts, with the store's settings": `${Math.round(rawSqljsTuned.rowsPerSec)} rows/s (${Math.round(rawSqljsTuned.rowsPerCpuSec)} per CPU-second)`,
  'sandboard: connect 1,000 devices through 10 gateways': [platform.connectMs, 'ms'],
  'sandboard: durable ingest through the root chain (target >= 50,000)': [
    platform.datapointsPerSec,
    'datapoints/s',
  ],
  'sandboard: publishes acknowledged': [platform.publishesPerSec, 'publishes/s'],
  'sandboard, MQTT inspector off': [inspectorOff.datapointsPerSec, 'datapoints/s'],
  'sandboard, MQTT inspector on, a WebSocket following all traffic': [
    inspectorWatched.datapointsPerSec,
    'datapoints/s',
  ],
  'messages the inspector WebSocket received': inspectorWatched.watchedMessages,
  [`sandboard, ${CALCULATED_FIELDS} calculated fields (SIMPLE and SCRIPT) on the profile`]: [
    withCalculatedFields.datapointsPerSec,
    'datapoints/s',
  ],
  'ratio with calculated fields / none (target >= 0.7)': calculatedFieldsRatio,
  'calculated fields check': withCalculatedFields.calculatedCheck ?? '',
  [`sandboard, the same fields, their ${CALCULATED_FIELDS / 2} scripts run in the script sandbox`]: [
    withSandboxFields.datapointsPerSec,
    'datapoints/s',
  ],
  'ratio with sandbox scripts / none': calculatedFieldsSandboxRatio,
  'sandbox scripts check': withSandboxFields.calculatedCheck ?? '',
  'ratio inspector on, nobody watching / off (target >= 0.95)': inspectorIdleRatio,
  'ratio inspector on, watched / off (target >= 0.85)': inspectorWatchedRatio,
  'sandboard: PUBACK p50': [pubackP50Ms, 'ms'],
  'sandboard: PUBACK p99 (target <= 50)': [pubackP99Ms, 'ms'],
  'sandboard: RSS with 1,000 devices connected (target <= 300)': [platform.rssAfterConnectMB, 'MB'],
  'sandboard: RSS after the ingest run (target <= 300) / peak': `${Math.round(platform.rssAfterIngestMB)} / ${Math.round(platform.peakMB)} MB`,
  'sandboard: server CPU during the run (1 = one core)': platform.serverCpuMs / (WARMUP_MS + DURATION_MS),
  'sandboard: server CPU per publish (30 datapoints)': [cpuPerPublishMs, 'ms'],
  'sandboard: datapoints per server CPU-second': [datapointsPerServerCpuSec, 'datapoints/s'],
  'sandboard: stored check': platform.storedCheck,
  'ratio sandboard / raw sql.js (target >= 0.6)': ratioToRawSqljs,
  'ratio sandboard / raw sql.js per CPU-second': cpuRatioToRawSqljs,
  'ratio sandboard / raw aedes': ratioToRawAedes,
  'ThingsBoard published figure (2 vCPUs)': [15_000, 'datapoints/s'],
  'sandboard: event-loop delay p99 / longest stall during the run (target <= 50)': `${platform.eventLoop.p99Ms} / ${platform.eventLoop.maxMs} ms`,
  "sandboard: the network thread's longest GC pause (its kind) / all its GC pauses during the run": gcPauses(
    platform.eventLoop,
  ),
  'sandboard: what holds the memory after the run': memoryBreakdown(platform),
  'sandboard: a snapshot was written during the run': `${platform.snapshotDuringRun ? 'yes' : 'no'}${
    platform.loadExtendedMs > 0
      ? ` (the load went on ${Math.round(platform.loadExtendedMs / 1000)} s more for one)`
      : ''
  }`,
  'load average before / after (other processes share the CPUs)': `${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)}`,
});
const missed = [
  platform.datapointsPerSec < TARGETS.datapointsPerSec && 'datapoints/s',
  ratioToRawSqljs < TARGETS.ratioToRawSqljs && 'ratio to raw sql.js',
  pubackP99Ms > TARGETS.pubackP99Ms && 'PUBACK p99',
  rssMB > TARGETS.rssMB && 'RSS',
  platform.rssAfterIngestMB > TARGETS.rssAfterIngestMB && 'RSS after the ingest run',
  platform.eventLoop.maxMs > TARGETS.eventLoopDelayMaxMs && 'longest event-loop stall',
  !platform.snapshotDuringRun && 'a snapshot during the run (the event-loop figures do not cover one)',
  inspectorIdleRatio < TARGETS.inspectorIdleRatio && 'inspector idle ratio',
  inspectorWatchedRatio < TARGETS.inspectorWatchedRatio && 'inspector watched ratio',
  calculatedFieldsRatio < TARGETS.calculatedFieldsRatio && 'calculated fields ratio',
].filter(Boolean);
console.log(missed.length ? `targets missed: ${missed.join(', ')}` : 'all targets met');
printBench({
  name: 'ingest',
  datapointsPerSec: platform.datapointsPerSec,
  ratioToRawSqljs,
  ratioToRawAedes,
  pubackP50Ms,
  pubackP99Ms,
  rssMB,
  rssAfterIngestMB: platform.rssAfterIngestMB,
  datapointsPerServerCpuSec,
  cpuRatioToRawSqljs,
  inspectorOffDatapointsPerSec: inspectorOff.datapointsPerSec,
  inspectorWatchedDatapointsPerSec: inspectorWatched.datapointsPerSec,
  inspectorIdleRatio,
  inspectorWatchedRatio,
  calculatedFieldsRatio,
  calculatedFieldsDatapointsPerSec: withCalculatedFields.datapointsPerSec,
  calculatedFieldsSandboxRatio,
  inspectorIdleCpuRatio: perServerCpuSec(platform) / perServerCpuSec(inspectorOff),
  inspectorWatchedCpuRatio: perServerCpuSec(inspectorWatched) / perServerCpuSec(inspectorOff),
  eventLoopDelayP99Ms: platform.eventLoop.p99Ms,
  eventLoopDelayMaxMs: platform.eventLoop.maxMs,
  gcMaxPauseMs: platform.eventLoop.gc?.maxMs,
  gcPauseMsPerSec:
    platform.eventLoop.gc && (platform.eventLoop.gc.totalMs * 1000) / platform.eventLoop.sinceMs,
  snapshotDuringRun: platform.snapshotDuringRun,
  ...memoryFields(platform),
  loadAverage: loadAfter,
});
