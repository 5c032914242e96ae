/**
 * npm run bench:alarms — telemetry through the device profile node with one SIMPLE alarm rule per device,
 * beside the same load with no rules, same run.
 *
 * `sandboard serve` runs in its own process with 10 gateways x 100 devices (1,000 devices of the default
 * profile) connected: the ingest bench's load, each QoS 1 publish carrying 10 devices x 3 keys. The root
 * chain is a new install's (device profile node -> message type switch -> save timeseries). Runs alternate:
 * the default profile without alarm rules, then with one alarm whose CRITICAL rule is the SIMPLE
 * "temperature > 30" and whose clear rule is "temperature < 25" (with this load's values, 4 devices in 10
 * raise and clear an alarm once per ten of their messages), and so on for BENCH_ROUNDS rounds.
 *
 * Env: BENCH_DURATION_S (measured seconds per run, default 8), BENCH_WARMUP_S (2), BENCH_WINDOW (in-flight
 * publishes per gateway, 4), BENCH_ROUNDS (2). Last line: BENCH {"name":"alarms",...}.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MqttClient } from 'mqtt';
import { percentile, printBench, printFigures } from './lib/bench-output.ts';
import { benchHttp, createBenchGateways, tenantToken, type BenchHttp } from './lib/bench-http.ts';
import {
  connectClients,
  connectDevices,
  DEVICES_PER_GATEWAY,
  DEVICES_PER_PUBLISH,
  runServerLoad,
  type ServerLoadResult,
} from './lib/gateway-load.ts';
import { startServeChild } from './lib/serve-child.ts';

const GATEWAYS = 10;
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 8) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 2) * 1000;
const WINDOW = Number(process.env.BENCH_WINDOW ?? 4);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
/** every run writes its own hour of rows, long ago */
const BASE = Date.now() - 30 * 86_400_000;
const TARGET_RATIO = 0.7;

const threshold = (operation: string, defaultValue: number) => ({
  key: { type: 'TIME_SERIES', key: 'temperature' },
  valueType: 'NUMERIC',
  predicate: { type: 'NUMERIC', operation, value: { defaultValue, userValue: null, dynamicValue: null } },
});
const simpleRule = (filter: unknown) => ({
  condition: { condition: [filter], spec: { type: 'SIMPLE' } },
  schedule: null,
  alarmDetails: 'Temperature ${temperature}',
  dashboardId: null,
});
const HIGH_TEMPERATURE = {
  id: 'bench-high-temperature',
  alarmType: 'High Temperature',
  createRules: { CRITICAL: simpleRule(threshold('GREATER', Number(process.env.BENCH_T ?? 30))) },
  clearRule: simpleRule(threshold('LESS', 25)),
  propagate: false,
  propagateToOwner: false,
  propagateToTenant: false,
  propagateRelationTypes: null,
};

type Run = ServerLoadResult;

const measure = (pid: number, clients: MqttClient[], base: number): Promise<Run> =>
  runServerLoad(pid, clients, { window: WINDOW, warmupMs: WARMUP_MS, durationMs: DURATION_MS, base });

type Profile = { id: { id: string }; profileData: Record<string, unknown> };

async function setAlarms(http: BenchHttp, token: string, alarms: unknown[] | null): Promise<void> {
  const profile = await http<Profile>('/api/deviceProfileInfo/default', { token }).then((info) =>
    http<Profile>(`/api/deviceProfile/${info.id.id}`, { token }),
  );
  await http('/api/deviceProfile', {
    method: 'POST',
    token,
    body: JSON.stringify({ ...profile, profileData: { ...profile.profileData, alarms } }),
  });
}

async function alarmCount(http: BenchHttp, token: string): Promise<{ total: number; active: number }> {
  const all = await http<{ totalElements: number }>('/api/v2/alarms?pageSize=1&page=0', { token });
  const active = await http<{ totalElements: number }>('/api/v2/alarms?pageSize=1&page=0&statusList=ACTIVE', {
    token,
  });
  return { total: all.totalElements, active: active.totalElements };
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-bench-alarms-'));
  const serve = await startServeChild(dataDir);
  try {
    const http = benchHttp(serve.urls.http);
    const token = await tenantToken(http);
    const tokens = await createBenchGateways(http, token, GATEWAYS);
    const clients = await connectClients(serve.urls.mqtt, tokens);
    await connectDevices(clients, WINDOW);
    const pid = serve.child.pid!;
    const plain: Run[] = [];
    const rules: Run[] = [];
    let hour = 0;
    for (let round = 0; round < ROUNDS; round++) {
      await setAlarms(http, token, null);
      plain.push(await measure(pid, clients, BASE + hour++ * 3_600_000));
      await setAlarms(http, token, [HIGH_TEMPERATURE]);
      rules.push(await measure(pid, clients, BASE + hour++ * 3_600_000));
    }
    const alarms = await alarmCount(http, token);
    await Promise.all(clients.map((c) => c.endAsync()));
    return { plain, rules, alarms };
  } finally {
    await serve.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const loadBefore = loadavg()[0]!;
console.log(
  `${GATEWAYS} gateways x ${DEVICES_PER_GATEWAY} devices, ${DEVICES_PER_PUBLISH} messages (30 datapoints) per publish, QoS 1, ` +
    `${WINDOW} in flight per gateway, ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s measured per run, ` +
    `${ROUNDS} rounds; ${cpus().length} CPUs, load average ${loadBefore.toFixed(1)}`,
);
const { plain, rules, alarms } = await main();
const loadAfter = loadavg()[0]!;

const mean = (runs: Run[], f: (r: Run) => number) => runs.reduce((a, r) => a + f(r), 0) / runs.length;
const all = (runs: Run[]) => runs.flatMap((r) => r.latencies);
const dps = (runs: Run[]) => mean(runs, (r) => r.datapointsPerSec);
const cpuPerMsgUs = (runs: Run[]) => mean(runs, (r) => (r.serverCpuMs * 1000) / r.messages);
const ratio = dps(rules) / dps(plain);
const p99 = (runs: Run[]) => percentile(all(runs), 99);
printFigures({
  'no alarm rules: ingest': [dps(plain), 'datapoints/s'],
  'no alarm rules: PUBACK p50 / p99': `${percentile(all(plain), 50).toFixed(1)} / ${p99(plain).toFixed(1)} ms`,
  'no alarm rules: server CPU per message': [cpuPerMsgUs(plain), 'µs'],
  'one SIMPLE rule per device: ingest': [dps(rules), 'datapoints/s'],
  'one SIMPLE rule per device: PUBACK p50 / p99': `${percentile(all(rules), 50).toFixed(1)} / ${p99(rules).toFixed(1)} ms`,
  'one SIMPLE rule per device: server CPU per message': [cpuPerMsgUs(rules), 'µs'],
  'with rules / without, datapoints/s (target >= 0.7)': ratio,
  'runs (datapoints/s), without / with': `${plain.map((r) => Math.round(r.datapointsPerSec)).join(', ')} / ${rules.map((r) => Math.round(r.datapointsPerSec)).join(', ')}`,
  'alarms raised by the rule (all / still active)': `${alarms.total} / ${alarms.active}`,
  'load average before / after (other processes share the CPUs)': `${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)}`,
});
if (alarms.total === 0) throw new Error('the alarm rule raised no alarm: the rules did not run');
console.log(ratio >= TARGET_RATIO ? 'target met' : 'target missed: datapoints/s with rules / without');
printBench({
  name: 'alarms',
  devices: GATEWAYS * DEVICES_PER_GATEWAY,
  plainDatapointsPerSec: dps(plain),
  plainPubackP99Ms: p99(plain),
  plainCpuPerMessageUs: cpuPerMsgUs(plain),
  rulesDatapointsPerSec: dps(rules),
  rulesPubackP99Ms: p99(rules),
  rulesCpuPerMessageUs: cpuPerMsgUs(rules),
  ratio,
  alarmsRaised: alarms.total,
  loadAverage: loadAfter,
});
