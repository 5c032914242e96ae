import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellProof } from '../../../main/api/shell-proof.ts';
import { SHELL_PROOF } from '../../../electron/ipc-contract.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { okJson, rawRequest, withLoginPair, type ApiPlatform } from './api-kit.ts';

/** A WebSocket handshake by hand: the answer's status and headers (fetch cannot show an upgrade's headers). */
function upgrade(
  base: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path: '/api/sandboard/ws',
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    req.on('error', reject);
    req.end();
  });
}

describe("the desktop shell's trust", () => {
  /** Only the file's random passwords log in: no endpoint lists a demo login, the public password fails. */
  async function expectOnlyRandomPasswords(p: ApiPlatform): Promise<{ email: string; password: string }[]> {
    const logins = JSON.parse(readFileSync(join(p.urls.dataDir, 'demo-logins.json'), 'utf8')) as {
      email: string;
      password: string;
    }[];
    expect(logins.map((l) => l.email)).toEqual(['tenant@thingsboard.org', 'customer@thingsboard.org']);
    expect(await okJson(p.http('/api/noauth/demoLogins'))).toEqual([]);
    const publicOne = await p.http('/api/auth/login', {
      method: 'POST',
      json: { username: 'tenant@thingsboard.org', password: 'tenant' },
    });
    expect(publicOne.status).toBe(401);
    for (const l of logins) await p.login(l.email, l.password);
    return logins;
  }

  it('gives a desktop install random demo passwords in an owner-only file, and no endpoint lists them', async () => {
    const p = withLoginPair(await startTestPlatform({ randomDemoPasswords: true }));
    const file = join(p.urls.dataDir, 'demo-logins.json');
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    for (const l of await expectOnlyRandomPasswords(p)) expect(l.password).toMatch(/^[\w-]{16}$/);
  });

  it('stops offering a demo login whose password was changed (the file keeps only working ones)', async () => {
    const p = withLoginPair(await startTestPlatform({ randomDemoPasswords: true }));
    const file = join(p.urls.dataDir, 'demo-logins.json');
    const logins = () => JSON.parse(readFileSync(file, 'utf8')) as { email: string; password: string }[];
    const tenant = logins().find((l) => l.email === 'tenant@thingsboard.org')!;
    const token = await p.login(tenant.email, tenant.password);
    const changed = await p.http('/api/auth/changePassword', {
      method: 'POST',
      token,
      json: { currentPassword: tenant.password, newPassword: 'a-new-Passw0rd!' },
    });
    expect(changed.status, await changed.text()).toBe(200);
    await expect.poll(() => logins().map((l) => l.email)).toEqual(['customer@thingsboard.org']);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('replaces the public demo passwords of a desktop install made before they were random', async () => {
    const dataDir = tempDir();
    const before = withLoginPair(await startTestPlatform({ dataDir }));
    await before.login('tenant@thingsboard.org', 'tenant');
    await before.stop();
    await expectOnlyRandomPasswords(
      withLoginPair(await startTestPlatform({ dataDir, randomDemoPasswords: true })),
    );
  });

  it('keeps the public demo passwords for `sandboard serve`', async () => {
    const p = withLoginPair(await startTestPlatform());
    const listed = await okJson<{ email: string; password: string }[]>(p.http('/api/noauth/demoLogins'));
    expect(listed.map((l) => l.password).sort()).toEqual(['customer', 'tenant']);
  });

  it("proves each response is this core's: an HMAC of the shell's nonce with the launch's secret", async () => {
    const secret = randomBytes(32).toString('base64url');
    const p = withLoginPair(await startTestPlatform({ shellSecret: secret }));
    const nonce = randomBytes(16).toString('base64url');
    for (const [base, path] of [
      [p.urls.http, '/'],
      [p.urls.http, '/api/auth/user'],
      [p.urls.http, '/api/no/such/route'],
      [p.urls.analytics, '/apiTrendz/publicApi/buildReport'],
    ] as const) {
      const res = await rawRequest(base, { path, headers: { [SHELL_PROOF.nonceHeader]: nonce } });
      expect(res.headers[SHELL_PROOF.proofHeader], `${base}${path}`).toBe(shellProof(secret, nonce));
      // a cached response's stored proof would answer an old nonce: nothing is kept
      expect(res.headers['cache-control'], `${base}${path}`).toBe('no-store');
    }
    const token = await p.login();
    const ws = await upgrade(p.urls.http, { [SHELL_PROOF.nonceHeader]: nonce, authorization: token });
    expect(ws.status).toBe(101);
    expect(ws.headers[SHELL_PROOF.proofHeader]).toBe(shellProof(secret, nonce));
    // without a nonce nothing is proven (and a proof never appears for anyone else's nonce)
    const plain = await rawRequest(p.urls.http, { path: '/api/auth/user' });
    expect(plain.headers[SHELL_PROOF.proofHeader]).toBeUndefined();
  });

  it("refuses a WebSocket from another site's page by its Origin", async () => {
    const p = withLoginPair(await startTestPlatform());
    const port = new URL(p.urls.http).port;
    for (const origin of ['https://evil.example', 'http://127.0.0.1.evil.example', 'null', 'file://']) {
      const res = await upgrade(p.urls.http, { origin });
      expect(res.status, origin).toBe(403);
    }
    for (const origin of [`http://127.0.0.1:${port}`, 'http://localhost:5173', undefined]) {
      const res = await upgrade(p.urls.http, origin ? { origin } : {});
      expect(res.status, origin).toBe(101);
    }
  });
});
