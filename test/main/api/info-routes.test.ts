import { describe, expect, it } from 'vitest';
import { startTestPlatform } from '../../helpers/platform.ts';
import {
  CUSTOMER,
  TENANT,
  createCustomer,
  createDevice,
  expectTbError,
  okJson,
  rawRequest,
  withLoginPair,
} from './api-kit.ts';

interface Stats {
  devices: number;
  gateways: number;
  connectedSessions: number;
  mqttBroker: boolean;
  messagesPerSecond: number;
  datapoints: number;
  ts: number;
}

describe('Sandboard info endpoints', () => {
  it('lists the demo logins while their passwords are the defaults, and stops once changed', async () => {
    const p = withLoginPair(await startTestPlatform());
    const logins = await okJson<{ email: string; password: string; authority: string }[]>(
      p.http('/api/noauth/demoLogins'),
    );
    expect(logins).toEqual([
      { email: TENANT.username, password: TENANT.password, authority: 'TENANT_ADMIN' },
      { email: CUSTOMER.username, password: CUSTOMER.password, authority: 'CUSTOMER_USER' },
    ]);
    const token = await p.login();
    await okJson(
      p.http('/api/auth/changePassword', {
        method: 'POST',
        token,
        json: { currentPassword: 'tenant', newPassword: 'a-better-one' },
      }),
    );
    expect(await okJson(p.http('/api/noauth/demoLogins'))).toEqual([
      { email: CUSTOMER.username, password: CUSTOMER.password, authority: 'CUSTOMER_USER' },
    ]);
  });

  it('gives the real URLs of the platform to a signed-in user only', async () => {
    const p = withLoginPair(await startTestPlatform());
    await expectTbError(await p.http('/api/sandboard/info'), 401, 10);
    const info = await okJson<Record<string, unknown>>(
      p.http('/api/sandboard/info', { token: await p.login() }),
    );
    expect(info).toMatchObject({
      http: p.urls.http,
      mqtt: p.urls.mqtt,
      analytics: p.urls.analytics,
      mqttBroker: true,
    });
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(typeof info.deviceHttpApi).toBe('boolean');
  });

  it('counts devices, gateways and datapoints, scoped to what the caller may see', async () => {
    const p = withLoginPair(await startTestPlatform());
    const token = await p.login();
    await expectTbError(await p.http('/api/sandboard/stats'), 401, 10);
    const empty = await okJson<Stats>(p.http('/api/sandboard/stats', { token }));
    expect(empty).toMatchObject({ devices: 0, gateways: 0, connectedSessions: 0, datapoints: 0 });

    const customerId = await createCustomer(p, token, 'Stats customer');
    const plain = await createDevice(p, token, { name: 'plain' });
    await createDevice(p, token, { name: 'gw', additionalInfo: { gateway: true } });
    await createDevice(p, token, { name: 'theirs', customerId: { id: customerId } });
    const res = await p.http(`/api/plugins/telemetry/DEVICE/${plain.id.id}/timeseries/ANY`, {
      method: 'POST',
      token,
      json: [
        { ts: 1000, values: { t: 1, h: 2 } },
        { ts: 2000, values: { t: 3 } },
      ],
    });
    expect(res.status).toBe(200);
    const stats = await okJson<Stats>(p.http('/api/sandboard/stats', { token }));
    expect(stats).toMatchObject({ devices: 3, gateways: 1, datapoints: 3 });
    expect(stats.messagesPerSecond).toBeGreaterThan(0);

    // The demo customer user sees none of these: they belong to the tenant or another customer.
    const customerToken = await p.login(CUSTOMER.username, CUSTOMER.password);
    const theirs = await okJson<Stats>(p.http('/api/sandboard/stats', { token: customerToken }));
    expect(theirs).toMatchObject({ devices: 0, gateways: 0, datapoints: 0, messagesPerSecond: 0 });
  });

  it('serves the UI (or how to build it) at / with a strict CSP, and keeps JSON 404s for the API', async () => {
    const p = withLoginPair(await startTestPlatform());
    const root = await rawRequest(p.urls.http, { path: '/' });
    expect(root.status).toBe(200);
    expect(root.headers['content-type']).toMatch(/^text\/html/);
    expect(root.headers['content-security-policy']).toContain("default-src 'self'");
    expect(root.headers['content-security-policy']).toContain("connect-src 'self';");
    expect(root.headers['content-security-policy']).toContain("frame-src 'self'");
    const deep = await rawRequest(p.urls.http, { path: '/devices/some-id' });
    expect(deep.status).toBe(200);
    expect(deep.body).toBe(root.body);
    expect(deep.headers['set-cookie']).toBeUndefined();
    await expectTbError(await p.http('/api/no/such/thing'), 404, 32, 'No such endpoint');
    const missingAsset = await rawRequest(p.urls.http, { path: '/assets/nope-123.js' });
    expect(missingAsset.status).toBe(404);
    const badHost = await rawRequest(p.urls.http, { path: '/', headers: { host: 'evil.example' } });
    expect(badHost.status).toBe(421);
  });
});
