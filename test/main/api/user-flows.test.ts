import { describe, expect, it } from 'vitest';
import { startTestPlatform } from '../../helpers/platform.ts';
import { FREE_PORTS, startServe } from '../../helpers/serve-process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import {
  CUSTOMER,
  NULL_UUID,
  TENANT,
  decodeJwt,
  expectTbError,
  okEmpty,
  okJson,
  useSharedPlatform,
  type EntityRef,
  type PageJson,
} from './api-kit.ts';

interface UserJson {
  id: EntityRef;
  email: string;
  authority: string;
  customerId: EntityRef;
}
interface Pair {
  token: string;
  refreshToken: string;
}

describe('user activation, credentials and tokens', () => {
  const platform = useSharedPlatform();
  let counter = 0;

  async function pendingUser() {
    const p = platform();
    const admin = await p.login();
    const email = `pending-${++counter}@acme.test`;
    const user = await okJson<UserJson>(
      p.http('/api/user?sendActivationMail=false', {
        method: 'POST',
        token: admin,
        json: { email, authority: 'TENANT_ADMIN', firstName: 'Pat' },
      }),
    );
    return { p, admin, email, user };
  }

  it('activates a user created without a password through its activation link', async () => {
    const { p, admin, email, user } = await pendingUser();
    // not active yet: no password to log in with
    await expectTbError(
      await p.http('/api/auth/login', { method: 'POST', json: { username: email, password: 'whatever1' } }),
      401,
      10,
    );
    const linkRes = await p.http(`/api/user/${user.id.id}/activationLink`, { token: admin });
    expect(linkRes.status).toBe(200);
    expect(linkRes.headers.get('content-type')).toMatch(/^text\/plain/);
    const link = await linkRes.text();
    expect(link).toMatch(new RegExp(`^${p.urls.http}/api/noauth/activate\\?activateToken=[A-Za-z0-9]{30}$`));
    const info = await okJson<{ value: string; ttlMs: number }>(
      p.http(`/api/user/${user.id.id}/activationLinkInfo`, { token: admin }),
    );
    expect(info.value).toBe(link); // the same link until it nears its end
    expect(info.ttlMs).toBeGreaterThan(23 * 3_600_000);
    expect(info.ttlMs).toBeLessThanOrEqual(24 * 3_600_000);
    const activateToken = new URL(link).searchParams.get('activateToken')!;

    // opening the link redirects to the page that takes the password, as ThingsBoard's UI has it
    const opened = await fetch(link, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe(`/login/createPassword?activateToken=${activateToken}`);
    const unknown = await fetch(`${p.urls.http}/api/noauth/activate?activateToken=nope`, {
      redirect: 'manual',
    });
    expect(unknown.status).toBe(409);

    await expectTbError(
      await p.http('/api/noauth/activate', { method: 'POST', json: { activateToken, password: 'short' } }),
      400,
      31,
      'Password must be 6 or more characters in length.',
    );
    const pair = await okJson<Pair>(
      p.http('/api/noauth/activate?sendActivationMail=false', {
        method: 'POST',
        json: { activateToken, password: 'pat-secret' },
      }),
    );
    expect(decodeJwt(pair.token).payload).toMatchObject({ sub: email, userId: user.id.id });
    expect((await okJson<UserJson>(p.http('/api/auth/user', { token: pair.token }))).email).toBe(email);
    expect(await p.login(email, 'pat-secret')).toBeTruthy();

    // the token is spent; the user is active now
    await expectTbError(
      await p.http('/api/noauth/activate', {
        method: 'POST',
        json: { activateToken, password: 'pat-secret-2' },
      }),
      400,
      31,
      'Unable to find user credentials by activateToken',
    );
    await expectTbError(
      await p.http(`/api/user/${user.id.id}/activationLink`, { token: admin }),
      400,
      31,
      'User is already activated!',
    );
    await expectTbError(
      await p.http(`/api/user/sendActivationMail?email=${encodeURIComponent(email)}`, {
        method: 'POST',
        token: admin,
      }),
      400,
      31,
      'User is already activated!',
    );
  });

  it('disables and enables a user: sessions, refresh tokens and API keys stop at once', async () => {
    const p = platform();
    const admin = await p.login();
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    const user = await okJson<UserJson>(p.http('/api/auth/user', { token: customer }));
    const pair = await okJson<Pair>(p.http('/api/auth/login', { method: 'POST', json: CUSTOMER }));
    const key = await okJson<{ value: string }>(
      p.http('/api/apiKey', { method: 'POST', token: customer, json: { description: 'disabled later' } }),
    );
    const set = (enabled: string) =>
      okEmpty(
        p.http(`/api/user/${user.id.id}/userCredentialsEnabled?userCredentialsEnabled=${enabled}`, {
          method: 'POST',
          token: admin,
        }),
      );
    await set('False');
    await expectTbError(await p.http('/api/auth/user', { token: pair.token }), 401, 11);
    await expectTbError(
      await p.http('/api/auth/token', { method: 'POST', json: { refreshToken: pair.refreshToken } }),
      401,
      11,
    );
    await expectTbError(
      await p.http('/api/auth/user', { apiKey: key.value }),
      401,
      10,
      'User account is not active',
    );
    await expectTbError(
      await p.http('/api/auth/login', { method: 'POST', json: CUSTOMER }),
      401,
      10,
      'User account is not active',
    );
    await expectTbError(
      await p.http(`/api/user/${user.id.id}/userCredentialsEnabled`, { method: 'POST', token: customer }),
      401,
      11,
    );
    await set('true');
    const again = await p.login(CUSTOMER.username, CUSTOMER.password);
    expect((await okJson<UserJson>(p.http('/api/auth/user', { token: again }))).id).toEqual(user.id);
    // tokens from before the disabling stay dead
    await expectTbError(await p.http('/api/auth/user', { token: pair.token }), 401, 11);
    await expectTbError(
      await p.http(`/api/user/${user.id.id}/userCredentialsEnabled`, { method: 'POST', token: again }),
      403,
      20,
    );
    await expectTbError(
      await p.http(`/api/user/${NULL_UUID}/userCredentialsEnabled`, { method: 'POST', token: admin }),
      404,
      32,
    );
  });

  it("gives an administrator another user's token pair, and only an administrator", async () => {
    const p = platform();
    const admin = await p.login();
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    const customerUser = await okJson<UserJson>(p.http('/api/auth/user', { token: customer }));
    expect(await okJson(p.http('/api/user/tokenAccessEnabled', { token: admin }))).toBe(true);
    await expectTbError(await p.http('/api/user/tokenAccessEnabled', { token: customer }), 403, 20);
    const pair = await okJson<Pair>(p.http(`/api/user/${customerUser.id.id}/token`, { token: admin }));
    const claims = decodeJwt(pair.token).payload;
    expect(claims).toMatchObject({ sub: CUSTOMER.username, scopes: ['CUSTOMER_USER'] });
    expect(claims.sessionId).not.toBe(decodeJwt(customer).payload.sessionId);
    expect((await okJson<UserJson>(p.http('/api/auth/user', { token: pair.token }))).id).toEqual(
      customerUser.id,
    );
    const adminUser = await okJson<UserJson>(p.http('/api/auth/user', { token: admin }));
    await expectTbError(await p.http(`/api/user/${adminUser.id.id}/token`, { token: customer }), 403, 20);
    await expectTbError(await p.http(`/api/user/${NULL_UUID}/token`, { token: admin }), 404, 32);
  });

  it('lists users: by ids, as infos, the tenant administrators, and a customer user sees its customer', async () => {
    const p = platform();
    const admin = await p.login();
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    const me = await okJson<UserJson & { tenantId: EntityRef }>(p.http('/api/auth/user', { token: admin }));
    const cu = await okJson<UserJson>(p.http('/api/auth/user', { token: customer }));
    const both = `userIds=${me.id.id},${cu.id.id}`;
    expect(
      (await okJson<UserJson[]>(p.http(`/api/users?${both}`, { token: admin }))).map((u) => u.email).sort(),
    ).toEqual([CUSTOMER.username, TENANT.username]);
    // a customer user reads itself only
    expect(
      (await okJson<UserJson[]>(p.http(`/api/users?${both}`, { token: customer }))).map((u) => u.email),
    ).toEqual([CUSTOMER.username]);
    const customerPage = await okJson<PageJson<UserJson>>(
      p.http('/api/users?pageSize=50&page=0', { token: customer }),
    );
    expect(customerPage.data.every((u) => u.customerId.id === cu.customerId.id)).toBe(true);
    await expectTbError(await p.http('/api/users?page=0', { token: admin }), 400, 31, 'pageSize');

    const infos = await okJson<PageJson<Record<string, unknown>>>(
      p.http('/api/users/info?pageSize=50&page=0&sortProperty=email&sortOrder=ASC', { token: admin }),
    );
    expect(infos.data.find((u) => u.email === TENANT.username)).toEqual({
      id: me.id,
      email: TENANT.username,
      firstName: null,
      lastName: null,
    });
    const admins = await okJson<PageJson<UserJson>>(
      p.http(`/api/tenant/${me.tenantId.id}/users?pageSize=50&page=0`, { token: admin }),
    );
    expect(admins.data.every((u) => u.authority === 'TENANT_ADMIN')).toBe(true);
    expect(admins.data.map((u) => u.email)).toContain(TENANT.username);
    await expectTbError(
      await p.http(`/api/tenant/${NULL_UUID}/users?pageSize=5&page=0`, { token: admin }),
      404,
      32,
    );
    expect(await okJson(p.http('/api/user/dashboards', { token: customer }))).toEqual({
      last: [],
      starred: [],
    });
  });
});

describe('users an alarm may be assigned to', () => {
  const platform = useSharedPlatform();

  it("are the tenant's administrators, with the users of the alarm's customer", async () => {
    const p = platform();
    const admin = await p.login();
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    const me = await okJson<UserJson>(p.http('/api/auth/user', { token: customer }));
    const other = await okJson<{ id: EntityRef }>(
      p.http('/api/customer', { method: 'POST', token: admin, json: { title: 'Assignees Other' } }),
    );
    await okJson(
      p.http('/api/user', {
        method: 'POST',
        token: admin,
        json: {
          email: 'other-assignee@acme.test',
          authority: 'CUSTOMER_USER',
          customerId: other.id,
          password: 'other-secret',
        },
      }),
    );
    const device = async (name: string, customerId?: string) => {
      const d = await okJson<{ id: EntityRef }>(
        p.http('/api/device', { method: 'POST', token: admin, json: { name } }),
      );
      if (customerId)
        await okJson(
          p.http(`/api/customer/${customerId}/device/${d.id.id}`, { method: 'POST', token: admin }),
        );
      return d;
    };
    const alarm = async (originator: { id: EntityRef }) =>
      okJson<{ id: EntityRef }>(
        p.http('/api/alarm', {
          method: 'POST',
          token: admin,
          json: { type: 'Assignees', severity: 'MAJOR', originator: originator.id },
        }),
      );
    const emails = async (alarmId: string, token = admin) =>
      (
        await okJson<PageJson<{ email: string }>>(
          p.http(`/api/users/assign/${alarmId}?pageSize=50&page=0&sortProperty=email&sortOrder=ASC`, {
            token,
          }),
        )
      ).data.map((u) => u.email);

    const tenantAlarm = await alarm(await device('assignees-tenant'));
    const tenantOnly = await emails(tenantAlarm.id.id);
    expect(tenantOnly).toContain(TENANT.username);
    expect(tenantOnly).not.toContain(CUSTOMER.username);
    const customerAlarm = await alarm(await device('assignees-customer', me.customerId.id));
    const withCustomer = await emails(customerAlarm.id.id);
    expect(withCustomer).toEqual(expect.arrayContaining([TENANT.username, CUSTOMER.username]));
    expect(withCustomer).not.toContain('other-assignee@acme.test');
    expect(await emails(customerAlarm.id.id, customer)).toEqual(
      withCustomer.filter((e) => e !== TENANT.username && !tenantOnly.includes(e)),
    );
    await expectTbError(
      await p.http(`/api/users/assign/${tenantAlarm.id.id}?pageSize=5&page=0`, { token: customer }),
      403,
      20,
    );
    await expectTbError(
      await p.http(`/api/users/assign/${NULL_UUID}?pageSize=5&page=0`, { token: admin }),
      404,
      32,
    );
  });
});

describe('password changes follow the password policy', () => {
  const platform = useSharedPlatform();

  it('refuses the same password and one longer than bcrypt reads', async () => {
    const p = platform();
    const token = await p.login(CUSTOMER.username, CUSTOMER.password);
    const change = (newPassword: string) =>
      p.http('/api/auth/changePassword', {
        method: 'POST',
        token,
        json: { currentPassword: CUSTOMER.password, newPassword },
      });
    await expectTbError(
      await change(CUSTOMER.password),
      400,
      31,
      'New password should be different from existing!',
    );
    await expectTbError(await change('y'.repeat(73)), 400, 31, 'Password must be no more than 72 characters');
    // nothing changed
    expect(await p.login(CUSTOMER.username, CUSTOMER.password)).toBeTruthy();
  });
});

describe('user settings', () => {
  const platform = useSharedPlatform();

  it('keeps settings per user and type: replace, update by dotted paths, delete paths', async () => {
    const p = platform();
    const admin = await p.login();
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    expect(await okJson(p.http('/api/user/settings', { token: admin }))).toEqual({});
    expect(
      await okJson(
        p.http('/api/user/settings', {
          method: 'POST',
          token: admin,
          json: { theme: 'dark', grid: { cols: 4 } },
        }),
      ),
    ).toEqual({ theme: 'dark', grid: { cols: 4 } });
    await okEmpty(
      p.http('/api/user/settings', {
        method: 'PUT',
        token: admin,
        json: { 'grid.rows': 2, 'panel.open': true },
      }),
    );
    expect(await okJson(p.http('/api/user/settings', { token: admin }))).toEqual({
      theme: 'dark',
      grid: { cols: 4, rows: 2 },
      panel: { open: true },
    });
    await okEmpty(p.http('/api/user/settings/grid.cols,panel', { method: 'DELETE', token: admin }));
    expect(await okJson(p.http('/api/user/settings/GENERAL', { token: admin }))).toEqual({
      theme: 'dark',
      grid: { rows: 2 },
    });
    // another user has its own
    expect(await okJson(p.http('/api/user/settings', { token: customer }))).toEqual({});

    // typed settings, the type in any case
    await okEmpty(
      p.http('/api/user/settings/quick_links', { method: 'PUT', token: admin, json: { links: ['a'] } }),
    );
    expect(await okJson(p.http('/api/user/settings/QUICK_LINKS', { token: admin }))).toEqual({
      links: ['a'],
    });
    await okEmpty(p.http('/api/user/settings/Quick_Links/links', { method: 'DELETE', token: admin }));
    expect(await okJson(p.http('/api/user/settings/quick_links', { token: admin }))).toEqual({});
    await expectTbError(
      await p.http('/api/user/settings/colors', { token: admin }),
      400,
      31,
      'not supported',
    );
    await expectTbError(await p.http('/api/user/settings/mobile', { token: admin }), 400, 31, 'reserved');
    await expectTbError(
      await p.http('/api/user/settings', { method: 'POST', token: admin, json: { 'a.b': 1 } }),
      400,
      31,
      'should not contain',
    );
  });

  it('keeps them across a restart', async () => {
    const dataDir = tempDir();
    const first = await startTestPlatform({ dataDir });
    const token = await first.login();
    await okJson(first.http('/api/user/settings', { method: 'POST', token, json: { kept: true } }));
    await first.stop();
    const second = await startTestPlatform({ dataDir });
    expect(await okJson(second.http('/api/user/settings', { token: await second.login() }))).toEqual({
      kept: true,
    });
  });
});

describe('password reset, answered locally', () => {
  it('logs the reset link ThingsBoard would mail; the link sets a new password and ends older sessions', async () => {
    const serve = await startServe(['--data-dir', tempDir(), ...FREE_PORTS]);
    const base = serve.urls.http;
    const post = (path: string, body: unknown, token?: string) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { 'x-authorization': `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      });
    const before = (await (await post('/api/auth/login', TENANT)).json()) as Pair;

    const policy = await fetch(`${base}/api/noauth/userPasswordPolicy`);
    expect(await policy.json()).toMatchObject({
      minimumLength: 6,
      maximumLength: 72,
      allowWhitespaces: true,
    });

    // unknown addresses get the same 200 and no link
    expect((await post('/api/noauth/resetPasswordByEmail', { email: 'nobody@acme.test' })).status).toBe(200);
    const asked = await post('/api/noauth/resetPasswordByEmail', { email: TENANT.username });
    expect(asked.status).toBe(200);
    expect(await asked.text()).toBe('');
    const linkPattern = /password reset link of tenant@thingsboard\.org is ([^\s"]+)/;
    let match = linkPattern.exec(serve.stderr());
    for (let i = 0; !match && i < 50; i++) {
      await new Promise((resolve) => serve.child.stderr!.once('data', resolve));
      match = linkPattern.exec(serve.stderr());
    }
    expect(serve.stderr()).not.toContain('nobody@acme.test');
    const link = match![1]!;
    expect(link).toMatch(new RegExp(`^${base}/api/noauth/resetPassword\\?resetToken=[A-Za-z0-9]{30}$`));
    const resetToken = new URL(link).searchParams.get('resetToken')!;
    const opened = await fetch(link, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe(`/login/resetPassword?resetToken=${resetToken}`);

    const reset = (password: string, token = resetToken) =>
      post('/api/noauth/resetPassword', { resetToken: token, password });
    await expectTbError(await reset('tenant'), 400, 31, 'New password should be different from existing!');
    await expectTbError(await reset('x'.repeat(73)), 400, 31, 'no more than 72');
    await expectTbError(await reset('new-secret', 'wrong'), 400, 31, 'Invalid reset token!');
    const done = await reset('new-secret');
    expect(done.status).toBe(200);
    expect(await done.text()).toBe('');
    await expectTbError(await reset('newer-secret'), 400, 31, 'Invalid reset token!');
    // the session from before the reset is over; the new password logs in
    await expectTbError(
      await fetch(`${base}/api/auth/user`, { headers: { 'x-authorization': `Bearer ${before.token}` } }),
      401,
      11,
    );
    expect(
      (await post('/api/auth/login', { username: TENANT.username, password: 'new-secret' })).status,
    ).toBe(200);
    await expectTbError(await post('/api/auth/login', TENANT), 401, 10);
    expect(
      (await fetch(`${base}/api/noauth/resetPassword?resetToken=${resetToken}`, { redirect: 'manual' }))
        .status,
    ).toBe(409);
  });
});
