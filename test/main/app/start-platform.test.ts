import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { configFromEnv } from '../../../main/config.ts';
import { startPlatform } from '../../../main/app/start-platform.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'sb-stop-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const workerHandles = () =>
  process.getActiveResourcesInfo().filter((r) => r === 'MessagePort' || r === 'Worker').length;

it('a platform that loaded every shipped sandbox leaves no worker running after stop(), so its process can exit', async () => {
  const before = workerHandles();
  const platform = await startPlatform({
    ...configFromEnv({}),
    dataDir,
    httpPort: 0,
    mqttPort: 0,
    analyticsPort: 0,
    logLevel: 'silent',
  });
  const base = platform.urls.http;
  const post = async (path: string, body: unknown, token?: string) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { 'x-authorization': `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });
    expect(res.status, path).toBe(200);
    return (await res.json()) as { token: string };
  };
  const { token } = await post('/api/auth/login', { username: 'tenant@thingsboard.org', password: 'tenant' });
  const shipped = (await fetch(`${base}/api/sandboard/sandboxes/shipped`, {
    headers: { 'x-authorization': `Bearer ${token}` },
  }).then((r) => r.json())) as { data: { id: string }[] };
  expect(shipped.data.length).toBeGreaterThan(0);
  for (const { id } of shipped.data) await post(`/api/sandboard/sandboxes/shipped/${id}/load`, {}, token);
  await platform.stop();
  expect(workerHandles()).toBe(before);
}, 120_000);
