import { describe, expect, it } from 'vitest';
import { startTestPlatform } from '../../helpers/platform.ts';
import { LiveClient as Client, connectLive as connect, liveUrl as wsUrl } from '../../helpers/live-ws.ts';
import { CUSTOMER, createDevice, okEmpty, withLoginPair } from './api-kit.ts';

describe('live WebSocket /api/sandboard/ws', () => {
  it('refuses a connection without a valid token', async () => {
    const p = withLoginPair(await startTestPlatform());
    const bad = new Client(wsUrl(p));
    await bad.opened();
    bad.send({ type: 'auth', token: 'not-a-jwt' });
    expect((await bad.closed).code).toBe(4401);

    const early = new Client(wsUrl(p));
    await early.opened();
    early.send({ type: 'subscribe', deviceId: 'x' });
    expect((await early.closed).code).toBe(4401);
    expect(early.has('stats')).toBe(false);

    const badQuery = new Client(wsUrl(p, '?token=nope'));
    expect((await badQuery.closed).code).toBe(4401);
  });

  it('refuses a token in the URL, even a valid one, and pushes the counters when they change', async () => {
    const p = withLoginPair(await startTestPlatform());
    const token = await p.login();
    const inUrl = new Client(wsUrl(p, `?token=${encodeURIComponent(token)}`));
    expect((await inUrl.closed).code).toBe(4401);
    expect(inUrl.has('ready')).toBe(false);
    const client = await connect(p, token);
    const first = await client.next('stats');
    expect(first.stats.devices).toBe(0);
    await createDevice(p, token, { name: 'counted' });
    const next = await client.next('stats', (m) => m.stats.devices === 1);
    expect(next.stats).toMatchObject({ devices: 1, connectedSessions: 0 });
    client.ws.close();
  });

  it('pushes telemetry and attributes of subscribed devices the user may see', async () => {
    const p = withLoginPair(await startTestPlatform());
    const token = await p.login();
    const device = await createDevice(p, token, { name: 'live' });
    const other = await createDevice(p, token, { name: 'other' });
    const client = await connect(p, token);
    client.send({ type: 'subscribe', deviceId: device.id.id });
    await client.next('subscribed');

    const base = `/api/plugins/telemetry/DEVICE`;
    await okEmpty(
      p.http(`${base}/${other.id.id}/timeseries/ANY`, { method: 'POST', token, json: { ignored: 1 } }),
    );
    await okEmpty(
      p.http(`${base}/${device.id.id}/timeseries/ANY`, {
        method: 'POST',
        token,
        json: { ts: 1234, values: { temperature: 21.5 } },
      }),
    );
    const telemetry = await client.next('telemetry');
    expect(telemetry).toEqual({
      type: 'telemetry',
      deviceId: device.id.id,
      entries: [{ ts: 1234, values: { temperature: 21.5 } }],
    });
    await okEmpty(
      p.http(`${base}/${device.id.id}/attributes/SHARED_SCOPE`, {
        method: 'POST',
        token,
        json: { mode: 'eco' },
      }),
    );
    const attributes = await client.next('attributes');
    expect(attributes).toMatchObject({
      deviceId: device.id.id,
      scope: 'SHARED_SCOPE',
      values: { mode: 'eco' },
    });

    // A customer user may not follow the tenant's device.
    const customer = await connect(p, await p.login(CUSTOMER.username, CUSTOMER.password));
    customer.send({ type: 'subscribe', deviceId: device.id.id });
    const refused = await customer.next('error');
    expect(refused.code).toBe(20);
    customer.ws.close();
    client.ws.close();
  });

  it('pushes alarm changes to those who may see them, without a subscription', async () => {
    const p = withLoginPair(await startTestPlatform());
    const token = await p.login();
    const tenantDevice = await createDevice(p, token, { name: 'tenant alarmed' });
    const customerToken = await p.login(CUSTOMER.username, CUSTOMER.password);
    const me = (await (await p.http('/api/auth/user', { token: customerToken })).json()) as {
      customerId: { entityType: string; id: string };
    };
    const customerDevice = await createDevice(p, token, {
      name: 'customer alarmed',
      customerId: me.customerId,
    });
    const admin = await connect(p, token);
    const customer = await connect(p, customerToken);

    const raise = async (deviceId: string, type: string) => {
      const res = await p.http('/api/alarm', {
        method: 'POST',
        token,
        json: { type, severity: 'MAJOR', originator: { entityType: 'DEVICE', id: deviceId } },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { id: { id: string } }).id.id;
    };
    const tenantAlarm = await raise(tenantDevice.id.id, 'Tenant only');
    const created = await admin.next('alarm', (m) => m.alarm.id.id === tenantAlarm);
    expect(created).toMatchObject({
      kind: 'CREATED',
      alarm: { type: 'Tenant only', status: 'ACTIVE_UNACK' },
    });
    expect(created.alarm.originatorName).toBe('tenant alarmed');
    const customerAlarm = await raise(customerDevice.id.id, 'Shared');
    const seen = await customer.next('alarm');
    // the first alarm the customer hears of is its own: the tenant's, raised before, was never sent to it
    expect(seen.alarm.id.id).toBe(customerAlarm);
    await p.http(`/api/alarm/${customerAlarm}/ack`, { method: 'POST', token });
    expect((await customer.next('alarm')).kind).toBe('ACK');
    admin.ws.close();
    customer.ws.close();
  });

  it('closes the socket once the session is logged out', async () => {
    const p = withLoginPair(await startTestPlatform());
    const token = await p.login();
    const client = await connect(p, token);
    await okEmpty(p.http('/api/auth/logout', { method: 'POST', token }));
    // re-sending the (now revoked) token is checked at once
    client.send({ type: 'auth', token });
    expect((await client.closed).code).toBe(4401);
  });
});
