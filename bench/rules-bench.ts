/**
 * npm run bench:rules — telemetry through a chain of script nodes against the plain root chain, same run.
 *
 * `sandboard serve` runs in its own process with 10 gateways x 100 devices connected (the ingest bench's
 * load: each QoS 1 publish carries 10 devices x 3 keys, i.e. 10 rule engine messages). The same load goes
 * first through the default root chain (message type switch -> save timeseries), then through message type
 * switch -> script filter (TBEL) -> script transformation (TBEL) -> save timeseries, whose scripts run in
 * the QuickJS sandbox's worker threads. Server CPU comes from /proc (all its threads, sandbox included).
 * Then the hostile neighbour run: the same load through the script chain while another device, on a chain
 * of its own, sends messages whose script loops every other time (so it is never suspended); the script
 * chain's PUBACK p99 with the neighbour is compared with its p99 alone (target: at most 2x).
 *
 * Env: BENCH_DURATION_S (measured seconds per run, default 8), BENCH_WARMUP_S (2), BENCH_WINDOW (in-flight
 * publishes per gateway, 4), BENCH_LANG (TBEL or JS, TBEL). Last line: BENCH {"name":"rules",...}.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { percentile, printBench, printFigures } from './lib/bench-output.ts';
import {
  connectClients,
  connectDevices,
  DEVICES_PER_PUBLISH,
  deviceName,
  runServerLoad,
  telemetryPayload,
  type ServerLoadResult,
} from './lib/gateway-load.ts';
import { benchHttp, createBenchGateways, tenantToken, type BenchHttp } from './lib/bench-http.ts';
import { threadTimes } from './lib/proc-cpu.ts';
import { startServeChild } from './lib/serve-child.ts';

const GATEWAYS = 10;
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 8) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 2) * 1000;
const WINDOW = Number(process.env.BENCH_WINDOW ?? 4);
const LANG = process.env.BENCH_LANG === 'JS' ? 'JS' : 'TBEL';
/** a day ago, and an hour later for the second run, so that neither overwrites the other's rows */
const BASE = Date.now() - 86_400_000;
const TARGETS = { datapointsPerSec: 20_000, cpuRatio: 2, neighbourRatio: 2 };
const NEIGHBOUR_SCRIPT =
  'if (msg.loop) {\n  while (true) {}\n}\nreturn {msg: msg, metadata: metadata, msgType: msgType};';

const FILTER = 'return msg.temperature > -273.15;';
const TRANSFORM =
  LANG === 'TBEL'
    ? 'msg.pressure = toFixed(msg.pressure, 1);\nreturn {msg: msg, metadata: metadata, msgType: msgType};'
    : 'msg.pressure = Math.round(msg.pressure * 10) / 10;\nreturn {msg: msg, metadata: metadata, msgType: msgType};';

interface Run extends ServerLoadResult {
  /** server CPU ms per thread group during the run */
  threads: Map<string, number>;
}

/** The server's threads by what they do (Linux keeps 15 characters of a thread's name). */
const threadGroup = (name: string) =>
  name === 'node' || name === 'MainThread'
    ? 'main thread'
    : name.startsWith('sandboard-scrip')
      ? 'script sandbox'
      : name === 'V8Worker'
        ? 'V8 helpers (GC)'
        : 'other threads';

function scriptChain(root: { ruleChainId: unknown; nodes: { type: string }[] }) {
  const script = LANG === 'TBEL' ? 'tbelScript' : 'jsScript';
  return {
    ruleChainId: root.ruleChainId,
    firstNodeIndex: 0,
    nodes: [
      {
        type: 'org.thingsboard.rule.engine.filter.TbMsgTypeSwitchNode',
        name: 'Message Type Switch',
        configuration: { version: 0 },
      },
      {
        type: 'org.thingsboard.rule.engine.filter.TbJsFilterNode',
        name: 'Script filter',
        configuration: { scriptLang: LANG, [script]: FILTER },
      },
      {
        type: 'org.thingsboard.rule.engine.transform.TbTransformMsgNode',
        name: 'Script transformation',
        configuration: { scriptLang: LANG, [script]: TRANSFORM },
      },
      {
        type: 'org.thingsboard.rule.engine.telemetry.TbMsgTimeseriesNode',
        name: 'Save Timeseries',
        configuration: { defaultTTL: 0 },
      },
    ],
    connections: [
      { fromIndex: 0, toIndex: 1, type: 'Post telemetry' },
      { fromIndex: 1, toIndex: 2, type: 'True' },
      { fromIndex: 2, toIndex: 3, type: 'Success' },
    ],
  };
}

async function measure(pid: number, clients: MqttClient[], base: number): Promise<Run> {
  const threadsBefore = threadTimes(pid, threadGroup);
  const result = await runServerLoad(pid, clients, {
    window: WINDOW,
    warmupMs: WARMUP_MS,
    durationMs: DURATION_MS,
    base,
  });
  const threads = new Map<string, number>();
  for (const [group, t] of threadTimes(pid, threadGroup) ?? [])
    threads.set(group, t.cpuMs - (threadsBefore?.get(group)?.cpuMs ?? 0));
  return { ...result, threads };
}

/**
 * A device on a chain of its own whose script loops on every other message: from start() until the returned
 * stop() it keeps two publishes in flight. Resolves with stop(), which tells how many looped.
 */
async function hostileNeighbour(http: BenchHttp, token: string, mqttUrl: string) {
  const node = (name: string, type: string, configuration: Record<string, unknown>) => ({
    type,
    name,
    debugSettings: { failuresEnabled: false, allEnabled: false, allEnabledUntil: 0 },
    configuration,
    additionalInfo: { layoutX: 300, layoutY: 150 },
  });
  const chain = await http<{ ruleChain: { id: { id: string } } }>('/api/sandboard/ruleChain/import', {
    method: 'POST',
    token,
    body: JSON.stringify({
      ruleChain: { name: 'Hostile neighbour', type: 'CORE', root: false, debugMode: false },
      metadata: {
        version: 1,
        firstNodeIndex: 0,
        nodes: [
          node('Loops every other time', 'org.thingsboard.rule.engine.transform.TbTransformMsgNode', {
            scriptLang: 'JS',
            jsScript: NEIGHBOUR_SCRIPT,
          }),
          node('Save Timeseries', 'org.thingsboard.rule.engine.telemetry.TbMsgTimeseriesNode', {
            defaultTTL: 0,
          }),
        ],
        connections: [{ fromIndex: 0, toIndex: 1, type: 'Success' }],
      },
    }),
  });
  const profile = await http<{ id: { id: string } }>('/api/deviceProfile', {
    method: 'POST',
    token,
    body: JSON.stringify({
      name: 'Hostile neighbour',
      defaultRuleChainId: { entityType: 'RULE_CHAIN', id: chain.ruleChain.id.id },
    }),
  });
  await http('/api/device?accessToken=bench-neighbour', {
    method: 'POST',
    token,
    body: JSON.stringify({
      name: 'Hostile neighbour',
      deviceProfileId: { entityType: 'DEVICE_PROFILE', id: profile.id.id },
    }),
  });
  const client = await mqtt.connectAsync(mqttUrl, {
    protocolVersion: 5,
    clientId: 'bench-neighbour',
    username: 'bench-neighbour',
    reconnectPeriod: 0,
  });
  let stopped = false;
  let looped = 0;
  const lane = async (loop: boolean) => {
    while (!stopped) {
      await client.publishAsync('v1/devices/me/telemetry', JSON.stringify(loop ? { loop: 1 } : { v: 1 }), {
        qos: 1,
      });
      if (loop) looped++;
      loop = !loop;
    }
  };
  const lanes = [lane(true), lane(false)];
  return async () => {
    stopped = true;
    await Promise.all(lanes);
    await client.endAsync();
    return looped;
  };
}

/** The latest pressure of one device: the script run stores it rounded to one decimal. */
async function latestPressure(http: BenchHttp, token: string): Promise<number> {
  const device = await http<{ id: { id: string } }>(
    `/api/tenant/devices?deviceName=${encodeURIComponent(deviceName(0, 0))}`,
    { token },
  );
  const series = await http<Record<string, { value: number }[]>>(
    `/api/plugins/telemetry/DEVICE/${device.id.id}/values/timeseries?keys=pressure&useStrictDataTypes=true`,
    { token },
  );
  return series.pressure![0]!.value;
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-bench-rules-'));
  const serve = await startServeChild(dataDir);
  try {
    const http = benchHttp(serve.urls.http);
    const token = await tenantToken(http);
    const tokens = await createBenchGateways(http, token, GATEWAYS);
    const clients = await connectClients(serve.urls.mqtt, tokens);
    await connectDevices(clients, WINDOW);
    const pid = serve.child.pid!;

    const plain = await measure(pid, clients, BASE);

    const page = await http<{ data: { id: { id: string }; root: boolean }[] }>(
      '/api/ruleChains?pageSize=10&page=0',
      { token },
    );
    const rootId = page.data.find((c) => c.root)!.id.id;
    const root = await http<{ ruleChainId: unknown; nodes: { type: string }[] }>(
      `/api/ruleChain/${rootId}/metadata`,
      { token },
    );
    await http('/api/ruleChain/metadata', {
      method: 'POST',
      token,
      body: JSON.stringify(scriptChain(root)),
    });
    // the sandbox's workers start with the first script call: one acknowledged publish before measuring
    await clients[0]!.publishAsync('v1/gateway/telemetry', telemetryPayload(0, 0, BASE + 1_800_000), {
      qos: 1,
    });
    const scripts = await measure(pid, clients, BASE + 3_600_000);
    const pressure = await latestPressure(http, token);
    if (Math.round(pressure * 10) / 10 !== pressure)
      throw new Error(`the transformation did not run: latest pressure ${pressure}`);
    const stopNeighbour = await hostileNeighbour(http, token, serve.urls.mqtt);
    const neighbour = await measure(pid, clients, BASE + 7_200_000);
    const looped = await stopNeighbour();
    await Promise.all(clients.map((c) => c.endAsync()));
    return { plain, scripts, pressure, neighbour, looped };
  } finally {
    await serve.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const loadBefore = loadavg()[0]!;
console.log(
  `${GATEWAYS} gateways x 100 devices, ${DEVICES_PER_PUBLISH} messages (30 datapoints) per publish, QoS 1, ` +
    `${WINDOW} in flight per gateway, ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s measured per run, ` +
    `${LANG} scripts; ${cpus().length} CPUs, load average ${loadBefore.toFixed(1)}`,
);
const { plain, scripts, pressure, neighbour, looped } = await main();
const loadAfter = loadavg()[0]!;

const cpuPerMsgUs = (r: Run) => (r.serverCpuMs * 1000) / r.messages;
const cpuRatio = cpuPerMsgUs(scripts) / cpuPerMsgUs(plain);
const aloneP99Ms = percentile(scripts.latencies, 99);
const neighbourP99Ms = percentile(neighbour.latencies, 99);
const neighbourRatio = neighbourP99Ms / aloneP99Ms;
const msgsPerSec = (r: Run) => r.publishesPerSec * DEVICES_PER_PUBLISH;
const threadSplit = (r: Run) =>
  [...r.threads]
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([group, ms]) => `${group} ${((ms * 1000) / r.messages).toFixed(1)}`)
    .join(', ');
printFigures({
  'plain root chain: messages through the chain': [msgsPerSec(plain), 'messages/s'],
  'plain root chain: ingest': [plain.datapointsPerSec, 'datapoints/s'],
  'plain root chain: PUBACK p50 / p99': `${percentile(plain.latencies, 50).toFixed(1)} / ${percentile(plain.latencies, 99).toFixed(1)} ms`,
  'plain root chain: server CPU per message': [cpuPerMsgUs(plain), 'µs'],
  'script filter -> script transform -> save: messages through the chain': [
    msgsPerSec(scripts),
    'messages/s',
  ],
  'script chain: ingest (target >= 20,000)': [scripts.datapointsPerSec, 'datapoints/s'],
  'script chain: PUBACK p50 / p99': `${percentile(scripts.latencies, 50).toFixed(1)} / ${percentile(scripts.latencies, 99).toFixed(1)} ms`,
  'script chain: server CPU per message': [cpuPerMsgUs(scripts), 'µs'],
  'script chain / plain chain, CPU per message (target <= 2)': cpuRatio,
  'plain chain: CPU per message by thread (µs)': threadSplit(plain),
  'script chain: CPU per message by thread (µs)': threadSplit(scripts),
  'script chain beside a hostile neighbour (a script looping every other message): messages': [
    msgsPerSec(neighbour),
    'messages/s',
  ],
  'script chain: PUBACK p99 alone / beside the neighbour': `${aloneP99Ms.toFixed(1)} / ${neighbourP99Ms.toFixed(1)} ms`,
  'PUBACK p99 beside the neighbour / alone (target <= 2)': neighbourRatio,
  'neighbour: messages whose script looped (each stopped at the time limit)': looped,
  'script chain: stored check': `latest pressure of ${deviceName(0, 0)} is ${pressure} (rounded by the transformation)`,
  'load average before / after (other processes share the CPUs)': `${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)}`,
});
const missed = [
  scripts.datapointsPerSec < TARGETS.datapointsPerSec && 'datapoints/s through the script chain',
  cpuRatio > TARGETS.cpuRatio && 'CPU per message ratio',
  neighbourRatio > TARGETS.neighbourRatio && 'PUBACK p99 beside a hostile neighbour',
].filter(Boolean);
console.log(missed.length ? `targets missed: ${missed.join(', ')}` : 'all targets met');
printBench({
  name: 'rules',
  lang: LANG,
  plainMessagesPerSec: msgsPerSec(plain),
  plainDatapointsPerSec: plain.datapointsPerSec,
  plainPubackP99Ms: percentile(plain.latencies, 99),
  plainCpuPerMessageUs: cpuPerMsgUs(plain),
  scriptMessagesPerSec: msgsPerSec(scripts),
  scriptDatapointsPerSec: scripts.datapointsPerSec,
  scriptPubackP99Ms: percentile(scripts.latencies, 99),
  scriptCpuPerMessageUs: cpuPerMsgUs(scripts),
  cpuRatio,
  aloneP99Ms,
  neighbourP99Ms,
  neighbourRatio,
  neighbourLooped: looped,
  loadAverage: loadAfter,
});
