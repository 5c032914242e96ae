// npm run bench:rest — the gateway REST connector end to end: autocannon POSTs JSON with basic auth to a
// json endpoint of a connector started in `sandboard serve` (the app's REST Connector, in a worker thread
// of its own), each 200 given after the platform's PUBACK; datapoints counted in the platform's store
// afterwards. Then the same with the connector as a process of its own (`sandboard gateway`), and that
// process before a bare MQTT broker that stores nothing (the connector's own cost). Baseline in the same
// run: a bare Fastify POST route, in its own process too.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startBareFastify } from './lib/bare-fastify-child.ts';
import { startGatewayChild } from './lib/gateway-child.ts';
import { printBench, printFigures } from './lib/bench-output.ts';
import { threadTimes, type ThreadTimes } from './lib/proc-cpu.ts';
import { startRawAedes } from './lib/raw-aedes.ts';
import { startServeChild } from './lib/serve-child.ts';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
/**
 * The baseline and the connector in the app take turns, this many times (DURATION_S / ROUNDS each): the
 * machine's speed drifts from one minute to the next, and each round's ratio is taken in the same minute.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** unmeasured load first, so that the JIT (and sql.js's WebAssembly) has tiered up on both sides */
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 3);
const DEVICES = 10;
const AUTH = `Basic ${Buffer.from('bench:bench-secret').toString('base64')}`;

const CONFIG = {
  server: { host: '127.0.0.1', port: 0 },
  mapping: [
    {
      endpoint: '/bench',
      HTTPMethods: ['POST'],
      security: { type: 'basic', username: 'bench', password: 'bench-secret' },
      converter: {
        type: 'json',
        deviceInfo: { deviceNameExpression: '${sensorName}', deviceProfileExpression: '${sensorType}' },
        timeseries: [
          { type: 'double', key: 'temperature', value: '${temp}' },
          { type: 'double', key: 'humidity', value: '${hum}' },
        ],
      },
    },
  ],
};

async function load(url: string, body: () => string, duration = DURATION_S, connections = CONNECTIONS) {
  const result = await autocannon({
    url,
    connections,
    duration,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: AUTH },
        setupRequest: (req) => ({ ...req, body: body() }),
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  }
  // requests over the time autocannon really ran (its per-second average drops a partial last second)
  return {
    reqPerSec: result.requests.total / result.duration,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    seconds: result.duration,
  };
}

/** percent of the machine's cores that CPU per request at a rate keeps busy */
const busy = (cpuUsPerRequest: number, reqPerSec: number) =>
  Math.round((cpuUsPerRequest * reqPerSec) / 1e4 / availableParallelism());

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** What each part of the system under test and the load generator have spent so far; null without /proc. */
type Parts = () => Map<string, ThreadTimes> | null;
const AUTOCANNON = 'autocannon (the load)';

/** A system's parts, and autocannon (it runs in this process). */
function withLoad(system: () => Map<string, ThreadTimes> | null): Parts {
  return () => {
    const parts = system();
    const load = threadTimes(process.pid, () => AUTOCANNON);
    return parts && load ? new Map([...parts, ...load]) : null;
  };
}

/** load(), and what each part of the system and the load generator spent meanwhile (ms). */
async function loadWithCpu(url: string, body: () => string, parts: Parts) {
  const before = parts();
  const result = await load(url, body, DURATION_S / ROUNDS);
  const after = parts();
  if (!before || !after) return { ...result, spent: null };
  const spent = new Map<string, ThreadTimes>();
  for (const [part, t] of after) {
    const b = before.get(part) ?? { cpuMs: 0, waitMs: 0 };
    spent.set(part, { cpuMs: t.cpuMs - b.cpuMs, waitMs: t.waitMs - b.waitMs });
  }
  return { ...result, spent };
}

/** µs per answered request by part, over several rounds, and their total; null without /proc. */
function perRequest(
  runs: { total: number; spent: Map<string, ThreadTimes> | null }[],
  of: keyof ThreadTimes,
) {
  if (runs.some((r) => !r.spent)) return null;
  const requests = runs.reduce((t, r) => t + r.total, 0);
  const perPart = new Map<string, number>();
  for (const r of runs) for (const [part, t] of r.spent!) perPart.set(part, (perPart.get(part) ?? 0) + t[of]);
  for (const [part, ms] of perPart) perPart.set(part, (ms * 1000) / requests);
  const total = [...perPart.values()].reduce((t, us) => t + us, 0);
  if (Number.isNaN(total)) return null;
  const text = [...perPart].map(([part, us]) => `${part} ${Math.round(us)}`).join(', ');
  return { total, text: `${text}; total ${Math.round(total)}` };
}

const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-bench-rest-'));

/** fn against `sandboard gateway` (a process of its own) on a platform; the process is stopped whatever fn does. */
async function withGatewayChild<T>(platformUrl: string, token: string, fn: (url: string) => Promise<T>) {
  const gateway = await startGatewayChild(dataDir, CONFIG, platformUrl, token);
  try {
    return await fn(gateway.url);
  } finally {
    await gateway.stop();
  }
}

const serve = await startServeChild(dataDir);
const bare = await startBareFastify();
try {
  const api = async <T>(method: string, path: string, token: string | null, json?: unknown): Promise<T> => {
    const res = await fetch(`${serve.urls.http}${path}`, {
      method,
      headers: {
        ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { 'x-authorization': `Bearer ${token}` } : {}),
      },
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const { token } = await api<{ token: string }>('POST', '/api/auth/login', null, {
    username: 'tenant@thingsboard.org',
    password: 'tenant',
  });
  const connector = await api<{ id: string }>('POST', '/api/sandboard/restConnectors', token, {
    name: 'Bench',
    config: CONFIG,
  });
  const started = await api<{ baseUrl: string }>(
    'POST',
    `/api/sandboard/restConnectors/${connector.id}/start`,
    token,
  );

  // the same connector as a process of its own: `sandboard gateway` with a gateway device's token
  const gatewayDevice = await api<{ id: { id: string } }>('POST', '/api/device', token, {
    name: 'Bench CLI gateway',
    additionalInfo: { gateway: true },
  });
  const { credentialsId } = await api<{ credentialsId: string }>(
    'GET',
    `/api/device/${gatewayDevice.id.id}/credentials`,
    token,
  );

  // every request its own timestamp, so that no datapoint overwrites another in the store
  let t0 = Date.now() - 86_400_000;
  let prefix = 'Bench';
  let n = 0;
  const body = () => {
    n++;
    return `{"sensorName":"${prefix} ${n % DEVICES}","sensorType":"bench","temp":${20 + (n % 100) / 10},"hum":${n % 90},"ts":${t0 + n}}`;
  };
  /** What the platform stored: COUNT over the run's timestamps, per device and key. */
  const countStored = async () => {
    let stored = 0;
    for (let d = 0; d < DEVICES; d++) {
      const device = await api<{ id: { id: string } }>(
        'GET',
        `/api/tenant/devices?deviceName=${encodeURIComponent(`${prefix} ${d}`)}`,
        token,
      );
      const counts = await api<Record<string, { value: string | number }[]>>(
        'GET',
        `/api/plugins/telemetry/DEVICE/${device.id.id}/values/timeseries?keys=temperature,humidity` +
          `&startTs=${t0}&endTs=${t0 + n + 1}&agg=COUNT&interval=${n + 1}&limit=10`,
        token,
      );
      for (const points of Object.values(counts)) for (const p of points) stored += Number(p.value);
    }
    return stored;
  };

  console.log(
    `autocannon, ${CONNECTIONS} connections, ${DURATION_S} s each after ${WARMUP_S} s unmeasured (baseline and ` +
      `connector in the app taking turns, ${ROUNDS} rounds); POST JSON with basic auth; ` +
      'serve (with the connector), sandboard gateway and the baseline in their own processes',
  );
  // other work on the machine moves every figure; the ratio is measured in the same conditions
  printFigures({ 'load average (1 min) at start': [loadavg()[0]!, `on ${availableParallelism()} cores`] });
  await load(`${bare.url}/bare`, body, WARMUP_S);
  prefix = 'Warm-up';
  await load(`${started.baseUrl}/bench`, body, WARMUP_S);
  prefix = 'Bench';
  n = 0;
  const serveParts = withLoad(() =>
    threadTimes(serve.child.pid, (thread) =>
      thread === 'MainThread'
        ? 'platform main thread'
        : thread.startsWith('gateway ')
          ? 'connector thread'
          : 'other threads of serve',
    ),
  );
  const bareParts = withLoad(() => threadTimes(bare.pid, () => 'bare Fastify'));
  type Round = Awaited<ReturnType<typeof loadWithCpu>>;
  const rounds: { bare: Round; rest: Round }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const bareRound = await loadWithCpu(`${bare.url}/bare`, body, bareParts);
    rounds.push({ bare: bareRound, rest: await loadWithCpu(`${started.baseUrl}/bench`, body, serveParts) });
  }
  const restRuns = rounds.map((r) => r.rest);
  const bareRuns = rounds.map((r) => r.bare);
  const restCpu = perRequest(restRuns, 'cpuMs');
  const bareCpu = perRequest(bareRuns, 'cpuMs');
  // what the ratio would be if the connector run kept the cores as busy as the baseline does
  const cpuRatio = restCpu && bareCpu ? bareCpu.total / restCpu.total : null;
  const restWait = perRequest(restRuns, 'waitMs');
  const bareWait = perRequest(bareRuns, 'waitMs');
  const sum = (pick: (r: (typeof rounds)[number]) => number) => rounds.reduce((t, r) => t + pick(r), 0);
  const baseline = { reqPerSec: sum((r) => r.bare.total) / sum((r) => r.bare.seconds) };
  const rest = {
    reqPerSec: sum((r) => r.rest.total) / sum((r) => r.rest.seconds),
    p99Ms: Math.max(...rounds.map((r) => r.rest.p99Ms)),
    total: sum((r) => r.rest.total),
    seconds: sum((r) => r.rest.seconds),
  };
  const stored = await countStored();
  // each 200 waits for a PUBACK, which waits for an fsync: with more requests in flight, more share one
  prefix = 'Bench x2';
  const doubled = await load(`${started.baseUrl}/bench`, body, DURATION_S, 2 * CONNECTIONS);
  const datapointsPerSec = stored / rest.seconds;
  const ratio = median(rounds.map((r) => r.rest.reqPerSec / r.bare.reqPerSec));
  if (stored < 2 * rest.total)
    console.log(`WARNING: ${2 * rest.total} datapoints acknowledged, ${stored} stored`);

  const separate = await withGatewayChild(serve.urls.mqtt, credentialsId, async (url) => {
    prefix = 'CLI Warm-up';
    await load(`${url}/bench`, body, WARMUP_S);
    prefix = 'CLI Bench';
    t0 += 10_000_000;
    n = 0;
    return load(`${url}/bench`, body);
  });
  const storedSeparate = await countStored();
  if (storedSeparate < 2 * separate.total)
    console.log(`WARNING: ${2 * separate.total} datapoints acknowledged, ${storedSeparate} stored`);

  // What the connector costs by itself: `sandboard gateway` in front of a bare aedes broker, which
  // PUBACKs at once and stores nothing, against the baseline in the same minute. The gap between this
  // and the runs above is the platform's durable write (rule engine, sql.js, journal, fsync).
  const broker = await startRawAedes();
  const { unstored, unstoredBare } = await withGatewayChild(broker.url, 'any token', async (url) => {
    await load(`${url}/bench`, body, WARMUP_S);
    const unstoredBare = await load(`${bare.url}/bare`, body, DURATION_S / ROUNDS);
    return { unstoredBare, unstored: await load(`${url}/bench`, body, DURATION_S / ROUNDS) };
  }).finally(() => broker.stop());
  const unstoredRatio = unstored.reqPerSec / unstoredBare.reqPerSec;

  printFigures({
    'bare Fastify POST': [baseline.reqPerSec, 'req/s'],
    'REST connector in the app, POST stored in the platform': [rest.reqPerSec, 'req/s'],
    'REST connector in the app, latency p99': [rest.p99Ms, 'ms'],
    'REST connector in the app, datapoints stored': [stored, `(2 per request, ${rest.total} answered 200)`],
    'REST connector in the app, datapoints stored per second': [datapointsPerSec, 'dp/s'],
    [`REST connector in the app, ${2 * CONNECTIONS} connections`]: [
      doubled.reqPerSec,
      `req/s (p99 ${doubled.p99Ms} ms)`,
    ],
    'sandboard gateway (own process), POST stored in the platform': [separate.reqPerSec, 'req/s'],
    'sandboard gateway (own process), latency p99': [separate.p99Ms, 'ms'],
    'sandboard gateway (own process), datapoints stored per second': [
      storedSeparate / separate.seconds,
      'dp/s',
    ],
    'sandboard gateway before a bare MQTT broker (PUBACK at once, nothing stored)': [
      unstored.reqPerSec,
      `req/s, ${unstoredRatio.toFixed(3)} of bare Fastify in the same minute (${Math.round(unstoredBare.reqPerSec).toLocaleString('en-US')} req/s)`,
    ],
    'rounds (bare / connector in the app, req/s)': rounds
      .map((r) => `${Math.round(r.bare.reqPerSec)} / ${Math.round(r.rest.reqPerSec)}`)
      .join(', '),
    'ratio by round': rounds.map((r) => (r.rest.reqPerSec / r.bare.reqPerSec).toFixed(3)).join(', '),
    'ratio connector in the app / bare, median of the rounds (target >= 0.5)': ratio,
    // on this machine's cores, CPU per request bounds the rate whatever the latency
    ...(restCpu && bareCpu
      ? {
          'CPU per request, connector in the app (µs)': restCpu.text,
          'CPU per request, bare Fastify (µs)': bareCpu.text,
          [`bound set by CPU alone on ${availableParallelism()} cores, connector in the app`]: [
            (availableParallelism() * 1e6) / restCpu.total,
            'req/s',
          ],
          'cores busy, connector in the app / bare Fastify (%)': [
            busy(restCpu.total, rest.reqPerSec),
            `/ ${busy(bareCpu.total, baseline.reqPerSec)}`,
          ],
          'ratio with the cores equally busy (bare CPU per request / connector in the app)': cpuRatio!,
        }
      : { 'CPU per request': 'not measured (no /proc on this system)' }),
    // threads ready to run but waiting for a core: each wait on a request's path adds to its latency
    ...(restWait && bareWait
      ? {
          'waiting for a core per request, connector in the app (µs)': restWait.text,
          'waiting for a core per request, bare Fastify (µs)': bareWait.text,
        }
      : { 'waiting for a core': 'not measured (no scheduler statistics in /proc on this system)' }),
  });
  printBench({
    name: 'rest',
    reqPerSec: rest.reqPerSec,
    p99Ms: rest.p99Ms,
    datapointsPerSec,
    ratio,
    gatewayProcessReqPerSec: separate.reqPerSec,
    gatewayProcessRatio: separate.reqPerSec / baseline.reqPerSec,
    unstoredReqPerSec: unstored.reqPerSec,
    unstoredRatio,
    cpuUsPerRequest: restCpu?.total ?? null,
    bareCpuUsPerRequest: bareCpu?.total ?? null,
    cpuRatio,
    waitUsPerRequest: restWait?.total ?? null,
    bareWaitUsPerRequest: bareWait?.total ?? null,
  });
} finally {
  await serve.stop();
  await bare.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
