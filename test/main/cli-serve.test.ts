import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { parseServeArgs } from '../../main/cli.ts';
import { lockDataDir } from '../../main/store/data-dir-lock.ts';
import { runServeExpectingExit, SANDBOARD_BIN, startServe } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const FREE_PORTS = ['--http-port', '0', '--mqtt-port', '0', '--analytics-port', '0'];

describe('sandboard serve', () => {
  it('prints exactly one ready line with real URLs, answers on them, and stops gracefully on SIGTERM', async () => {
    const dataDir = tempDir();
    const serve = await startServe(['--data-dir', dataDir, ...FREE_PORTS]);
    expect(serve.urls.dataDir).toBe(dataDir);
    for (const key of ['http', 'analytics'] as const)
      expect(serve.urls[key]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(serve.urls.mqtt).toMatch(/^mqtt:\/\/127\.0\.0\.1:\d+$/);
    const login = await fetch(`${serve.urls.http}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'tenant@thingsboard.org', password: 'tenant' }),
    });
    expect(login.status).toBe(200);
    expect(serve.stderr()).toContain('tenant@thingsboard.org / tenant');

    serve.child.kill('SIGTERM');
    const [code] = (await once(serve.child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(serve.stdoutLines).toHaveLength(1);
    expect(existsSync(join(dataDir, 'store.sqlite'))).toBe(true);
    expect(existsSync(join(dataDir, 'sandboard.lock'))).toBe(false);
  });

  it('refuses a second instance on the same data dir at once, naming the lock', async () => {
    const dataDir = tempDir();
    const first = await startServe(['--data-dir', dataDir, ...FREE_PORTS]);
    const second = await runServeExpectingExit(['--data-dir', dataDir, ...FREE_PORTS]);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toMatch(/in use by another Sandboard process \(pid \d+\)/);
    first.child.kill('SIGINT');
    const [code] = (await once(first.child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it('starts again on a data dir whose previous owner was killed', async () => {
    const dataDir = tempDir();
    const first = await startServe(['--data-dir', dataDir, ...FREE_PORTS]);
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    const again = await startServe(['--data-dir', dataDir, ...FREE_PORTS]);
    expect(again.urls.dataDir).toBe(dataDir);
    expect(again.stderr()).not.toContain('demo login');
    again.child.kill('SIGTERM');
    await once(again.child, 'exit');
  }, 90_000); // two starts

  it('stops when asked while it is still starting, and frees the data dir', async () => {
    const dataDir = tempDir();
    const child = spawn(process.execPath, [SANDBOARD_BIN, 'serve', '--data-dir', dataDir, ...FREE_PORTS], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onTestFinished(() => void (child.exitCode === null && child.kill('SIGKILL')));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // the store is being opened (the lock is held): it is starting
    await vi.waitFor(() => expect(readdirSync(dataDir)).not.toEqual([]), { timeout: 20_000, interval: 10 });
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code, stderr).toBe(0);
    if (!stdout.includes('sandboard ready')) expect(stderr).toContain('SIGTERM: stopping once started');
    (await lockDataDir(dataDir)).release();
  });

  it('refuses to serve beyond loopback while a demo login keeps its default password', async () => {
    const result = await runServeExpectingExit(['--data-dir', tempDir(), '--host', '0.0.0.0', ...FREE_PORTS]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /Refusing to serve on 0\.0\.0\.0: .*tenant@thingsboard\.org.*default password/,
    );
  });

  it('rejects a bad port with the usage text', async () => {
    const result = await runServeExpectingExit(['--data-dir', tempDir(), '--http-port', '99999']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--http-port must be a port number');
  });

  it('takes the data dir from SANDBOARD_DATA_DIR and the JWT lifetimes from the environment', () => {
    const config = parseServeArgs([], { SANDBOARD_DATA_DIR: '/tmp/sb-env', JWT_TOKEN_EXPIRATION_TIME: '60' });
    expect(config.dataDir).toBe('/tmp/sb-env');
    expect(config.accessTokenTtlSec).toBe(60);
    expect(config.refreshTokenTtlSec).toBe(604800);
    expect(config).toMatchObject({ host: '127.0.0.1', httpPort: 8080, mqttPort: 1883, analyticsPort: 8888 });
  });

  it('keeps the data dir free of anything but the store, the journal, the key and the lock', async () => {
    const dataDir = tempDir();
    const serve = await startServe(['--data-dir', dataDir, ...FREE_PORTS]);
    const files = readdirSync(dataDir).sort();
    // the lock is a socket: a file only where there is no abstract socket or named pipe
    const lock = ['linux', 'win32'].includes(process.platform) ? [] : ['sandboard.lock'];
    // store.sqlite: a new data dir's first snapshot is the schema image
    expect(files.filter((f) => !/^journal-\d+\.log$/.test(f))).toEqual([
      'jwt-signing.key',
      ...lock,
      'store.sqlite',
    ]);
    serve.child.kill('SIGTERM');
    await once(serve.child, 'exit');
  });
});
