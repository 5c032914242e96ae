import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe } from '../../helpers/serve-process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const FREE_PORTS = ['--http-port', '0', '--mqtt-port', '0', '--analytics-port', '0'];

async function post(base: string, path: string, json: unknown, token?: string): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { 'x-authorization': `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(json),
  });
}

/**
 * What item 1 and the desktop's demo passwords keep on disk survives kill -9 once acknowledged: a user
 * disabled with a 200 stays disabled, tokens ended by a password reset stay ended, and the random demo
 * passwords in demo-logins.json still log in.
 */
describe('ended sessions and random demo passwords after kill -9', () => {
  it('keeps what was acknowledged', { timeout: 60_000 }, async () => {
    const dataDir = tempDir();
    const env = { SANDBOARD_DEMO_PASSWORDS: 'random' };
    const first = await startServe(['--data-dir', dataDir, ...FREE_PORTS], env);
    const logins = JSON.parse(readFileSync(join(dataDir, 'demo-logins.json'), 'utf8')) as {
      email: string;
      password: string;
    }[];
    const [tenant, customer] = logins as [
      { email: string; password: string },
      { email: string; password: string },
    ];
    const login = async (base: string, l: { email: string; password: string }) =>
      post(base, '/api/auth/login', { username: l.email, password: l.password });
    const admin = ((await (await login(first.urls.http, tenant)).json()) as { token: string }).token;
    const old = (await (await login(first.urls.http, customer)).json()) as {
      token: string;
      refreshToken: string;
    };
    const me = (await (
      await fetch(`${first.urls.http}/api/auth/user`, {
        headers: { 'x-authorization': `Bearer ${old.token}` },
      })
    ).json()) as { id: { id: string } };
    const user = (await (
      await fetch(`${first.urls.http}/api/user/${me.id.id}`, {
        headers: { 'x-authorization': `Bearer ${admin}` },
      })
    ).json()) as Record<string, unknown>;
    expect(
      (await post(first.urls.http, '/api/user', { ...user, password: 'reset-by-admin' }, admin)).status,
    ).toBe(200);
    expect(
      (
        await post(
          first.urls.http,
          `/api/user/${me.id.id}/userCredentialsEnabled?userCredentialsEnabled=false`,
          undefined,
          admin,
        )
      ).status,
    ).toBe(200);
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');

    const again = await startServe(['--data-dir', dataDir, ...FREE_PORTS], env);
    const base = again.urls.http;
    expect((await login(base, tenant)).status).toBe(200);
    const disabled = await login(base, { email: customer.email, password: 'reset-by-admin' });
    expect(disabled.status).toBe(401);
    expect(((await disabled.json()) as { message: string }).message).toBe('User account is not active');
    expect((await post(base, '/api/auth/token', { refreshToken: old.refreshToken })).status).toBe(401);
    again.child.kill('SIGTERM');
    await once(again.child, 'exit');
  });
});
