// npm run bench:api — authenticated GET /api/auth/user (JWT and API key) against a bare Fastify route.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startBareFastify } from './lib/bare-fastify-child.ts';
import { printBench, printFigures } from './lib/bench-output.ts';
import { startServeChild } from './lib/serve-child.ts';

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);

async function load(url: string, headers: Record<string, string> = {}) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  }
  return { reqPerSec: result.requests.average, p99Ms: result.latency.p99 };
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
    `autocannon, ${CONNECTIONS} connections, ${DURATION_S} s each; server and baseline in their own processes`,
  );
  const baseline = await load(`${bare.url}/bare`);
  const jwt = await load(`${serve.urls.http}/api/auth/user`, { 'x-authorization': `Bearer ${token}` });
  const key = await load(`${serve.urls.http}/api/auth/user`, { 'x-authorization': `ApiKey ${apiKey}` });
  const ratio = jwt.reqPerSec / baseline.reqPerSec;
  const apiKeyToJwtRatio = key.reqPerSec / jwt.reqPerSec;
  printFigures({
    'bare Fastify GET': [baseline.reqPerSec, 'req/s'],
    'GET /api/auth/user with JWT': [jwt.reqPerSec, 'req/s'],
    'GET /api/auth/user with API key': [key.reqPerSec, 'req/s'],
    'JWT latency p99': [jwt.p99Ms, 'ms'],
    'API key latency p99': [key.p99Ms, 'ms'],
    'ratio JWT / bare (target >= 0.6)': ratio,
    'ratio API key / JWT (target >= 0.9)': apiKeyToJwtRatio,
  });
  printBench({
    name: 'api',
    reqPerSec: jwt.reqPerSec,
    ratio,
    apiKeyToJwtRatio,
    apiKeyReqPerSec: key.reqPerSec,
  });
} finally {
  await serve.stop();
  await bare.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
