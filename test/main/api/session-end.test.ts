import { describe, expect, it } from 'vitest';
import { startTestPlatform } from '../../helpers/platform.ts';
import { connectLive } from '../../helpers/live-ws.ts';
import { CUSTOMER, withLoginPair, type ApiPlatform } from './api-kit.ts';

/**
 * Every credential or authority change ends the sessions issued before it, at once: the old access token
 * gets 401, the old refresh token issues nothing, and a live WebSocket of that user is closed (4401) well
 * before its periodic 10 s recheck could have done it (the test's own timeout is 5 s).
 */
interface Session {
  token: string;
  refreshToken: string;
  live: Awaited<ReturnType<typeof connectLive>>;
}

async function customerSession(p: ApiPlatform, password = CUSTOMER.password): Promise<Session> {
  const pair = await p.loginPair(CUSTOMER.username, password);
  return { ...pair, live: await connectLive(p, pair.token) };
}

async function customerUser(p: ApiPlatform, admin: string): Promise<Record<string, unknown>> {
  const pair = await p.loginPair(CUSTOMER.username, CUSTOMER.password);
  const me = (await (await p.http('/api/auth/user', { token: pair.token })).json()) as { id: { id: string } };
  return (await (await p.http(`/api/user/${me.id.id}`, { token: admin })).json()) as Record<string, unknown>;
}

async function expectEnded(p: ApiPlatform, s: Session): Promise<void> {
  const closed = await s.live.closed;
  expect(closed.code).toBe(4401);
  const access = await p.http('/api/auth/user', { token: s.token });
  expect(access.status).toBe(401);
  expect(await access.json()).toMatchObject({ status: 401 });
  const refresh = await p.http('/api/auth/token', { method: 'POST', json: { refreshToken: s.refreshToken } });
  expect(refresh.status).toBe(401);
}

async function setup(): Promise<{ p: ApiPlatform; admin: string; user: Record<string, unknown> }> {
  const p = withLoginPair(await startTestPlatform());
  const admin = await p.login();
  return { p, admin, user: await customerUser(p, admin) };
}

describe('credential and authority changes end sessions', () => {
  it("an admin's password reset with POST /api/user ends the user's access and refresh tokens and live socket", async () => {
    const { p, admin, user } = await setup();
    const s = await customerSession(p);
    const reset = await p.http('/api/user', {
      method: 'POST',
      token: admin,
      json: { ...user, password: 'new-secret-1' },
    });
    expect(reset.status).toBe(200);
    await expectEnded(p, s);
    await expect(p.loginPair(CUSTOMER.username, CUSTOMER.password)).rejects.toThrow(/401/);
    const fresh = await p.loginPair(CUSTOMER.username, 'new-secret-1');
    expect((await p.http('/api/auth/user', { token: fresh.token })).status).toBe(200);
  });

  it('a save that changes nothing about credentials keeps the sessions', async () => {
    const { p, admin, user } = await setup();
    const s = await customerSession(p);
    const saved = await p.http('/api/user', {
      method: 'POST',
      token: admin,
      json: { ...user, firstName: 'Ann' },
    });
    expect(saved.status).toBe(200);
    expect((await p.http('/api/auth/user', { token: s.token })).status).toBe(200);
    const refresh = await p.http('/api/auth/token', {
      method: 'POST',
      json: { refreshToken: s.refreshToken },
    });
    expect(refresh.status).toBe(200);
    s.live.ws.close();
  });

  it("the user's own password change ends the other sessions", async () => {
    const { p } = await setup();
    const s = await customerSession(p);
    const other = await p.loginPair(CUSTOMER.username, CUSTOMER.password);
    const changed = await p.http('/api/auth/changePassword', {
      method: 'POST',
      token: other.token,
      json: { currentPassword: CUSTOMER.password, newPassword: 'changed-123' },
    });
    expect(changed.status).toBe(200);
    const next = (await changed.json()) as { token: string };
    await expectEnded(p, s);
    expect((await p.http('/api/auth/user', { token: next.token })).status).toBe(200);
  });

  it('disabling the user ends its sessions and refuses its logins and API keys until it is enabled again', async () => {
    const { p, admin, user } = await setup();
    const s = await customerSession(p);
    const key = (await (
      await p.http('/api/apiKey', { method: 'POST', token: s.token, json: { description: 'k' } })
    ).json()) as { value: string };
    const userId = (user.id as { id: string }).id;
    const off = await p.http(`/api/user/${userId}/userCredentialsEnabled?userCredentialsEnabled=false`, {
      method: 'POST',
      token: admin,
    });
    expect(off.status).toBe(200);
    await expectEnded(p, s);
    const login = await p.http('/api/auth/login', { method: 'POST', json: CUSTOMER });
    expect(login.status).toBe(401);
    expect(await login.json()).toMatchObject({ message: 'User account is not active', errorCode: 10 });
    expect((await p.http('/api/auth/user', { apiKey: key.value })).status).toBe(401);
    const shown = (await (await p.http(`/api/user/${userId}`, { token: admin })).json()) as {
      additionalInfo: { userCredentialsEnabled: boolean };
    };
    expect(shown.additionalInfo.userCredentialsEnabled).toBe(false);

    const on = await p.http(`/api/user/${userId}/userCredentialsEnabled?userCredentialsEnabled=true`, {
      method: 'POST',
      token: admin,
    });
    expect(on.status).toBe(200);
    expect((await p.http('/api/auth/login', { method: 'POST', json: CUSTOMER })).status).toBe(200);
  });

  it('deleting the user ends its sessions', async () => {
    const { p, admin, user } = await setup();
    const s = await customerSession(p);
    const del = await p.http(`/api/user/${(user.id as { id: string }).id}`, {
      method: 'DELETE',
      token: admin,
    });
    expect(del.status).toBe(200);
    await expectEnded(p, s);
  });

  it('deleting the customer ends the sessions of its users', async () => {
    const { p, admin, user } = await setup();
    const s = await customerSession(p);
    const customerId = (user.customerId as { id: string }).id;
    expect((await p.http(`/api/customer/${customerId}`, { method: 'DELETE', token: admin })).status).toBe(
      200,
    );
    await expectEnded(p, s);
  });

  it('a role change ends the sessions', async () => {
    const { p, admin, user } = await setup();
    const s = await customerSession(p);
    const { customerId: _c, ...asAdmin } = user;
    const saved = await p.http('/api/user', {
      method: 'POST',
      token: admin,
      json: { ...asAdmin, authority: 'TENANT_ADMIN' },
    });
    expect(saved.status).toBe(200);
    await expectEnded(p, s);
  });

  it('moving the user to another customer ends the sessions', async () => {
    const { p, admin, user } = await setup();
    const s = await customerSession(p);
    const other = (await (
      await p.http('/api/customer', { method: 'POST', token: admin, json: { title: 'Customer B' } })
    ).json()) as { id: { id: string } };
    const saved = await p.http('/api/user', {
      method: 'POST',
      token: admin,
      json: { ...user, customerId: { entityType: 'CUSTOMER', id: other.id.id } },
    });
    expect(saved.status).toBe(200);
    await expectEnded(p, s);
  });

  it('an API key stops working at once when disabled, revoked or expired', async () => {
    const { p, admin } = await setup();
    const create = async (json: Record<string, unknown>) =>
      (await (await p.http('/api/apiKey', { method: 'POST', token: admin, json })).json()) as {
        id: { id: string };
        value: string;
      };
    const use = (key: { value: string }) => p.http('/api/auth/user', { apiKey: key.value });

    const disabled = await create({ description: 'to disable' });
    expect((await use(disabled)).status).toBe(200);
    await p.http(`/api/apiKey/${disabled.id.id}/enabled/false`, { method: 'PUT', token: admin });
    const refused = await use(disabled);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ message: 'API key is disabled', errorCode: 10 });

    const revoked = await create({ description: 'to revoke' });
    expect((await use(revoked)).status).toBe(200);
    await p.http(`/api/apiKey/${revoked.id.id}`, { method: 'DELETE', token: admin });
    expect((await use(revoked)).status).toBe(401);

    const expiresAt = Date.now() + 1_000;
    const expiring = await create({ description: 'to expire', expirationTime: expiresAt });
    expect((await use(expiring)).status).toBe(200);
    // the expiry time itself is what is tested: wait for it, not for an event
    await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 5));
    const expired = await use(expiring);
    expect(expired.status).toBe(401);
    expect(await expired.json()).toMatchObject({ errorCode: 15 });
  });
});
