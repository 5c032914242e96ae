import { describe, expect, it } from 'vitest';
import { startTestPlatform } from '../../helpers/platform.ts';
import {
  CUSTOMER,
  NULL_UUID,
  TENANT,
  decodeJwt,
  expectTbError,
  okJson,
  useSharedPlatform,
  waitUntilPast,
  withLoginPair,
  type EntityRef,
} from './api-kit.ts';

interface UserJson {
  id: EntityRef;
  tenantId: EntityRef;
  customerId: EntityRef;
  email: string;
  authority: string;
}

describe('REST authentication', () => {
  const platform = useSharedPlatform();

  it('logs in the demo tenant admin with ThingsBoard claims in an HS512 token pair', async () => {
    const p = platform();
    const before = Math.floor(Date.now() / 1000);
    const pair = await okJson<{ token: string; refreshToken: string }>(
      p.http('/api/auth/login', { method: 'POST', json: TENANT }),
    );
    const after = Math.floor(Date.now() / 1000);
    const access = decodeJwt(pair.token);
    const refresh = decodeJwt(pair.refreshToken);
    expect(access.header).toMatchObject({ alg: 'HS512' });

    const user = await okJson<UserJson>(p.http('/api/auth/user', { token: pair.token }));
    expect(access.payload).toMatchObject({
      sub: TENANT.username,
      userId: user.id.id,
      scopes: ['TENANT_ADMIN'],
      tenantId: user.tenantId.id,
      iss: 'thingsboard.io',
    });
    expect(access.payload.customerId).toBeUndefined();
    expect(access.payload.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(access.payload.iat).toBeGreaterThanOrEqual(before);
    expect(access.payload.iat).toBeLessThanOrEqual(after);
    expect(access.payload.exp - access.payload.iat).toBe(9000);

    expect(refresh.payload).toMatchObject({
      sub: TENANT.username,
      userId: user.id.id,
      scopes: ['REFRESH_TOKEN'],
      sessionId: access.payload.sessionId,
      iss: 'thingsboard.io',
    });
    expect(refresh.payload.exp - refresh.payload.iat).toBe(604800);
  });

  it("puts the customer user's customerId and authority in its token", async () => {
    const p = platform();
    const token = await p.login(CUSTOMER.username, CUSTOMER.password);
    const { payload } = decodeJwt(token);
    const user = await okJson<UserJson>(p.http('/api/auth/user', { token }));
    expect(user.authority).toBe('CUSTOMER_USER');
    expect(user.customerId.id).not.toBe(NULL_UUID);
    expect(payload).toMatchObject({
      sub: CUSTOMER.username,
      userId: user.id.id,
      scopes: ['CUSTOMER_USER'],
      customerId: user.customerId.id,
      tenantId: user.tenantId.id,
      iss: 'thingsboard.io',
    });
    expect(payload.exp - payload.iat).toBe(9000);
  });

  it('answers GET /api/auth/user with the current user', async () => {
    const p = platform();
    const token = await p.login();
    const user = await okJson<UserJson>(p.http('/api/auth/user', { token }));
    expect(user).toMatchObject({
      id: { entityType: 'USER', id: decodeJwt(token).payload.userId },
      tenantId: { entityType: 'TENANT' },
      customerId: { entityType: 'CUSTOMER', id: NULL_UUID },
      email: TENANT.username,
      authority: 'TENANT_ADMIN',
    });
  });

  it('refuses a wrong password, an unknown user and an empty password', async () => {
    const p = platform();
    const wrong = await p.http('/api/auth/login', {
      method: 'POST',
      json: { username: TENANT.username, password: 'not-the-password' },
    });
    await expectTbError(wrong, 401, 10, 'Invalid username or password');
    const unknown = await p.http('/api/auth/login', {
      method: 'POST',
      json: { username: 'nobody@example.com', password: 'tenant' },
    });
    await expectTbError(unknown, 401, 10, 'Invalid username or password');
    const empty = await p.http('/api/auth/login', {
      method: 'POST',
      json: { username: TENANT.username, password: '' },
    });
    await expectTbError(empty, 400, 30, 'password');
  });

  it('refuses requests without credentials', async () => {
    const p = platform();
    await expectTbError(await p.http('/api/auth/user'), 401, 10);
    await expectTbError(
      await p.http('/api/auth/user', { headers: { 'x-authorization': 'Basic dGVuYW50OnRlbmFudA==' } }),
      401,
      10,
    );
    await expectTbError(
      await p.http('/api/auth/user', { headers: { 'x-authorization': 'Bearer' } }),
      401,
      10,
    );
  });

  it('accepts the token in X-Authorization and in Authorization with Bearer', async () => {
    const p = platform();
    const token = await p.login();
    const viaX = await p.http('/api/auth/user', { headers: { 'X-Authorization': `Bearer ${token}` } });
    expect(viaX.status).toBe(200);
    const viaStd = await p.http('/api/auth/user', { headers: { Authorization: `Bearer ${token}` } });
    expect(viaStd.status).toBe(200);
    expect(((await viaStd.json()) as UserJson).email).toBe(TENANT.username);
  });

  it('exchanges a refresh token for a new working pair of the same session', async () => {
    const p = platform();
    const first = await p.loginPair();
    const next = await okJson<{ token: string; refreshToken: string }>(
      p.http('/api/auth/token', { method: 'POST', json: { refreshToken: first.refreshToken } }),
    );
    expect(next.refreshToken).not.toBe(first.refreshToken);
    expect(decodeJwt(next.token).payload).toMatchObject({
      scopes: ['TENANT_ADMIN'],
      sessionId: decodeJwt(first.token).payload.sessionId,
    });
    expect(decodeJwt(next.refreshToken).payload.scopes).toEqual(['REFRESH_TOKEN']);
    const user = await okJson<UserJson>(p.http('/api/auth/user', { token: next.token }));
    expect(user.email).toBe(TENANT.username);
    const again = await p.http('/api/auth/token', {
      method: 'POST',
      json: { refreshToken: next.refreshToken },
    });
    expect(again.status).toBe(200);
  });

  it('refuses a refresh token as an access token, and an access token as a refresh token', async () => {
    const p = platform();
    const pair = await p.loginPair();
    await expectTbError(await p.http('/api/auth/user', { token: pair.refreshToken }), 401, 10);
    const refreshWithAccess = await p.http('/api/auth/token', {
      method: 'POST',
      json: { refreshToken: pair.token },
    });
    await expectTbError(refreshWithAccess, 401, 10);
    const garbage = await p.http('/api/auth/token', {
      method: 'POST',
      json: { refreshToken: 'not.a.token' },
    });
    await expectTbError(garbage, 401, 10);
  });

  it('refuses tampered tokens: changed claims, a foreign signature, alg none', async () => {
    const p = platform();
    const customerToken = await p.login(CUSTOMER.username, CUSTOMER.password);
    const [header, payload, signature] = customerToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(
      JSON.stringify({ ...claims, scopes: ['TENANT_ADMIN'], customerId: undefined }),
    ).toString('base64url');
    await expectTbError(
      await p.http('/api/tenant/devices?pageSize=10&page=0', { token: `${header}.${forged}.${signature}` }),
      401,
      10,
    );
    const flipped = signature.slice(0, -4) + (signature.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    await expectTbError(
      await p.http('/api/auth/user', { token: `${header}.${payload}.${flipped}` }),
      401,
      10,
    );
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    await expectTbError(await p.http('/api/auth/user', { token: `${none}.${payload}.` }), 401, 10);
    await expectTbError(await p.http('/api/auth/user', { token: 'abc' }), 401, 10);
    // the untouched token still works
    expect((await p.http('/api/auth/user', { token: customerToken })).status).toBe(200);
  });

  it("logs out one session: its access and refresh tokens stop working, another session's do not", async () => {
    const p = platform();
    const a = await p.loginPair(CUSTOMER.username, CUSTOMER.password);
    const b = await p.loginPair(CUSTOMER.username, CUSTOMER.password);
    expect(decodeJwt(a.token).payload.sessionId).not.toBe(decodeJwt(b.token).payload.sessionId);

    const out = await p.http('/api/auth/logout', { method: 'POST', token: a.token });
    expect(out.status).toBe(200);

    await expectTbError(await p.http('/api/auth/user', { token: a.token }), 401, 10);
    await expectTbError(
      await p.http('/api/auth/token', { method: 'POST', json: { refreshToken: a.refreshToken } }),
      401,
      10,
    );
    expect((await p.http('/api/auth/user', { token: b.token })).status).toBe(200);
    const refreshed = await okJson<{ token: string }>(
      p.http('/api/auth/token', { method: 'POST', json: { refreshToken: b.refreshToken } }),
    );
    expect((await p.http('/api/auth/user', { token: refreshed.token })).status).toBe(200);
  });

  it('changes the password: the old password and every older token are refused, the new pair works', async () => {
    const p = platform();
    const admin = await p.login();
    const email = 'second-admin@example.com';
    await okJson(
      p.http('/api/user', {
        method: 'POST',
        token: admin,
        json: { email, authority: 'TENANT_ADMIN', password: 'first-secret' },
      }),
    );
    const old = await p.loginPair(email, 'first-secret');
    const otherSession = await p.loginPair(email, 'first-secret');

    const wrongCurrent = await p.http('/api/auth/changePassword', {
      method: 'POST',
      token: old.token,
      json: { currentPassword: 'nope-nope', newPassword: 'second-secret' },
    });
    await expectTbError(wrongCurrent, 400, 31, "Current password doesn't match");
    const tooShort = await p.http('/api/auth/changePassword', {
      method: 'POST',
      token: old.token,
      json: { currentPassword: 'first-secret', newPassword: 'abc' },
    });
    await expectTbError(tooShort, 400, 30, 'newPassword');

    const fresh = await okJson<{ token: string; refreshToken: string }>(
      p.http('/api/auth/changePassword', {
        method: 'POST',
        token: old.token,
        json: { currentPassword: 'first-secret', newPassword: 'second-secret' },
      }),
    );
    const user = await okJson<UserJson>(p.http('/api/auth/user', { token: fresh.token }));
    expect(user.email).toBe(email);
    const refreshed = await p.http('/api/auth/token', {
      method: 'POST',
      json: { refreshToken: fresh.refreshToken },
    });
    expect(refreshed.status).toBe(200);

    for (const stale of [old.token, otherSession.token]) {
      const res = await p.http('/api/auth/user', { token: stale });
      expect(res.status).toBe(401);
      await res.body?.cancel();
    }
    const staleRefresh = await p.http('/api/auth/token', {
      method: 'POST',
      json: { refreshToken: otherSession.refreshToken },
    });
    expect(staleRefresh.status).toBe(401);

    await expectTbError(
      await p.http('/api/auth/login', {
        method: 'POST',
        json: { username: email, password: 'first-secret' },
      }),
      401,
      10,
      'Invalid username or password',
    );
    expect((await p.http('/api/auth/user', { token: await p.login(email, 'second-secret') })).status).toBe(
      200,
    );
  });
});

describe('token lifetime', () => {
  it('rejects an expired access token with 401 errorCode 11, while the refresh token still works', async () => {
    const p = withLoginPair(await startTestPlatform({ accessTokenTtlSec: 2 }));
    const pair = await p.loginPair();
    const { exp } = decodeJwt(pair.token).payload;
    // 2 s lifetime from a whole-second iat: at least a second is left right after login
    expect((await p.http('/api/auth/user', { token: pair.token })).status).toBe(200);

    await waitUntilPast(exp * 1000);
    await expectTbError(await p.http('/api/auth/user', { token: pair.token }), 401, 11, 'Token has expired');

    const renewed = await okJson<{ token: string }>(
      p.http('/api/auth/token', { method: 'POST', json: { refreshToken: pair.refreshToken } }),
    );
    expect(decodeJwt(renewed.token).payload.exp).toBeGreaterThan(exp);
    expect((await p.http('/api/auth/user', { token: renewed.token })).status).toBe(200);
  });

  it('rejects an expired refresh token with errorCode 11', async () => {
    const p = withLoginPair(await startTestPlatform({ accessTokenTtlSec: 1, refreshTokenTtlSec: 1 }));
    const pair = await p.loginPair();
    await waitUntilPast(decodeJwt(pair.refreshToken).payload.exp * 1000);
    await expectTbError(
      await p.http('/api/auth/token', { method: 'POST', json: { refreshToken: pair.refreshToken } }),
      401,
      11,
      'Token has expired',
    );
  });
});
