/**
 * npm run bench:fleet — fleets to the machine's ceiling against a real `sandboard serve` (fresh data dir).
 *
 * Direct phase: FLEET_DEVICES devices (default: the open-file limit less 1,000, at most 19,000), each a real
 * MQTT 3.1.1 client (lib/lean-mqtt-client.ts; FLEET_CLIENT=mqttjs makes them mqtt.js clients, whose CPU
 * in the load processes competes more with serve's), connect at once (a storm) from FLEET_PROCS load
 * processes. Measured: the storm's length (connectStormS), refused connections, the CPU the load processes
 * spent on it (loadCpuPerConnectMs) and how long serve's main thread was runnable but waited for a core
 * (serveMainThreadWaitS), REST p99 while it lasts (restDuringStormMs: GET
 * /api/tenant/deviceInfos and /api/auth/user one after the other, every 50 ms), then one QoS 1 publish per
 * device over 10 s (pubackP99Ms) and serve's RSS. restStormRatio compares REST p99 during the storm with
 * the same calls on the idle platform in this run.
 *
 * Gateway phase: FLEET_GATEWAYS gateways (100) of FLEET_GATEWAY_DEVICES devices (1,000) announce their
 * devices (v1/gateway/connect creates them) and send one telemetry message per 100 devices. Measured:
 * gatewayDevices, gatewayRssMB (right after the burst) with what holds it (gatewayHeapMB, gatewayWasmMB,
 * gatewayOtherAnonymousMB) and gatewaySettledRssMB (the fleet still connected, quiet for 20 s), the device
 * list page and its text search on the settled platform (deviceListMs, deviceSearchMs: medians of 10), and
 * the longest CONNECT of a direct device while the gateways' devices were being created
 * (connectDuringCreationMs).
 *
 * serve is launched as `sandboard serve` launches the core: with scripts/start-plan.ts's CORE_NODE_FLAGS
 * and CORE_ENV (FLEET_SERVE_NODE_ARGS adds flags; FLEET_SERVE_LOG=<file> keeps its output).
 *
 * serve and the load processes get the hard open-file limit as their soft one (prlimit); the bench says so
 * when the hard limit is lower than the fleet needs. net.core.somaxconn and net.ipv4.tcp_max_syn_backlog
 * are raised to the storm's size for the run where the bench may (root), and it says so where it cannot;
 * before the storm it waits until sockets an earlier run left in TIME_WAIT no longer hold the local ports
 * it needs. Last line: BENCH {"name":"fleet",...}.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import mqtt from 'mqtt';
import { CORE_ENV, CORE_NODE_FLAGS } from '../scripts/start-plan.ts';
import type { EventLoopDelay } from '../shared/schemas/sandboard.ts';
import { processMemory } from './lib/process-memory.ts';
import { percentile, printBench, printFigures } from './lib/bench-output.ts';
import { processCpuMs } from './lib/proc-cpu.ts';
import { benchHttp, tenantToken, type BenchHttp } from './lib/bench-http.ts';
import type { FleetChildConfig, FleetCommand, FleetReport } from './lib/fleet-child.ts';

const BIN = fileURLToPath(new URL('../bin/sandboard.js', import.meta.url));
const CHILD = fileURLToPath(new URL('./lib/fleet-child.ts', import.meta.url));

function openFileLimits(): { soft: number; hard: number } {
  const read = (flag: string) => {
    const out = execFileSync('sh', ['-c', `ulimit ${flag}`], { encoding: 'utf8' }).trim();
    return out === 'unlimited' ? Number.POSITIVE_INFINITY : Number(out);
  };
  return { soft: read('-Sn'), hard: read('-Hn') };
}

const limits = openFileLimits();
const raiseTo = Number.isFinite(limits.hard) ? limits.hard : 1_048_576;
const hasPrlimit = (() => {
  try {
    execFileSync('prlimit', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
/** A command with its open-file limit raised to the hard limit, when prlimit can do it. */
const withNofile = (cmd: string, args: string[]): [string, string[]] =>
  hasPrlimit ? ['prlimit', [`--nofile=${raiseTo}:${raiseTo}`, cmd, ...args]] : [cmd, args];
const fdLimit = hasPrlimit ? raiseTo : limits.soft;

const DEVICES = Number(process.env.FLEET_DEVICES ?? Math.min(19_000, fdLimit - 1_000));
const PROCS = Number(process.env.FLEET_PROCS ?? 4);
/** FLEET_CLIENT=mqttjs: direct devices as mqtt.js clients instead of the lean ones (same packets, more CPU) */
const DIRECT_CLIENT = process.env.FLEET_CLIENT === 'mqttjs' ? 'mqttjs' : 'lean';
const GATEWAYS = Number(process.env.FLEET_GATEWAYS ?? 100);
const GATEWAY_DEVICES = Number(process.env.FLEET_GATEWAY_DEVICES ?? 1_000);
const PUBLISH_SPREAD_MS = Number(process.env.FLEET_SPREAD_S ?? 10) * 1000;
/** how long the connected gateway fleet stays quiet before gatewaySettledRssMB is read */
const SETTLE_MS = 20_000;
const TARGETS = {
  connectStormS: 10,
  restDuringStormMs: 100,
  pubackP99Ms: 50,
  gatewayRssMB: 1536,
  deviceListMs: 50,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The kernel's count of connections dropped because a listen queue was full (machine-wide). */
function listenOverflows(): number {
  const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
  const header = lines.findIndex((l) => l.startsWith('TcpExt:'));
  const names = lines[header]!.split(/\s+/);
  const values = lines[header + 1]!.split(/\s+/);
  return Number(values[names.indexOf('ListenOverflows')] ?? NaN);
}

/**
 * The kernel's listen queue bounds: a socket's backlog is capped at net.core.somaxconn, and half-open
 * connections at tcp_max_syn_backlog. A storm larger than they allow overflows, and each dropped SYN is
 * retried by the client only after 1 s, 3 s, 7 s... Raised (root only) for the run, restored after it.
 */
const LISTEN_QUEUE_SYSCTLS = ['/proc/sys/net/core/somaxconn', '/proc/sys/net/ipv4/tcp_max_syn_backlog'];

function raiseListenQueues(wanted: number): { restore(): void } {
  const restores: (() => void)[] = [];
  for (const path of LISTEN_QUEUE_SYSCTLS) {
    const name = path.replace('/proc/sys/', '').replaceAll('/', '.');
    let current: number;
    try {
      current = Number(readFileSync(path, 'utf8').trim());
    } catch {
      console.log(`${name}: not readable here, the kernel's default applies`);
      continue;
    }
    if (current >= wanted) {
      console.log(`${name}: ${current}`);
      continue;
    }
    try {
      writeFileSync(path, String(wanted));
      console.log(`${name}: raised from ${current} to ${wanted} for this run`);
      restores.push(() => writeFileSync(path, String(current)));
    } catch {
      console.log(
        `${name}: ${current}, below the ${wanted} a storm of this size needs, and not writable here ` +
          `(as root: sysctl -w ${name}=${wanted}); expect listen queue overflows`,
      );
    }
  }
  return {
    restore() {
      for (const restore of restores)
        try {
          restore();
        } catch {
          // nothing to undo if it cannot be written back
        }
    },
  };
}

/** Sockets in TIME_WAIT (state 06 in /proc/net/tcp*): each holds a local port for up to 60 s. */
function timeWaitSockets(): number {
  let n = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6'])
    try {
      for (const line of readFileSync(file, 'utf8').split('\n')) if (line.split(/\s+/)[4] === '06') n++;
    } catch {
      // no IPv6, or not Linux
    }
  return n;
}

function ephemeralPorts(): number {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return Number(high) - Number(low) + 1;
  } catch {
    return 28_232;
  }
}

/**
 * Waits (at most 70 s, TIME_WAIT's 60 s and a margin) until the connections an earlier run left in
 * TIME_WAIT no longer hold the local ports this storm needs; returns how long it waited.
 */
async function waitOutTimeWait(connections: number): Promise<number> {
  const ports = ephemeralPorts();
  const started = performance.now();
  let waiting = timeWaitSockets();
  if (waiting + connections + 1_000 > ports)
    console.log(`${waiting} sockets in TIME_WAIT hold ports this storm needs: waiting them out`);
  while (waiting + connections + 1_000 > ports && performance.now() - started < 70_000) {
    await sleep(1_000);
    waiting = timeWaitSockets();
  }
  if (waiting + connections + 1_000 > ports)
    console.log(
      `still ${waiting} sockets in TIME_WAIT after 70 s, of ${ports} local ports: the storm may fail to get ` +
        'ports (EADDRNOTAVAIL); widen net.ipv4.ip_local_port_range or run again in a minute',
    );
  return (performance.now() - started) / 1000;
}

/** CPU ms of a process (or one of its threads) so far: [user, system (accepts, socket writes, fsyncs)]. */
function cpuSplitMs(statPath: string): [number, number] {
  const stat = readFileSync(statPath, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(fields[11]) * 10, Number(fields[12]) * 10];
}
const systemCpuMs = (pid: number) => cpuSplitMs(`/proc/${pid}/stat`)[1];
/** The main thread's CPU ms (the event loop's; not GC helpers, workers or the journal's thread). */
const mainThreadCpuMs = (pid: number) => {
  const [user, system] = cpuSplitMs(`/proc/${pid}/task/${pid}/stat`);
  return user + system;
};
/** ms the main thread was runnable but waited for a core (NaN without scheduler statistics). */
function mainThreadWaitMs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return Number.NaN;
  }
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024;
}

async function startServe(dataDir: string) {
  // FLEET_SERVE_NODE_ARGS: node flags for serve, e.g. --cpu-prof to see where a storm's time goes
  const nodeArgs = (process.env.FLEET_SERVE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const [cmd, args] = withNofile(process.execPath, [
    ...CORE_NODE_FLAGS,
    ...nodeArgs,
    BIN,
    'serve',
    '--data-dir',
    dataDir,
    '--http-port',
    '0',
    '--mqtt-port',
    '0',
    '--analytics-port',
    '0',
  ]);
  // launched as `sandboard serve` launches the core (bin/sandboard.js's shebang)
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...CORE_ENV, ...process.env } });
  let stderr = '';
  if (process.env.FLEET_SERVE_LOG)
    child.stdout!.on('data', (d: Buffer) => appendFileSync(process.env.FLEET_SERVE_LOG!, d));
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const urls = await new Promise<{ http: string; mqtt: string }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /^sandboard ready (\{.*\})$/.exec(line);
      if (m) resolve(JSON.parse(m[1]!) as { http: string; mqtt: string });
    });
    child.once('exit', (code) => reject(new Error(`sandboard serve exited with ${code}: ${stderr}`)));
  });
  // prlimit execs node: the pid is serve's own
  return { child, urls, stderr: () => stderr };
}

/** A load process and a way to wait for its next report. */
interface LoadChild {
  child: ChildProcess;
  send(cmd: FleetCommand): void;
  next<T extends FleetReport['type']>(type: T): Promise<Extract<FleetReport, { type: T }>>;
}

async function startLoadChild(config: FleetChildConfig): Promise<LoadChild> {
  const [cmd, args] = withNofile(process.execPath, [CHILD, JSON.stringify(config)]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map<string, (r: FleetReport) => void>();
  child.on('message', (r: FleetReport) => {
    waiting.get(r.type)?.(r);
    waiting.delete(r.type);
  });
  const load: LoadChild = {
    child,
    send: (c) => child.send(c),
    next: (type) =>
      new Promise((resolve, reject) => {
        waiting.set(type, resolve as (r: FleetReport) => void);
        child.once('exit', (code) => reject(new Error(`load process exited with ${code}`)));
      }),
  };
  await load.next('ready');
  return load;
}

/** Calls the REST probes in turn every `everyMs` until stopped; returns each call's latency. */
function probeRest(http: BenchHttp, token: string, everyMs: number) {
  const latencies: number[] = [];
  let failures = 0;
  let running = true;
  const paths = ['/api/tenant/deviceInfos?pageSize=10&page=0', '/api/auth/user'];
  const done = (async () => {
    for (let i = 0; running; i++) {
      const t = performance.now();
      try {
        await http(paths[i % paths.length]!, { token });
        latencies.push(performance.now() - t);
      } catch {
        failures++;
      }
      await sleep(Math.max(0, everyMs - (performance.now() - t)));
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return { latencies, failures };
    },
  };
}

async function timedMedian(fn: () => Promise<unknown>, times = 10): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return percentile(samples, 50);
}

/** Creates devices "Fleet i" with access tokens fleet-i through the bulk import, 10,000 a request. */
async function createDirectDevices(http: BenchHttp, token: string, count: number): Promise<string[]> {
  const tokens = Array.from({ length: count }, (_, i) => `fleet-${i}`);
  for (let first = 0; first < count; first += 10_000) {
    const slice = tokens.slice(first, first + 10_000);
    const file = slice.map((t, j) => `Fleet ${first + j},fleet,${t}`).join('\n');
    const result = await http<{ created: number; errors: number; errorsList: string[] }>(
      '/api/device/bulk_import',
      {
        method: 'POST',
        token,
        body: JSON.stringify({
          file,
          mapping: {
            columns: [{ type: 'NAME' }, { type: 'TYPE' }, { type: 'ACCESS_TOKEN' }],
            delimiter: ',',
            header: false,
            update: false,
          },
        }),
      },
    );
    if (result.errors) throw new Error(`bulk import: ${result.errorsList.slice(0, 3).join('; ')}`);
  }
  return tokens;
}

function split<T>(items: T[], parts: number): T[][] {
  const out: T[][] = Array.from({ length: parts }, () => []);
  items.forEach((item, i) => out[i % parts]!.push(item));
  return out.filter((p) => p.length > 0);
}

/** Longest CONNECT -> CONNACK of one direct device, reconnecting every 200 ms until stopped. */
function probeConnect(url: string, username: string) {
  const times: number[] = [];
  let failures = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const t = performance.now();
      try {
        const c = await mqtt.connectAsync(url, {
          protocolVersion: 4,
          username,
          reconnectPeriod: 0,
          connectTimeout: 60_000,
        });
        times.push(performance.now() - t);
        await c.endAsync(true);
      } catch {
        failures++;
      }
      await sleep(200);
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return { times, failures };
    },
  };
}

async function main(): Promise<void> {
  const limitNote =
    `open-file limit: soft ${limits.soft}, hard ${limits.hard}; ` +
    (hasPrlimit
      ? `serve and load processes run with ${raiseTo}:${raiseTo} (prlimit)`
      : 'prlimit not found: the processes keep the soft limit');
  console.log(limitNote);
  if (DEVICES + 500 > fdLimit)
    console.log(
      `the hard open-file limit (${fdLimit}) is below what ${DEVICES} connections need: raise it (ulimit -Hn, limits.conf) to go further`,
    );
  // the MQTT listener asks for a 65,535 backlog; the kernel grants at most somaxconn
  const listenQueues = raiseListenQueues(Math.min(65_535, Math.max(4_096, DEVICES + 1_000)));
  process.once('exit', () => listenQueues.restore());

  const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-fleet-bench-'));
  const serve = await startServe(dataDir);
  const pid = serve.child.pid!;
  const http = benchHttp(serve.urls.http);
  const loadChildren: LoadChild[] = [];
  try {
    const token = await tenantToken(http);
    const createStart = performance.now();
    const tokens = await createDirectDevices(http, token, DEVICES);
    const createS = (performance.now() - createStart) / 1000;

    // baseline: the same REST probes on the idle platform
    const idleProbe = probeRest(http, token, 50);
    await sleep(2_000);
    const idle = await idleProbe.stop();

    // direct phase: the storm
    const timeWaitS = await waitOutTimeWait(DEVICES);
    for (const slice of split(tokens, PROCS))
      loadChildren.push(
        await startLoadChild({ mode: 'direct', url: serve.urls.mqtt, tokens: slice, client: DIRECT_CLIENT }),
      );
    const stormProbe = probeRest(http, token, 50);
    const overflowsBefore = listenOverflows();
    const stormCpuBefore = processCpuMs(pid);
    const stormSysBefore = systemCpuMs(pid);
    const stormMainBefore = mainThreadCpuMs(pid);
    const stormWaitBefore = mainThreadWaitMs(pid);
    const loadCpuBefore = loadChildren.map((c) => processCpuMs(c.child.pid) ?? NaN);
    for (const c of loadChildren) c.send({ cmd: 'connect' });
    const connected = await Promise.all(loadChildren.map((c) => c.next('connected')));
    const connectStormS = Math.max(...connected.map((r) => r.lastMs)) / 1000;
    const stormCpuMs = (processCpuMs(pid) ?? NaN) - (stormCpuBefore ?? NaN);
    const stormSysMs = systemCpuMs(pid) - stormSysBefore;
    const stormMainMs = mainThreadCpuMs(pid) - stormMainBefore;
    const stormWaitMs = mainThreadWaitMs(pid) - stormWaitBefore;
    const loadCpuMs = loadChildren.reduce(
      (sum, c, i) => sum + (processCpuMs(c.child.pid) ?? NaN) - loadCpuBefore[i]!,
      0,
    );
    const storm = await stormProbe.stop();
    const stormListenOverflows = listenOverflows() - overflowsBefore;
    const connections = connected.reduce((n, r) => n + r.ok, 0);
    const refused = connected.reduce((n, r) => n + r.refused, 0);
    const errors = connected.flatMap((r) => r.errors);
    if (connected.some((r) => r.emfile))
      console.log('load processes hit EMFILE: the open-file limit (ulimit -n), not Sandboard, is the bound');

    const publishCpuBefore = processCpuMs(pid);
    for (const c of loadChildren) c.send({ cmd: 'publish', spreadMs: PUBLISH_SPREAD_MS });
    const published = await Promise.all(loadChildren.map((c) => c.next('published')));
    const pubacks = published.flatMap((r) => r.latencies);
    const publishCpuMs = (processCpuMs(pid) ?? NaN) - (publishCpuBefore ?? NaN);
    const publishFailed = published.reduce((n, r) => n + r.failed, 0);
    const rssMB = rssOf(pid);
    for (const c of loadChildren) c.send({ cmd: 'end' });
    await Promise.all(loadChildren.map((c) => c.next('ended')));
    loadChildren.length = 0;
    console.log(
      `direct phase: ${connections} connected, ${refused} refused, storm ${connectStormS.toFixed(1)} s, ` +
        `REST p99 ${percentile(storm.latencies, 99).toFixed(0)} ms, PUBACK p99 ${percentile(pubacks, 99).toFixed(0)} ms`,
    );

    // gateway phase
    const gateways = Array.from({ length: GATEWAYS }, (_, g) => ({
      token: `fleet-gw-${g}`,
      prefix: `FGW${g}`,
    }));
    for (const [g, gw] of gateways.entries())
      await http(`/api/device?accessToken=${gw.token}`, {
        method: 'POST',
        token,
        body: JSON.stringify({ name: `Fleet Gateway ${g}`, additionalInfo: { gateway: true } }),
      });
    const gwChildren: LoadChild[] = [];
    for (const slice of split(gateways, Math.min(PROCS, GATEWAYS)))
      gwChildren.push(
        await startLoadChild({
          mode: 'gateway',
          url: serve.urls.mqtt,
          gateways: slice,
          devicesPerGateway: GATEWAY_DEVICES,
          window: 8,
        }),
      );
    loadChildren.push(...gwChildren);
    const creationRest = probeRest(http, token, 50);
    const connectProbe = probeConnect(serve.urls.mqtt, tokens[0] ?? 'fleet-gw-0');
    const gwStart = performance.now();
    const creationCpuBefore = processCpuMs(pid);
    for (const c of gwChildren) c.send({ cmd: 'connect' });
    const gwConnected = await Promise.all(gwChildren.map((c) => c.next('connected')));
    const gatewayCreateS = (performance.now() - gwStart) / 1000;
    const creationCpuMs = (processCpuMs(pid) ?? NaN) - (creationCpuBefore ?? NaN);
    const creation = await creationRest.stop();
    const duringCreation = await connectProbe.stop();
    for (const c of gwChildren) c.send({ cmd: 'publish', spreadMs: 0 });
    const gwPublished = await Promise.all(gwChildren.map((c) => c.next('published')));
    const gatewayRefused = gwConnected.reduce((n, r) => n + r.refused, 0);
    const gwPubacks = gwPublished.flatMap((r) => r.latencies);

    const list = await http<{ totalElements: number }>('/api/tenant/deviceInfos?pageSize=1&page=0', {
      token,
    });
    const gatewayDevices = list.totalElements - DEVICES - GATEWAYS;
    const deviceListMs = await timedMedian(() =>
      http('/api/tenant/deviceInfos?pageSize=20&page=0&sortProperty=createdTime&sortOrder=DESC', { token }),
    );
    const deviceListNameMs = await timedMedian(() =>
      http('/api/tenant/deviceInfos?pageSize=20&page=0&sortProperty=name&sortOrder=ASC', { token }),
    );
    const deviceSearchMs = await timedMedian(() =>
      http('/api/tenant/deviceInfos?pageSize=20&page=0&textSearch=FGW7%20Device%2099', { token }),
    );
    const gatewayRssMB = rssOf(pid);
    const gatewayMemory = processMemory(pid);
    const gatewayHeap = (await http<EventLoopDelay>('/api/sandboard/eventLoop', { token })).memory;
    // the fleet stays connected and quiet: what serve holds once the burst is over
    await sleep(SETTLE_MS);
    const gatewaySettledRssMB = rssOf(pid);
    for (const c of gwChildren) c.send({ cmd: 'end' });
    await Promise.all(gwChildren.map((c) => c.next('ended')));
    loadChildren.length = 0;

    const idleP99 = percentile(idle.latencies, 99);
    const restDuringStormMs = percentile(storm.latencies, 99);
    const result = {
      connections,
      refused,
      connectStormS,
      stormListenOverflows,
      serveCpuPerConnectMs: stormCpuMs / Math.max(1, connections),
      serveSystemCpuPerConnectMs: stormSysMs / Math.max(1, connections),
      serveMainThreadCpuPerConnectMs: stormMainMs / Math.max(1, connections),
      serveMainThreadWaitS: stormWaitMs / 1000,
      loadCpuPerConnectMs: loadCpuMs / Math.max(1, connections),
      serveCpuPerPublishMs: publishCpuMs / Math.max(1, pubacks.length),
      restDuringStormMs,
      restDuringStormMaxMs: Math.max(...storm.latencies),
      restDuringStormCalls: storm.latencies.length,
      restIdleP99Ms: idleP99,
      restStormRatio: restDuringStormMs / idleP99,
      pubackP99Ms: percentile(pubacks, 99),
      publishFailed,
      rssMB,
      gatewayDevices,
      gatewayRefused,
      gatewayCreateS,
      serveCpuPerGatewayDeviceMs: creationCpuMs / Math.max(1, GATEWAYS * GATEWAY_DEVICES),
      gatewayPubackP99Ms: percentile(gwPubacks, 99),
      restDuringCreationP99Ms: percentile(creation.latencies, 99),
      connectDuringCreationMs: duringCreation.times.length ? Math.max(...duringCreation.times) : Number.NaN,
      connectDuringCreationFailed: duringCreation.failures,
      gatewayRssMB,
      gatewayHeapMB: gatewayHeap?.heapTotalMB ?? Number.NaN,
      gatewayHeapUsedMB: gatewayHeap?.heapUsedMB ?? Number.NaN,
      gatewayWasmMB: gatewayMemory.wasmMB.reduce((a, b) => a + b, 0),
      gatewayOtherAnonymousMB: gatewayMemory.otherAnonymousMB,
      gatewaySettledRssMB,
      deviceListMs,
      deviceListNameMs,
      deviceSearchMs,
    };
    printFigures({
      'direct devices created (bulk import)': [createS, 's'],
      connections,
      refused,
      'connect storm': [connectStormS, `s (target <= ${TARGETS.connectStormS})`],
      'listen queue overflows during the storm (machine-wide)': stormListenOverflows,
      'waited for TIME_WAIT sockets before the storm': [timeWaitS, 's'],
      'serve CPU per connection (storm CPU / connections)': [result.serveCpuPerConnectMs, 'ms'],
      '  of which in the kernel': [result.serveSystemCpuPerConnectMs, 'ms'],
      '  of which on the main thread': [result.serveMainThreadCpuPerConnectMs, 'ms'],
      'serve main thread runnable but waiting for a core during the storm': [
        result.serveMainThreadWaitS,
        's',
      ],
      'load processes CPU per connection (the MQTT clients)': [result.loadCpuPerConnectMs, 'ms'],
      'serve CPU per publish (QoS 1, during the spread)': [result.serveCpuPerPublishMs, 'ms'],
      'REST p99 during the storm': [
        restDuringStormMs,
        `ms over ${storm.latencies.length} calls (target <= ${TARGETS.restDuringStormMs})`,
      ],
      'REST max during the storm': [result.restDuringStormMaxMs, 'ms'],
      'REST p99 idle (baseline)': [idleP99, 'ms'],
      'REST storm/idle ratio': result.restStormRatio,
      'PUBACK p99': [result.pubackP99Ms, `ms (target <= ${TARGETS.pubackP99Ms})`],
      'serve RSS with the fleet': [rssMB, 'MB'],
      'gateway devices': gatewayDevices,
      'gateway devices created in': [gatewayCreateS, 's'],
      'serve CPU per gateway device created': [result.serveCpuPerGatewayDeviceMs, 'ms'],
      'REST p99 during creation': [result.restDuringCreationP99Ms, 'ms'],
      'longest direct CONNECT during creation': [result.connectDuringCreationMs, 'ms'],
      'serve RSS with the gateways': [gatewayRssMB, `MB (target <= ${TARGETS.gatewayRssMB})`],
      "  of which the network thread's V8 heap": [
        result.gatewayHeapMB,
        `MB (${result.gatewayHeapUsedMB} MB in use, garbage included)`,
      ],
      '  of which WebAssembly memories (sql.js)': [
        result.gatewayWasmMB,
        `MB [${gatewayMemory.wasmMB.map((m) => m.toFixed(0)).join(', ')}]`,
      ],
      '  anonymous memory besides (all V8 heaps, array buffers, malloc; the heap above included)': [
        result.gatewayOtherAnonymousMB,
        `MB; threads: ${gatewayMemory.threads}`,
      ],
      [`serve RSS once the connected fleet was quiet ${SETTLE_MS / 1000} s`]: [gatewaySettledRssMB, 'MB'],
      'device list (newest first)': [deviceListMs, `ms median (target <= ${TARGETS.deviceListMs})`],
      'device list (by name)': [deviceListNameMs, 'ms median'],
      'device search': [deviceSearchMs, `ms median (target <= ${TARGETS.deviceListMs})`],
      'load average': loadavg()
        .map((l) => l.toFixed(2))
        .join(' '),
    });
    if (errors.length) console.log(`connect errors: ${errors.join('; ')}`);
    printBench({ name: 'fleet', ...result, openFileLimit: fdLimit });
  } finally {
    for (const c of loadChildren) c.child.kill('SIGKILL');
    serve.child.kill('SIGTERM');
    await once(serve.child, 'exit');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
