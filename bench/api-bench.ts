// npm run bench:api — authenticated GET /api/auth/user (JWT and API key) against a bare Fastify route.
// The three take turns, BENCH_ROUNDS times (BENCH_DURATION_S each in all): the machine's speed drifts
// from one minute to the next, so each ratio is the median of the rounds' ratios, each taken in one minute.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startBareFastify } from './lib/bare-fastify-child.ts';
import { printBench, printFigures } from './lib/bench-output.ts';
import { processCpuMs } from './lib/proc-cpu.ts';
import { startServeChild } from './lib/serve-child.ts';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** One load; cpuUsPerReq is the serving process's CPU per request (steadier than req/s on a shared machine). */
async function load(url: string, pid: number | undefined, headers: Record<string, string> = {}) {
  const duration = Math.max(1, Math.round(DURATION_S / ROUNDS));
  const cpuBefore = processCpuMs(pid) ?? Number.NaN;
  const result = await autocannon({ url, connections: CONNECTIONS, duration, headers });
  const cpuUsPerReq = (((processCpuMs(pid) ?? Number.NaN) - cpuBefore) * 1000) / result.requests.total;
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  }
  return { reqPerSec: result.requests.average, p99Ms: result.latency.p99, cpuUsPerReq };
}

const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-bench-api-'));
const serve = await startServeChild(dataDir);
const bare = await startBareFastify();
try {
  const login = await fetch(`${serve.urls.http}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'tenant@thingsboard.org', password: 'tenant' }),
  });
  const { token } = (await login.json()) as { token: string };
  const created = await fetch(`${serve.urls.http}/api/apiKey`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-authorization': `Bearer ${token}` },
    body: JSON.stringify({ description: 'bench' }),
  });
  const { value: apiKey } = (await created.json()) as { value: string };

  console.log(
    `autocannon, ${CONNECTIONS} connections; bare Fastify, JWT and API key take turns, ${ROUNDS} rounds of ` +
      `${Math.max(1, Math.round(DURATION_S / ROUNDS))} s each; server and baseline in their own processes`,
  );
  const rounds: {
    baseline: Awaited<ReturnType<typeof load>>;
    jwt: Awaited<ReturnType<typeof load>>;
    key: Awaited<ReturnType<typeof load>>;
  }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const baseline = await load(`${bare.url}/bare`, bare.pid);
    const jwt = await load(`${serve.urls.http}/api/auth/user`, serve.child.pid, {
      'x-authorization': `Bearer ${token}`,
    });
    const key = await load(`${serve.urls.http}/api/auth/user`, serve.child.pid, {
      'x-authorization': `ApiKey ${apiKey}`,
    });
    rounds.push({ baseline, jwt, key });
  }
  const ratio = median(rounds.map((r) => r.jwt.reqPerSec / r.baseline.reqPerSec));
  const apiKeyToJwtRatio = median(rounds.map((r) => r.key.reqPerSec / r.jwt.reqPerSec));
  // CPU per request: what the ratios would be with a core each, whatever else runs on the machine
  const cpuRatio = median(rounds.map((r) => r.baseline.cpuUsPerReq / r.jwt.cpuUsPerReq));
  const apiKeyToJwtCpuRatio = median(rounds.map((r) => r.jwt.cpuUsPerReq / r.key.cpuUsPerReq));
  const med = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick));
  printFigures({
    'bare Fastify GET (median)': [med((r) => r.baseline.reqPerSec), 'req/s'],
    'GET /api/auth/user with JWT (median)': [med((r) => r.jwt.reqPerSec), 'req/s'],
    'GET /api/auth/user with API key (median)': [med((r) => r.key.reqPerSec), 'req/s'],
    'JWT latency p99 (median)': [med((r) => r.jwt.p99Ms), 'ms'],
    'API key latency p99 (median)': [med((r) => r.key.p99Ms), 'ms'],
    'ratio JWT / bare by round': rounds
      .map((r) => (r.jwt.reqPerSec / r.baseline.reqPerSec).toFixed(3))
      .join(', '),
    'ratio API key / JWT by round': rounds
      .map((r) => (r.key.reqPerSec / r.jwt.reqPerSec).toFixed(3))
      .join(', '),
    'server CPU per request, bare / JWT / API key (median, µs)': [
      [med((r) => r.baseline.cpuUsPerReq), med((r) => r.jwt.cpuUsPerReq), med((r) => r.key.cpuUsPerReq)]
        .map((x) => x.toFixed(0))
        .join(' / '),
      'µs',
    ],
    'ratio by CPU per request, JWT / bare (bare CPU per request / JWT)': cpuRatio,
    'ratio by CPU per request, API key / JWT': apiKeyToJwtCpuRatio,
    'ratio JWT / bare, median of the rounds (target >= 0.6)': ratio,
    'ratio API key / JWT, median of the rounds (target >= 0.9)': apiKeyToJwtRatio,
    'load average (other processes share the CPUs)': loadavg()[0]!.toFixed(1),
  });
  printBench({
    name: 'api',
    reqPerSec: med((r) => r.jwt.reqPerSec),
    ratio,
    apiKeyToJwtRatio,
    apiKeyReqPerSec: med((r) => r.key.reqPerSec),
    cpuRatio,
    apiKeyToJwtCpuRatio,
    rounds: ROUNDS,
    loadAverage: loadavg()[0]!,
  });
} finally {
  await serve.stop();
  await bare.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
