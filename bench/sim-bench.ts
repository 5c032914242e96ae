/**
 * The simulator's own ceiling: simulated gateways (real MQTT clients, QoS 1, devices behind each gateway)
 * publishing to a sink broker (raw aedes in a child process of the same run, which PUBACKs and forwards
 * to nobody), so that only the simulator's cost is measured. A message is one device's telemetry at one
 * ts (what a device would publish alone; the gateway packs its devices into v1/gateway/telemetry
 * messages of up to 48 KB). Prints device messages/s, MQTT publishes/s and the simulator's CPU per
 * message (this process's user + system time).
 * Run: npm run bench:sim. Last line: BENCH {"name":"sim",...}.
 *
 * Then the same with scripted devices (each gateway's devices run a script in the QuickJS sandbox that
 * computes the same two keys, keeping its state per device): scriptedMessagesPerSec, and scriptedCostRatio,
 * the simulator's CPU per message scripted over plain (this process's CPU: the sandbox's worker threads
 * included). Target: at most 3.
 *
 * Plain and scripted runs take turns, BENCH_SIM_ROUNDS times: the shared machine's speed drifts from one
 * minute to the next, so the ratio is the median of the rounds' ratios (each of a plain and a scripted run
 * measured back to back), and the other figures the medians of the rounds. Each run starts from a collected
 * heap (the plain run's 20,000 devices leave more garbage than the scripted run's).
 *
 * Env: BENCH_SIM_DEVICES (devices in all, default 20,000), BENCH_SIM_SCRIPTED_DEVICES (default 10,000, a
 * scenario's most), BENCH_SIM_GATEWAYS (4), BENCH_SIM_PERIOD_MS (100), BENCH_SIM_ROUNDS (5),
 * BENCH_SIM_SECONDS (measured per run and round, 5).
 */
import { availableParallelism, loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Scenario } from '../shared/schemas/simulation.ts';
import { gatewayPlan } from '../main/simulator/scenario.ts';
import { simulatorSandbox } from '../main/simulator/device-script.ts';
import { SimulationRun } from '../main/simulator/simulation-run.ts';
import { percentile, printBench, printFigures } from './lib/bench-output.ts';
import { startRawAedes } from './lib/raw-aedes.ts';

const DEVICES = Number(process.env.BENCH_SIM_DEVICES ?? 20_000);
const GATEWAYS = Number(process.env.BENCH_SIM_GATEWAYS ?? 4);
const PERIOD_MS = Number(process.env.BENCH_SIM_PERIOD_MS ?? 100);
const SECONDS = Number(process.env.BENCH_SIM_SECONDS ?? 5);
const ROUNDS = Math.max(1, Number(process.env.BENCH_SIM_ROUNDS ?? 5));
const SCRIPTED_DEVICES = Number(process.env.BENCH_SIM_SCRIPTED_DEVICES ?? 10_000);
const KEYS = 2;
const TARGET_PLAIN = 50_000;
const TARGET_COST_RATIO = 3;

/** The plain devices' two keys, computed by a device script. */
const SCRIPT = `function onTick(ctx) {
  const s = ctx.state;
  if (s.co2 === undefined) s.co2 = 600;
  s.co2 = Math.min(1600, Math.max(400, s.co2 + (ctx.random() * 2 - 1) * 20));
  const t = 22 + 4 * Math.sin((2 * Math.PI * ctx.elapsedMs) / 60000) + (ctx.random() - 0.5) * 0.2;
  return { temperature: Math.round(t * 100) / 100, co2: Math.round(s.co2 * 100) / 100 };
}`;

function scenario(devices: number, scripted: boolean): Scenario {
  return {
    name: 'bench',
    seed: 1,
    gateways: Array.from({ length: GATEWAYS }, (_, i) => ({
      name: `Bench Gateway ${i + 1}`,
      periodMs: PERIOD_MS,
      qos: 1 as const,
      devicesCount: Math.ceil(devices / GATEWAYS),
      deviceNamePattern: `G${i + 1} Device \${n}`,
      ...(scripted ? { script: SCRIPT } : {}),
      keys: scripted
        ? []
        : [
            {
              key: 'temperature',
              generator: { kind: 'sine' as const, min: 18, max: 26, periodMs: 60_000, noise: 0.1 },
            },
            {
              key: 'co2',
              generator: { kind: 'randomWalk' as const, start: 600, step: 20, min: 400, max: 1600 },
            },
          ],
    })),
  };
}

/**
 * A bench that hangs fails loudly: when one phase (a run's start, settle and measure, its stop) lasts past
 * this, with room for a loaded machine, it prints where it was and exits with an error instead of waiting.
 */
const WATCHDOG_MS = Number(process.env.BENCH_SIM_WATCHDOG_MS ?? (SECONDS + 30) * 1000 * 2);
let phase = '';
let watchdog: NodeJS.Timeout | undefined;
function enter(what: string): void {
  phase = what;
  clearTimeout(watchdog);
  watchdog = setTimeout(() => {
    console.error(`sim bench: no progress for ${WATCHDOG_MS} ms, stuck ${phase}; giving up`);
    process.exit(2);
  }, WATCHDOG_MS);
}
enter('starting the sink broker');
const median = (xs: number[]) => percentile(xs, 50);

setFlagsFromString('--expose-gc');
/** A full collection: each run starts from a collected heap, so none pays for the garbage of the one before. */
const collect = runInNewContext('gc') as () => void;

/** This thread's CPU time in µs (Node 24's process.threadCpuUsage; NaN where there is none). */
function threadCpu(): number {
  const f = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
  if (!f) return Number.NaN;
  const u = f.call(process);
  return u.user + u.system;
}

async function measure(
  url: string,
  devices: number,
  scripted: boolean,
  settleMs: number,
): Promise<{
  perSec: number;
  publishesPerSec: number;
  cpuUsPerMsg: number;
  mainUsPerMsg: number;
  skipped: number;
}> {
  const s = scenario(devices, scripted);
  const run = new SimulationRun({
    gateways: s.gateways.map((g, i) => ({
      plan: gatewayPlan(g, s.seed),
      connection: { url, token: `bench-${i}`, clientId: `bench-sim-${i}`, protocolVersion: 5 },
    })),
  });
  const what = scripted ? 'scripted' : 'plain';
  collect();
  enter(`starting the ${what} run`);
  await run.start();
  enter(`measuring the ${what} run`);
  // settle: connects and the first periods (scripted: the scripts' contexts are made, in the first round
  // the sandbox's workers start)
  await new Promise((r) => setTimeout(r, settleMs));
  const m = run.meter;
  const d0 = m.datapoints;
  const p0 = m.telemetryMessages;
  const c0 = process.cpuUsage();
  const m0 = threadCpu();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const cpu = process.cpuUsage(c0);
  const main = threadCpu() - m0;
  const seconds = (performance.now() - t0) / 1000;
  const messages = (m.datapoints - d0) / KEYS;
  const publishes = m.telemetryMessages - p0;
  const skipped = m.skipped;
  enter(`stopping the ${what} run`);
  await run.stop();
  return {
    perSec: messages / seconds,
    publishesPerSec: publishes / seconds,
    cpuUsPerMsg: (cpu.user + cpu.system) / Math.max(1, messages),
    mainUsPerMsg: main / Math.max(1, messages),
    skipped,
  };
}

const sink = await startRawAedes();
try {
  const rounds: {
    plain: Awaited<ReturnType<typeof measure>>;
    scripted: Awaited<ReturnType<typeof measure>>;
  }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const plain = await measure(sink.url, DEVICES, false, 1500);
    const scripted = await measure(sink.url, SCRIPTED_DEVICES, true, i === 0 ? 4000 : 2500);
    rounds.push({ plain, scripted });
  }
  const med = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick));
  const ratios = rounds.map((r) => r.scripted.cpuUsPerMsg / r.plain.cpuUsPerMsg);
  const ratio = median(ratios);
  const plain = {
    perSec: med((r) => r.plain.perSec),
    publishesPerSec: med((r) => r.plain.publishesPerSec),
    cpuUsPerMsg: med((r) => r.plain.cpuUsPerMsg),
    mainUsPerMsg: med((r) => r.plain.mainUsPerMsg),
    skipped: Math.max(...rounds.map((r) => r.plain.skipped)),
  };
  const scripted = {
    perSec: med((r) => r.scripted.perSec),
    cpuUsPerMsg: med((r) => r.scripted.cpuUsPerMsg),
    mainUsPerMsg: med((r) => r.scripted.mainUsPerMsg),
  };
  const load = loadavg()[0]!;
  printFigures({
    machine: `${availableParallelism()} cores, load ${load.toFixed(1)} (shared)`,
    rounds: [
      ROUNDS,
      `plain and scripted take turns, ${SECONDS} s measured each; figures are medians of the rounds`,
    ],
    devices: [DEVICES, `in ${GATEWAYS} gateways, a message each every ${PERIOD_MS} ms`],
    offered: [(DEVICES * 1000) / PERIOD_MS, 'device messages/s'],
    'plain devices': [plain.perSec, 'device messages/s'],
    'plain MQTT publishes': [plain.publishesPerSec, 'publishes/s (v1/gateway/telemetry, QoS 1)'],
    'simulator CPU per message': [plain.cpuUsPerMsg, 'µs'],
    'simulator CPU per message on the main thread': [plain.mainUsPerMsg, 'µs'],
    'periods skipped (in flight full, most of a round)': plain.skipped,
    target: [TARGET_PLAIN, 'device messages/s plain'],
    'scripted devices': [SCRIPTED_DEVICES, `in ${GATEWAYS} gateways, onTick every ${PERIOD_MS} ms`],
    'scripted device messages': [scripted.perSec, 'device messages/s'],
    'scripted CPU per message': [scripted.cpuUsPerMsg, 'µs'],
    'scripted CPU per message on the main thread': [
      scripted.mainUsPerMsg,
      'µs (the rest: the sandbox workers, QuickJS)',
    ],
    'scripted cost ratio by round': ratios.map((r) => r.toFixed(2)).join(', '),
    'scripted cost ratio': [
      ratio,
      `x plain per message, median of the rounds (target <= ${TARGET_COST_RATIO})`,
    ],
  });
  printBench({
    name: 'sim',
    rounds: ROUNDS,
    devices: DEVICES,
    plainMessagesPerSec: plain.perSec,
    plainPublishesPerSec: plain.publishesPerSec,
    plainCpuUsPerMessage: plain.cpuUsPerMsg,
    scriptedDevices: SCRIPTED_DEVICES,
    scriptedMessagesPerSec: scripted.perSec,
    scriptedCpuUsPerMessage: scripted.cpuUsPerMsg,
    scriptedMainThreadCpuUsPerMessage: scripted.mainUsPerMsg,
    scriptedCostRatio: ratio,
    scriptedCostRatioMin: Math.min(...ratios),
    scriptedCostRatioMax: Math.max(...ratios),
    targetScriptedCostRatio: TARGET_COST_RATIO,
    meetsScriptedTarget: ratio <= TARGET_COST_RATIO,
    targetPlainMessagesPerSec: TARGET_PLAIN,
    meetsPlainTarget: plain.perSec >= TARGET_PLAIN,
    loadAverage: load,
  });
} finally {
  enter('stopping the sink broker');
  await sink.stop();
  enter("stopping the simulator's script sandbox");
  await simulatorSandbox().close();
  clearTimeout(watchdog);
  // all is closed: the process ends now, or says what holds it
  setTimeout(() => {
    const handles = (process as unknown as { _getActiveHandles(): object[] })._getActiveHandles();
    console.error(
      `sim bench: the process did not exit; still open: ${handles.map((h) => h.constructor.name).join(', ')}`,
    );
    process.exit(2);
  }, 10_000).unref();
}
