// Each REST connector of the app runs in a worker thread of its own: its converters cannot stall the
// platform, and a thread that dies takes only its connector down, which then shows why.
import { existsSync, mkdirSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const BASE = '/api/sandboard/restConnectors';

/** A custom converter module in <data dir>/converters. */
function converter(dataDir: string, name: string, convertBody: string): void {
  mkdirSync(join(dataDir, 'converters'), { recursive: true });
  writeFileSync(
    join(dataDir, 'converters', `${name}.mjs`),
    `import { existsSync, writeFileSync } from 'node:fs';\n` +
      `export class ${name} {\n  convert(data) {\n${convertBody}\n  }\n}\n`,
  );
}

const config = (extension: string) => ({
  server: { host: '127.0.0.1', port: 0 },
  mapping: [
    {
      endpoint: '/data',
      HTTPMethods: ['POST'],
      security: { type: 'anonymous' },
      converter: { type: 'custom', extension },
    },
  ],
});

function fileAppears(path: string): Promise<void> {
  return new Promise((resolve) => {
    const dir = join(path, '..');
    const watcher = watch(dir, () => {
      if (existsSync(path)) {
        watcher.close();
        resolve();
      }
    });
    if (existsSync(path)) {
      watcher.close();
      resolve();
    }
  });
}

async function setup() {
  const dataDir = tempDir();
  const platform = await startTestPlatform({ dataDir });
  const token = await platform.login();
  const call = async <T = Record<string, unknown>>(method: string, path: string, json?: unknown) => {
    const res = await platform.http(path, { method, token, ...(json !== undefined ? { json } : {}) });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
  return { dataDir, platform, call };
}

describe('REST connectors in worker threads', () => {
  it('a converter that blocks its thread leaves the platform answering', async () => {
    const { dataDir, call } = await setup();
    const blocking = join(dataDir, 'blocking');
    const release = join(dataDir, 'release');
    converter(
      dataDir,
      'Blocker',
      `    writeFileSync(${JSON.stringify(blocking)}, '');\n` +
        `    while (!existsSync(${JSON.stringify(release)})) {}\n` +
        `    return { deviceName: 'Blocked', deviceType: 'default', telemetry: { t: data.t } };`,
    );
    const { body: created } = await call<{ id: string }>('POST', BASE, {
      name: 'Blocking',
      config: config('Blocker'),
    });
    const { body: started } = await call<{ baseUrl: string }>('POST', `${BASE}/${created.id}/start`);
    const answer = fetch(`${started.baseUrl}/data`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"t":1}',
    });
    await fileAppears(blocking);

    // the connector's thread spins; the platform, its broker and the connector's page still answer
    const devices = await call<{ totalElements: number }>('GET', '/api/tenant/devices?pageSize=10&page=0');
    expect(devices.status).toBe(200);
    const shown = await call<{ state: string }>('GET', `${BASE}/${created.id}`);
    expect(shown.body.state).toBe('running');

    writeFileSync(release, '');
    const res = await answer;
    expect(await res.text()).toBe('');
    expect(res.status).toBe(200);
    const log = await call<{ device: string; status: number }[]>('GET', `${BASE}/${created.id}/requests`);
    expect(log.body[0]).toMatchObject({ device: 'Blocked', status: 200 });
  });

  it('a converter that ends its thread: the connector shows failed with the reason and starts again', async () => {
    const { dataDir, call } = await setup();
    converter(dataDir, 'Quitter', '    process.exit(7);');
    const { body: created } = await call<{ id: string }>('POST', BASE, {
      name: 'Quitting',
      config: config('Quitter'),
    });
    const { body: started } = await call<{ baseUrl: string }>('POST', `${BASE}/${created.id}/start`);
    const answer = await fetch(`${started.baseUrl}/data`, { method: 'POST', body: '{"t":1}' }).then(
      (res) => res.status,
      (err: Error) => err.message,
    );
    expect(answer).toBe('fetch failed'); // the connection closed with the thread

    let shown = await call<{ state: string; lastError: string | null; baseUrl: string | null }>(
      'GET',
      `${BASE}/${created.id}`,
    );
    // the thread's exit reaches the manager through an event; wait for it without a timer
    while (shown.body.state === 'running') {
      await new Promise((resolve) => setImmediate(resolve));
      shown = await call('GET', `${BASE}/${created.id}`);
    }
    expect(shown.body).toMatchObject({
      state: 'failed',
      baseUrl: null,
      lastError: "the connector's thread exited (code 7)",
    });

    // the platform is untouched, and the connector can be started again
    expect((await call('GET', '/api/auth/user')).status).toBe(200);
    const again = await call<{ state: string; lastError: string | null }>(
      'POST',
      `${BASE}/${created.id}/start`,
    );
    expect(again.body).toMatchObject({ state: 'running', lastError: null });
    await call('POST', `${BASE}/${created.id}/stop`);
  });
});
