/**
 * One simulator thread against the same fleet spread over worker threads: how many device messages per
 * second each sends to a sink broker (raw aedes in a child process, which only acknowledges), and what
 * each costs in CPU per message. Rounds alternate (main thread, workers, main thread, ...) and the
 * medians are printed, as the machine is shared. A message is one device's telemetry at one ts.
 * Run: npm run bench:sim-workers. Last line: BENCH {"name":"sim-workers",...}.
 *
 * Env: BENCH_SIMW_DEVICES (default 40,000), BENCH_SIMW_GATEWAYS (8), BENCH_SIMW_PERIOD_MS (40: 1,000,000 offered, past one thread),
 * BENCH_SIMW_SECONDS (8), BENCH_SIMW_ROUNDS (2 of each), BENCH_SIMW_WORKERS (default: the cores).
 */
import { availableParallelism, loadavg } from 'node:os';
import type { Scenario } from '../shared/schemas/simulation.ts';
import { gatewayPlan } from '../main/simulator/scenario.ts';
import { SimulationRun } from '../main/simulator/simulation-run.ts';
import { percentile, printBench, printFigures } from './lib/bench-output.ts';
import { startRawAedes } from './lib/raw-aedes.ts';

const DEVICES = Number(process.env.BENCH_SIMW_DEVICES ?? 40_000);
const GATEWAYS = Number(process.env.BENCH_SIMW_GATEWAYS ?? 8);
const PERIOD_MS = Number(process.env.BENCH_SIMW_PERIOD_MS ?? 40);
const SECONDS = Number(process.env.BENCH_SIMW_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_SIMW_ROUNDS ?? 2);
const WORKERS = Number(process.env.BENCH_SIMW_WORKERS ?? availableParallelism());
const KEYS = 2;

const scenario: Scenario = {
  name: 'bench',
  seed: 1,
  gateways: Array.from({ length: GATEWAYS }, (_, i) => ({
    name: `Bench Gateway ${i + 1}`,
    periodMs: PERIOD_MS,
    qos: 1 as const,
    devicesCount: Math.ceil(DEVICES / GATEWAYS),
    deviceNamePattern: `G${i + 1} Device \${n}`,
    keys: [
      {
        key: 'temperature',
        generator: { kind: 'sine' as const, min: 18, max: 26, periodMs: 60_000, noise: 0.1 },
      },
      { key: 'co2', generator: { kind: 'randomWalk' as const, start: 600, step: 20, min: 400, max: 1600 } },
    ],
  })),
};

interface Round {
  perSec: number;
  cpuUsPerMsg: number;
  /** per worker thread (or the main thread when there are none): its own CPU per message */
  threadUsPerMsg: number[];
  skipped: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(url: string, workers: number): Promise<Round> {
  const run = new SimulationRun({
    gateways: scenario.gateways.map((g, i) => ({
      plan: gatewayPlan(g, scenario.seed),
      connection: { url, token: `bench-${i}`, clientId: `bench-simw-${workers}-${i}`, protocolVersion: 5 },
    })),
    workers,
  });
  await run.start();
  await sleep(2000); // connects, the devices' connect messages and the first periods
  const m = run.meter;
  const threads0 = run.cost().threads;
  const d0 = m.datapoints;
  const s0 = m.skipped;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(SECONDS * 1000);
  const cpu = process.cpuUsage(c0);
  const seconds = (performance.now() - t0) / 1000;
  const messages = (m.datapoints - d0) / KEYS;
  const threads1 = run.cost().threads;
  const skipped = m.skipped - s0;
  await run.stop();
  // a thread's CPU per message over the window: from what it had used and sent at both ends
  const perThread = threads1
    .map((t, i) => ({ t, before: threads0[i]! }))
    .filter(({ t }) => (workers ? t.thread !== 'main' : true))
    .map(({ t, before }) => {
      const us = (x: typeof t) => (x.cpuUsPerValue ?? 0) * x.datapoints;
      const values = t.datapoints - before.datapoints;
      return values > 0 ? ((us(t) - us(before)) / values) * KEYS : 0;
    });
  return {
    perSec: messages / seconds,
    cpuUsPerMsg: (cpu.user + cpu.system) / Math.max(1, messages),
    threadUsPerMsg: perThread,
    skipped,
  };
}

const median = (xs: number[]) => percentile(xs, 0.5);
const sink = await startRawAedes();
try {
  const single: Round[] = [];
  const spread: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    single.push(await measure(sink.url, 0));
    spread.push(await measure(sink.url, WORKERS));
  }
  const one = median(single.map((r) => r.perSec));
  const many = median(spread.map((r) => r.perSec));
  const load = loadavg()[0]!;
  printFigures({
    machine: `${availableParallelism()} cores, load ${load.toFixed(1)} (shared)`,
    devices: [DEVICES, `in ${GATEWAYS} gateways, a message each every ${PERIOD_MS} ms`],
    offered: [(DEVICES * 1000) / PERIOD_MS, 'device messages/s'],
    'one thread': [one, `device messages/s (median of ${ROUNDS}, in turns)`],
    [`${WORKERS} worker threads`]: [many, 'device messages/s'],
    'workers / one thread': [many / one, 'x'],
    'process CPU per message, one thread': [median(single.map((r) => r.cpuUsPerMsg)), 'µs'],
    'process CPU per message, workers': [median(spread.map((r) => r.cpuUsPerMsg)), 'µs'],
    'CPU per message of each worker': [
      spread
        .at(-1)!
        .threadUsPerMsg.map((v) => v.toFixed(2))
        .join(', '),
      'µs (its own thread, last round)',
    ],
    'periods skipped, one thread / workers': `${median(single.map((r) => r.skipped))} / ${median(spread.map((r) => r.skipped))}`,
  });
  printBench({
    name: 'sim-workers',
    devices: DEVICES,
    gateways: GATEWAYS,
    workers: WORKERS,
    offeredMessagesPerSec: (DEVICES * 1000) / PERIOD_MS,
    oneThreadMessagesPerSec: one,
    workersMessagesPerSec: many,
    workersRatio: many / one,
    oneThreadCpuUsPerMessage: median(single.map((r) => r.cpuUsPerMsg)),
    workersCpuUsPerMessage: median(spread.map((r) => r.cpuUsPerMsg)),
    workerThreadCpuUsPerMessage: spread.at(-1)!.threadUsPerMsg,
    loadAverage: load,
  });
} finally {
  await sink.stop();
}
