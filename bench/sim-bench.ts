/**
 * The simulator's own ceiling: simulated gateways (real MQTT clients, QoS 1, devices behind each gateway)
 * publishing to a sink broker (raw aedes in a child process of the same run, which PUBACKs and forwards
 * to nobody), so that only the simulator's cost is measured. A message is one device's telemetry at one
 * ts (what a device would publish alone; the gateway packs its devices into v1/gateway/telemetry
 * messages of up to 48 KB). Prints device messages/s, MQTT publishes/s and the simulator's CPU per
 * message (this process's user + system time).
 * Run: npm run bench:sim. Last line: BENCH {"name":"sim",...}.
 *
 * Scripted devices (a device type with a QuickJS script) are not in the simulator yet: scriptedMessagesPerSec
 * and scriptedCostRatio are null until they are.
 *
 * Env: BENCH_SIM_DEVICES (devices in all, default 20,000), BENCH_SIM_GATEWAYS (4), BENCH_SIM_PERIOD_MS
 * (100), BENCH_SIM_SECONDS (10).
 */
import { availableParallelism, loadavg } from 'node:os';
import type { Scenario } from '../shared/schemas/simulation.ts';
import { gatewayPlan } from '../main/simulator/scenario.ts';
import { SimulationRun } from '../main/simulator/simulation-run.ts';
import { printBench, printFigures } from './lib/bench-output.ts';
import { startRawAedes } from './lib/raw-aedes.ts';

const DEVICES = Number(process.env.BENCH_SIM_DEVICES ?? 20_000);
const GATEWAYS = Number(process.env.BENCH_SIM_GATEWAYS ?? 4);
const PERIOD_MS = Number(process.env.BENCH_SIM_PERIOD_MS ?? 100);
const SECONDS = Number(process.env.BENCH_SIM_SECONDS ?? 10);
const KEYS = 2;
const TARGET_PLAIN = 50_000;

function scenario(): Scenario {
  return {
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
}

async function measure(
  url: string,
): Promise<{ perSec: number; publishesPerSec: number; cpuUsPerMsg: number; skipped: number }> {
  const s = scenario();
  const run = new SimulationRun({
    gateways: s.gateways.map((g, i) => ({
      plan: gatewayPlan(g, s.seed),
      connection: { url, token: `bench-${i}`, clientId: `bench-sim-${i}`, protocolVersion: 5 },
    })),
  });
  await run.start();
  // settle: connects and the first periods
  await new Promise((r) => setTimeout(r, 1500));
  const m = run.meter;
  const d0 = m.datapoints;
  const p0 = m.telemetryMessages;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const cpu = process.cpuUsage(c0);
  const seconds = (performance.now() - t0) / 1000;
  const messages = (m.datapoints - d0) / KEYS;
  const publishes = m.telemetryMessages - p0;
  const skipped = m.skipped;
  await run.stop();
  return {
    perSec: messages / seconds,
    publishesPerSec: publishes / seconds,
    cpuUsPerMsg: (cpu.user + cpu.system) / Math.max(1, messages),
    skipped,
  };
}

const sink = await startRawAedes();
try {
  const plain = await measure(sink.url);
  printFigures({
    machine: `${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(1)} (shared)`,
    devices: [DEVICES, `in ${GATEWAYS} gateways, a message each every ${PERIOD_MS} ms`],
    offered: [(DEVICES * 1000) / PERIOD_MS, 'device messages/s'],
    'plain devices': [plain.perSec, 'device messages/s'],
    'plain MQTT publishes': [plain.publishesPerSec, 'publishes/s (v1/gateway/telemetry, QoS 1)'],
    'simulator CPU per message': [plain.cpuUsPerMsg, 'µs'],
    'periods skipped (in flight full)': plain.skipped,
    target: [TARGET_PLAIN, 'device messages/s plain'],
    'scripted devices': 'not measured: the simulator has no scripted devices yet',
  });
  printBench({
    name: 'sim',
    devices: DEVICES,
    plainMessagesPerSec: plain.perSec,
    plainPublishesPerSec: plain.publishesPerSec,
    plainCpuUsPerMessage: plain.cpuUsPerMsg,
    scriptedMessagesPerSec: null,
    scriptedCostRatio: null,
    targetPlainMessagesPerSec: TARGET_PLAIN,
    meetsPlainTarget: plain.perSec >= TARGET_PLAIN,
  });
} finally {
  await sink.stop();
}
