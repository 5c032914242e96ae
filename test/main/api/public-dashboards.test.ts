/**
 * Public dashboards as ThingsBoard serves them: POST /api/auth/login/public with the public customer's id
 * gives the token of its virtual user, which reads the dashboards and devices assigned to the public
 * customer (over REST and the WebSocket API), nothing else, and may write nothing.
 */
import { describe, expect, it } from 'vitest';
import { openTbWs } from '../../helpers/tb-ws-client.ts';
import {
  CUSTOMER,
  NULL_UUID,
  createDevice,
  decodeJwt,
  expectTbError,
  okEmpty,
  okJson,
  useSharedPlatform,
  type EntityRef,
  type PageJson,
} from './api-kit.ts';

interface DashboardJson {
  id: EntityRef;
  title: string;
  assignedCustomers: { customerId: EntityRef; public: boolean }[];
}

const loginPublic = (p: ReturnType<ReturnType<typeof useSharedPlatform>>, publicId: unknown) =>
  p.http('/api/auth/login/public', { method: 'POST', json: { publicId } });

describe('public dashboards: POST /api/auth/login/public', () => {
  const platform = useSharedPlatform();

  it("gives the public customer's viewer a token that reads public things only and writes nothing", async () => {
    const p = platform();
    const token = await p.login();
    const save = (title: string) =>
      okJson<DashboardJson>(p.http('/api/dashboard', { method: 'POST', token, json: { title } }));
    const shown = await save('Lobby screen');
    const hidden = await save('Plant room');
    const made = await okJson<DashboardJson>(
      p.http(`/api/customer/public/dashboard/${shown.id.id}`, { method: 'POST', token }),
    );
    const publicId = made.assignedCustomers[0]!.customerId.id;
    const lobby = await createDevice(p, token, { name: 'Lobby sensor', type: 'public-test' });
    const plant = await createDevice(p, token, { name: 'Plant sensor', type: 'public-test' });
    await okJson(p.http(`/api/customer/public/device/${lobby.id.id}`, { method: 'POST', token }));
    for (const d of [lobby, plant])
      await okEmpty(
        p.http(`/api/plugins/telemetry/DEVICE/${d.id.id}/timeseries/ANY`, {
          method: 'POST',
          token,
          json: { temperature: 21.5 },
        }),
      );

    const pair = await okJson<{ token: string; refreshToken: string; scope: string }>(
      loginPublic(p, publicId),
    );
    expect(pair.scope).toBe('CUSTOMER_USER');
    expect(decodeJwt(pair.token).payload).toMatchObject({
      sub: publicId,
      userId: NULL_UUID,
      customerId: publicId,
      isPublic: true,
      scopes: ['CUSTOMER_USER'],
    });
    const pub = pair.token;
    expect(await okJson(p.http('/api/auth/user', { token: pub }))).toMatchObject({
      id: { entityType: 'USER', id: NULL_UUID },
      customerId: { entityType: 'CUSTOMER', id: publicId },
      authority: 'CUSTOMER_USER',
      firstName: 'Public',
      lastName: 'Public',
    });

    // reads: the public dashboard and device; not the private ones
    expect((await okJson<DashboardJson>(p.http(`/api/dashboard/${shown.id.id}`, { token: pub }))).title).toBe(
      'Lobby screen',
    );
    await expectTbError(await p.http(`/api/dashboard/${hidden.id.id}`, { token: pub }), 403, 20);
    const listed = await okJson<PageJson<DashboardJson>>(
      p.http(`/api/customer/${publicId}/dashboards?pageSize=10&page=0`, { token: pub }),
    );
    expect(listed.data.map((d) => d.title)).toEqual(['Lobby screen']);
    await okJson(p.http(`/api/device/${lobby.id.id}`, { token: pub }));
    await expectTbError(await p.http(`/api/device/${plant.id.id}`, { token: pub }), 403, 20);
    expect(
      await okJson(
        p.http(`/api/plugins/telemetry/DEVICE/${lobby.id.id}/values/timeseries?keys=temperature`, {
          token: pub,
        }),
      ),
    ).toEqual({ temperature: [{ ts: expect.any(Number), value: '21.5' }] });
    const found = await okJson<PageJson<{ entityId: EntityRef }>>(
      p.http('/api/entitiesQuery/find', {
        method: 'POST',
        token: pub,
        json: {
          entityFilter: { type: 'deviceType', deviceTypes: ['public-test'], deviceNameFilter: '' },
          pageLink: { pageSize: 10, page: 0 },
        },
      }),
    );
    expect(found.data.map((e) => e.entityId.id)).toEqual([lobby.id.id]);
    await expectTbError(await p.http('/api/tenant/dashboards?pageSize=10&page=0', { token: pub }), 403, 20);

    // writes: refused, even to what it may read
    const refused = [
      p.http('/api/dashboard', { method: 'POST', token: pub, json: { ...shown, title: 'Defaced' } }),
      p.http(`/api/plugins/telemetry/DEVICE/${lobby.id.id}/timeseries/ANY`, {
        method: 'POST',
        token: pub,
        json: { temperature: 99 },
      }),
      p.http(`/api/plugins/telemetry/DEVICE/${lobby.id.id}/SHARED_SCOPE`, {
        method: 'POST',
        token: pub,
        json: { targetTemp: 30 },
      }),
      p.http(`/api/rpc/oneway/${lobby.id.id}`, {
        method: 'POST',
        token: pub,
        json: { method: 'x', params: {} },
      }),
      p.http(`/api/customer/public/dashboard/${hidden.id.id}`, { method: 'POST', token: pub }),
      p.http(`/api/dashboard/${shown.id.id}`, { method: 'DELETE', token: pub }),
    ];
    for (const res of await Promise.all(refused)) await expectTbError(res, 403, 20, 'permission');
    expect((await okJson<DashboardJson>(p.http(`/api/dashboard/${shown.id.id}`, { token }))).title).toBe(
      'Lobby screen',
    );
    expect(
      await okJson(
        p.http(`/api/plugins/telemetry/DEVICE/${lobby.id.id}/values/timeseries?keys=temperature`, { token }),
      ),
    ).toEqual({ temperature: [{ ts: expect.any(Number), value: '21.5' }] });

    // the WebSocket API: the public device's updates; the private device is refused
    const ws = await openTbWs(p, { token: pub }, [
      { type: 'TIMESERIES', cmdId: 1, entityType: 'DEVICE', entityId: lobby.id.id, keys: 'temperature' },
      { type: 'TIMESERIES', cmdId: 2, entityType: 'DEVICE', entityId: plant.id.id, keys: 'temperature' },
    ]);
    expect((await ws.forCmd(1)).errorCode).toBe(0);
    expect(await ws.forCmd(2)).toMatchObject({ subscriptionId: 2, errorCode: 3, data: null });
    await okEmpty(
      p.http(`/api/plugins/telemetry/DEVICE/${lobby.id.id}/timeseries/ANY`, {
        method: 'POST',
        token,
        json: { temperature: 22 },
      }),
    );
    const update = await ws.forCmd(1, (m) => JSON.stringify(m.data).includes('"22"'));
    expect(update.data).toEqual({ temperature: [[expect.any(Number), '22']] });
    ws.ws.close();

    // the refresh token gives a new public pair
    const refreshed = await okJson<{ token: string }>(
      p.http('/api/auth/token', { method: 'POST', json: { refreshToken: pair.refreshToken } }),
    );
    expect(decodeJwt(refreshed.token).payload).toMatchObject({ isPublic: true, customerId: publicId });
    await okJson(p.http(`/api/dashboard/${shown.id.id}`, { token: refreshed.token }));
  });

  it('refuses an id that is not a public customer, and a token once its customer is no longer public', async () => {
    const p = platform();
    const token = await p.login();
    const customerToken = await p.login(CUSTOMER.username, CUSTOMER.password);
    const ordinary = decodeJwt(customerToken).payload.customerId as string;
    for (const id of ['not-a-uuid', NULL_UUID, ordinary])
      await expectTbError(await loginPublic(p, id), 401, 10, 'Public Id is not valid');
    await expectTbError(await p.http('/api/auth/login/public', { method: 'POST', json: {} }), 400, 30);

    const d = await okJson<DashboardJson>(
      p.http('/api/dashboard', { method: 'POST', token, json: { title: 'Kiosk' } }),
    );
    const made = await okJson<DashboardJson>(
      p.http(`/api/customer/public/dashboard/${d.id.id}`, { method: 'POST', token }),
    );
    const publicId = made.assignedCustomers[0]!.customerId.id;
    const pub = (await okJson<{ token: string }>(loginPublic(p, publicId.toUpperCase()))).token;
    await okJson(p.http(`/api/dashboard/${d.id.id}`, { token: pub }));
    // the tenant turns the public customer into an ordinary one: its tokens stop working
    const customer = await okJson<Record<string, unknown>>(p.http(`/api/customer/${publicId}`, { token }));
    await okJson(
      p.http('/api/customer', {
        method: 'POST',
        token,
        json: { ...customer, additionalInfo: { isPublic: false } },
      }),
    );
    await expectTbError(
      await p.http(`/api/dashboard/${d.id.id}`, { token: pub }),
      401,
      10,
      'Public Id is not valid',
    );
  });
});
