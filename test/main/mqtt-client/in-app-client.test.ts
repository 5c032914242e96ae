import { afterEach, describe, expect, it } from 'vitest';
import type {
  ClientConnection,
  ClientSentMessage,
  ClientState,
} from '../../../shared/schemas/mqtt-client.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { okJson, withLoginPair } from '../api/api-kit.ts';
import { closeAll, newDevice, timeseries, type Api } from '../transport/mqtt/mqtt-kit.ts';

afterEach(closeAll);

async function platformApi(): Promise<Api> {
  const p = withLoginPair(await startTestPlatform());
  return { p, token: await p.login() };
}

const post = <T>({ p, token }: Api, path: string, json: unknown) =>
  okJson<T>(p.http(path, { method: 'POST', token, json }));

describe('in-app MQTT client', () => {
  it('connects as a device, publishes a snippet with generators (distinct values, PUBACK shown), answers RPC by rule', async () => {
    const api = await platformApi();
    const device = await newDevice(api, 'Client device');
    const conn = await post<ClientConnection>(api, '/api/sandboard/mqtt/clients', {
      deviceId: device.id.id,
      protocolVersion: 5,
    });
    expect(conn).toMatchObject({ state: 'connected', deviceId: device.id.id, label: 'Client device' });
    const template = '{"n":${counter},"t":${random(20,30)},"id":"${uuid}","city":"${csv(city)}"}';
    const csv = 'city\nParis\nOslo\n';
    const sent: ClientSentMessage[] = [];
    for (let i = 0; i < 3; i++)
      sent.push(
        await post<ClientSentMessage>(api, `/api/sandboard/mqtt/clients/${conn.id}/publish`, {
          topic: 'v1/devices/me/telemetry',
          payload: template,
          qos: 1,
          csv,
        }),
      );
    expect(sent.map((s) => s.reasonCode)).toEqual([0, 0, 0]);
    const bodies = sent.map(
      (s) => JSON.parse(s.payload) as { n: number; t: number; id: string; city: string },
    );
    expect(bodies.map((b) => b.n)).toEqual([1, 2, 3]);
    expect(bodies.map((b) => b.city)).toEqual(['Paris', 'Oslo', 'Paris']);
    expect(new Set(bodies.map((b) => b.id)).size).toBe(3);
    for (const b of bodies) expect(b.t).toBeGreaterThanOrEqual(20);
    const series = await timeseries(api, device.id.id, { keys: 'n', startTs: 0, endTs: Date.now() + 1000 });
    expect(series.n!.map((e) => e.value).sort()).toEqual([1, 2, 3]);

    // a refused publish shows the broker's reason code
    const refused = await post<ClientSentMessage>(api, `/api/sandboard/mqtt/clients/${conn.id}/publish`, {
      topic: 'v1/devices/me/telemetry',
      payload: 'not json',
    });
    expect(refused.reasonCode).toBe(0x99);

    const bad = await api.p.http(`/api/sandboard/mqtt/clients/${conn.id}/publish`, {
      method: 'POST',
      token: api.token,
      json: { topic: 'v1/devices/me/telemetry', payload: '${nope}' },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toContain('unknown generator');

    // RPC answered by rule
    await post(api, `/api/sandboard/mqtt/clients/${conn.id}/subscribe`, {
      topic: 'v1/devices/me/rpc/request/+',
    });
    await post(api, `/api/sandboard/mqtt/clients/${conn.id}/rpcRules`, [
      { method: 'getState', response: { on: true } },
    ]);
    const answer = await post<unknown>(api, `/api/rpc/twoway/${device.id.id}`, {
      method: 'getState',
      params: {},
      timeout: 5000,
    });
    expect(answer).toEqual({ on: true });
    const state = await okJson<ClientState>(
      api.p.http(`/api/sandboard/mqtt/clients/${conn.id}`, { token: api.token }),
    );
    expect(state.received[0]).toMatchObject({
      topic: expect.stringMatching(/^v1\/devices\/me\/rpc\/request\/\d+$/),
    });
    expect(state.sent[0]!.topic).toMatch(/^v1\/devices\/me\/rpc\/response\/\d+$/);

    await okJson(
      api.p.http(`/api/sandboard/mqtt/clients/${conn.id}`, { method: 'DELETE', token: api.token }),
    );
    expect(await okJson(api.p.http('/api/sandboard/mqtt/clients', { token: api.token }))).toEqual([]);
  });

  it('repeats a publish every N ms until stopped; a customer may connect only as its own devices', async () => {
    const api = await platformApi();
    const device = await newDevice(api, 'Repeater');
    const conn = await post<ClientConnection>(api, '/api/sandboard/mqtt/clients', { deviceId: device.id.id });
    const { repeatId } = await post<{ repeatId: string }>(
      api,
      `/api/sandboard/mqtt/clients/${conn.id}/publish`,
      {
        topic: 'v1/devices/me/telemetry',
        payload: '{"k":${counter}}',
        everyMs: 20,
        times: 5,
      },
    );
    expect(repeatId).toBeTruthy();
    let state: ClientState;
    do {
      state = await okJson<ClientState>(
        api.p.http(`/api/sandboard/mqtt/clients/${conn.id}`, { token: api.token }),
      );
    } while (state.sent.filter((s) => s.reasonCode === 0).length < 5);
    expect(state.repeats).toEqual([]);

    const customer: Api = { p: api.p, token: await api.p.login('customer@thingsboard.org', 'customer') };
    const byUrl = await api.p.http('/api/sandboard/mqtt/clients', {
      method: 'POST',
      token: customer.token,
      json: { url: api.p.urls.mqtt, username: device.accessToken },
    });
    expect(byUrl.status).toBe(400);
    const notTheirs = await api.p.http('/api/sandboard/mqtt/clients', {
      method: 'POST',
      token: customer.token,
      json: { deviceId: device.id.id },
    });
    expect(notTheirs.status).toBe(403);
  });
});
