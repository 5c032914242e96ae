import { describe, expect, it } from 'vitest';
import { startTestPlatform } from '../../helpers/platform.ts';
import { TENANT, expectTbError, okJson, rawRequest, useSharedPlatform, type TbError } from './api-kit.ts';

function parseError(body: string): TbError {
  return JSON.parse(body) as TbError;
}

describe('bad input', () => {
  const platform = useSharedPlatform();

  it('answers malformed JSON with 400', async () => {
    const p = platform();
    for (const body of ['{"username": "tenant@thingsboard.org", "password":', '{bad json}', '']) {
      const res = await p.http('/api/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await expectTbError(res, 400, 31, /JSON/);
    }
    const token = await p.login();
    const res = await p.http('/api/device', {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: "{'name': 'single quotes'}",
    });
    await expectTbError(res, 400, 31, /JSON/);
  });

  it('answers a content type other than JSON with 415', async () => {
    const p = platform();
    const xml = await p.http('/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<login><username>tenant@thingsboard.org</username></login>',
    });
    await expectTbError(xml, 415, 31, 'application/json');
    const form = await p.http('/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=tenant%40thingsboard.org&password=tenant',
    });
    await expectTbError(form, 415, 31, 'application/x-www-form-urlencoded');
  });

  it('names the missing or wrongly typed field', async () => {
    const p = platform();
    await expectTbError(
      await p.http('/api/auth/login', { method: 'POST', json: { username: TENANT.username } }),
      400,
      30,
      "'body.password' is required",
    );
    const token = await p.login();
    await expectTbError(
      await p.http('/api/device', { method: 'POST', token, json: { label: 'no name' } }),
      400,
      30,
      "'body.name' is required",
    );
    await expectTbError(
      await p.http('/api/device', { method: 'POST', token, json: { name: { first: 'x' } } }),
      400,
      30,
      'body.name',
    );
    await expectTbError(
      await p.http('/api/device', { method: 'POST', token, json: { name: '' } }),
      400,
      30,
      'body.name',
    );
    await expectTbError(
      await p.http('/api/device', { method: 'POST', token, json: { name: 'x'.repeat(256) } }),
      400,
      30,
      'body.name',
    );
    await expectTbError(
      await p.http('/api/customer', { method: 'POST', token, json: { title: 'T', email: ['a', 'b'] } }),
      400,
      30,
      'body.email',
    );
    await expectTbError(
      await p.http('/api/device', { method: 'POST', token, json: ['name'] }),
      400,
      30,
      'body',
    );
    await expectTbError(
      await p.http('/api/customers?pageSize=10&page=first', { token }),
      400,
      31,
      'querystring.page',
    );
  });

  it('answers an invalid UUID in the path with 400 naming the parameter', async () => {
    const p = platform();
    const token = await p.login();
    await expectTbError(await p.http('/api/device/not-a-uuid', { token }), 400, 31, 'params.id');
    await expectTbError(await p.http("/api/device/1' OR '1'='1", { token }), 400, 31, 'params.id');
    await expectTbError(
      await p.http('/api/customer/123/devices?pageSize=10&page=0', { token }),
      400,
      31,
      'params.customerId',
    );
    await expectTbError(
      await p.http('/api/apiKey/zzz/enabled/true', { method: 'PUT', token }),
      400,
      31,
      'params.id',
    );
    await expectTbError(
      await p.http(`/api/apiKey/${crypto.randomUUID()}/enabled/maybe`, { method: 'PUT', token }),
      400,
      31,
      'params.enabled',
    );
  });

  it('answers an unknown route with a 404 ThingsBoard error, authenticated or not', async () => {
    const p = platform();
    await expectTbError(await p.http('/api/no/such/route'), 404, 32, 'GET /api/no/such/route');
    const token = await p.login();
    await expectTbError(await p.http('/api/no/such/route?x=1', { token }), 404, 32, '/api/no/such/route');
    await expectTbError(
      await p.http('/api/devices/none', { method: 'PATCH', token, json: {} }),
      404,
      32,
      'PATCH',
    );
    // a trailing slash is another path
    await expectTbError(await p.http('/api/auth/user/', { token }), 404, 32);
  });
});

describe('hardening', () => {
  const platform = useSharedPlatform();

  it('refuses a Host header that is not ours with 421', async () => {
    const p = platform();
    const port = new URL(p.urls.http).port;
    const evil = await rawRequest(p.urls.http, {
      path: '/api/auth/login',
      method: 'POST',
      headers: { host: `attacker.example:${port}`, 'content-type': 'application/json' },
      body: JSON.stringify(TENANT),
    });
    expect(evil.status).toBe(421);
    expect(parseError(evil.body)).toMatchObject({ status: 421, errorCode: 20 });
    expect(parseError(evil.body).message).toContain('attacker.example');
    const evilDocs = await rawRequest(p.urls.http, {
      path: '/v3/api-docs',
      headers: { host: 'attacker.example' },
    });
    expect(evilDocs.status).toBe(421);
    // the loopback names in every spelling, and the malformed hosts: host-check.test.ts
  });

  it('ignores cookies: a request with a valid token only in a Cookie is 401', async () => {
    const p = platform();
    const token = await p.login();
    const res = await rawRequest(p.urls.http, {
      path: '/api/auth/user',
      headers: {
        host: new URL(p.urls.http).host,
        cookie: `token=${token}; jwt_token=${token}; X-Authorization=Bearer%20${token}; JSESSIONID=abc`,
      },
    });
    expect(res.status).toBe(401);
    expect(parseError(res.body)).toMatchObject({ status: 401, errorCode: 10 });
    expect(res.headers['set-cookie']).toBeUndefined();
    // the same token in the header works
    expect((await p.http('/api/auth/user', { token })).status).toBe(200);
  });

  it('keeps CORS closed: no Access-Control-Allow-* on a preflight or on a cross-origin GET', async () => {
    const p = platform();
    const token = await p.login();
    const preflight = await p.http('/api/auth/user', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-authorization',
      },
    });
    expect(preflight.status).toBeGreaterThanOrEqual(400);
    await preflight.body?.cancel();
    const get = await p.http('/api/auth/user', { token, headers: { origin: 'https://evil.example' } });
    expect(get.status).toBe(200);
    await get.body?.cancel();
    const login = await p.http('/api/auth/login', {
      method: 'POST',
      json: TENANT,
      headers: { origin: 'https://evil.example' },
    });
    expect(login.status).toBe(200);
    await login.body?.cancel();
    for (const res of [preflight, get, login]) {
      const allowHeaders = [...res.headers.keys()].filter((h) => h.startsWith('access-control-'));
      expect(allowHeaders).toEqual([]);
    }
  });

  it('sends defensive headers on API answers', async () => {
    const p = platform();
    const res = await p.http('/api/auth/user');
    await res.body?.cancel();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
  });
});

describe('limits', () => {
  it('answers a body over the limit with 413 and takes one under it', async () => {
    const p = await startTestPlatform({ bodyLimitBytes: 1024 });
    const big = await p.http('/api/auth/login', {
      method: 'POST',
      json: { username: TENANT.username, password: 'x'.repeat(2000) },
    });
    await expectTbError(big, 413, 31, 'too large');
    const token = await p.login();
    const bigDevice = await p.http('/api/device', {
      method: 'POST',
      token,
      json: { name: 'big', additionalInfo: { blob: 'y'.repeat(1500) } },
    });
    await expectTbError(bigDevice, 413, 31);
    const small = await okJson<{ name: string }>(
      p.http('/api/device', {
        method: 'POST',
        token,
        json: { name: 'small', additionalInfo: { note: 'fits' } },
      }),
    );
    expect(small.name).toBe('small');
  });

  it('rate-limits failed logins: the 4th attempt is 429 errorCode 33 with Retry-After, even with the right password', async () => {
    const p = await startTestPlatform({ loginMaxFailures: 3 });
    for (let i = 0; i < 3; i++) {
      const res = await p.http('/api/auth/login', {
        method: 'POST',
        json: { username: TENANT.username, password: `wrong-${i}` },
      });
      await expectTbError(res, 401, 10, 'Invalid username or password');
    }
    const blocked = await p.http('/api/auth/login', { method: 'POST', json: TENANT });
    const retryAfter = Number(blocked.headers.get('retry-after'));
    await expectTbError(blocked, 429, 33, 'Too many');
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const stillBlocked = await p.http('/api/auth/login', {
      method: 'POST',
      json: { username: 'customer@thingsboard.org', password: 'customer' },
    });
    await expectTbError(stillBlocked, 429, 33);
  });

  it('forgets failures after a successful login', async () => {
    const p = await startTestPlatform({ loginMaxFailures: 3 });
    const fail = async () =>
      expectTbError(
        await p.http('/api/auth/login', {
          method: 'POST',
          json: { username: TENANT.username, password: 'bad' },
        }),
        401,
        10,
      );
    await fail();
    await fail();
    await p.login();
    await fail();
    await fail();
    expect(typeof (await p.login())).toBe('string');
  });
});
