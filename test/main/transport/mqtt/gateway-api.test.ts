import { afterEach, describe, expect, it } from 'vitest';
import { createCustomer, okJson, useSharedPlatform, withLoginPair } from '../../api/api-kit.ts';
import { startTestPlatform } from '../../../helpers/platform.ts';
import {
  attributes,
  closeAll,
  connect,
  deleteShared,
  deviceByName,
  expectRefused,
  Inbox,
  newDevice,
  publish,
  publishOk,
  saveShared,
  subscribeOk,
  timeseries,
  VERSIONS,
  versionName,
  type Api,
  type MqttVersion,
} from './mqtt-kit.ts';

const BASE = Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000;
const GATEWAY_TOPICS = ['v1/gateway/attributes', 'v1/gateway/attributes/response', 'v1/gateway/rpc'];

describe.each(VERSIONS.map((v) => [versionName(v), v] as const))(
  'gateway MQTT API over %s',
  (_name, version) => {
    const platform = useSharedPlatform();
    let counter = 0;
    let token: string | undefined;
    afterEach(closeAll);

    /** A gateway device created through REST, connected and subscribed to the gateway topics. */
    async function setup(options: { customerId?: string } = {}) {
      const p = platform();
      token ??= await p.login();
      const api: Api = { p, token };
      const n = ++counter;
      const name = `gw-v${version}-${n}`;
      const gateway = await newDevice(api, name, { gateway: true });
      if (options.customerId) {
        await okJson(
          p.http(`/api/customer/${options.customerId}/device/${gateway.id.id}`, { method: 'POST', token }),
        );
      }
      const client = await connect(p.urls.mqtt, gateway.accessToken, version);
      const inbox = new Inbox(client);
      await subscribeOk(client, ...GATEWAY_TOPICS);
      /** a device name unique to this test */
      const dev = (label: string) => `${name}-${label}`;
      return { api, gateway, client, inbox, dev };
    }

    it('connect creates the device with its profile, the gateway as lastConnectedGateway and its customer', async () => {
      const p = platform();
      token ??= await p.login();
      const customerId = await createCustomer(p, token, `gw-customer-v${version}`);
      const { api, gateway, client, dev } = await setup({ customerId });
      const profileName = `${dev('profile')}`;
      await publishOk(client, 'v1/gateway/connect', { device: dev('a'), type: profileName });
      await publishOk(client, 'v1/gateway/connect', { device: dev('b') });
      await publishOk(client, 'v1/gateway/connect', { device: dev('c'), type: null });

      const a = await deviceByName(api, dev('a'));
      expect(a.type).toBe(profileName);
      expect(a.additionalInfo).toMatchObject({ lastConnectedGateway: gateway.id.id });
      expect(a.customerId.id).toBe(customerId);
      const profile = await okJson<{ name: string; default: boolean }>(
        p.http(`/api/deviceProfile/${a.deviceProfileId.id}`, { token }),
      );
      expect(profile.name).toBe(profileName);
      expect((await deviceByName(api, dev('b'))).type).toBe('default');
      expect((await deviceByName(api, dev('c'))).type).toBe('default');

      // An existing device is returned unchanged: a connect with another type does not change its profile.
      await publishOk(client, 'v1/gateway/disconnect', { device: dev('a') });
      await publishOk(client, 'v1/gateway/connect', { device: dev('a'), type: 'something-else' });
      expect(await deviceByName(api, dev('a'))).toEqual(a);
      const profiles = await okJson<{ data: { name: string }[] }>(
        p.http('/api/deviceProfiles?pageSize=1000&page=0', { token }),
      );
      expect(profiles.data.map((d) => d.name)).not.toContain('something-else');
    });

    it("new devices get the gateway's customer of the moment, even one assigned after it connected", async () => {
      const { api, gateway, client, dev } = await setup();
      const customerId = await createCustomer(api.p, api.token, `late-customer-v${version}`);
      await okJson(
        api.p.http(`/api/customer/${customerId}/device/${gateway.id.id}`, {
          method: 'POST',
          token: api.token,
        }),
      );
      await publishOk(client, 'v1/gateway/connect', { device: dev('late') });
      expect((await deviceByName(api, dev('late'))).customerId.id).toBe(customerId);
    });

    it('a device connected through another gateway gets the new lastConnectedGateway', async () => {
      const first = await setup();
      const second = await setup();
      const name = first.dev('moving');
      await publishOk(first.client, 'v1/gateway/connect', { device: name });
      expect((await deviceByName(first.api, name)).additionalInfo.lastConnectedGateway).toBe(
        first.gateway.id.id,
      );
      await publishOk(second.client, 'v1/gateway/connect', { device: name });
      expect((await deviceByName(first.api, name)).additionalInfo.lastConnectedGateway).toBe(
        second.gateway.id.id,
      );
    });

    it('stores telemetry batches with and without ts, connecting unknown devices implicitly', async () => {
      const { api, client, dev } = await setup();
      const before = Date.now();
      await publishOk(client, 'v1/gateway/telemetry', {
        [dev('t1')]: [
          { ts: BASE, values: { temperature: 20.5, humidity: 40 } },
          { ts: BASE + 1000, values: { temperature: 21.5, humidity: 41 } },
        ],
        [dev('t2')]: [
          { temperature: 5, on: true, metadata: { connector: 'rest', receivedTs: 1, publishedTs: 2 } },
        ],
        [dev('t3')]: 'not a list: skipped',
      });
      const after = Date.now();

      const t1 = await deviceByName(api, dev('t1'));
      expect(t1.type).toBe('default');
      expect(
        await timeseries(api, t1.id.id, {
          startTs: BASE,
          endTs: BASE + 2000,
          orderBy: 'ASC',
          keys: 'temperature,humidity',
        }),
      ).toEqual({
        temperature: [
          { ts: BASE, value: 20.5 },
          { ts: BASE + 1000, value: 21.5 },
        ],
        humidity: [
          { ts: BASE, value: 40 },
          { ts: BASE + 1000, value: 41 },
        ],
      });
      const t2 = await timeseries(api, (await deviceByName(api, dev('t2'))).id.id);
      expect(Object.keys(t2).sort()).toEqual(['on', 'temperature']);
      expect(t2.temperature![0]!.value).toBe(5);
      expect(t2.on![0]!.value).toBe(true);
      expect(t2.temperature![0]!.ts).toBeGreaterThanOrEqual(before);
      expect(t2.temperature![0]!.ts).toBeLessThanOrEqual(after);
      const t3 = await api.p.http(`/api/tenant/devices?deviceName=${dev('t3')}`, { token: api.token });
      expect(t3.status).toBe(404);
    });

    it('stores client attributes of several devices, creating missing ones', async () => {
      const { api, client, dev } = await setup();
      await publishOk(client, 'v1/gateway/attributes', {
        [dev('a1')]: { firmware: '2.0', port: 8 },
        [dev('a2')]: { firmware: '3.0' },
      });
      await publishOk(client, 'v1/gateway/attributes', { [dev('a1')]: { firmware: '2.1' } });
      const a1 = await deviceByName(api, dev('a1'));
      const a2 = await deviceByName(api, dev('a2'));
      expect(await attributes(api, a1.id.id, 'CLIENT_SCOPE')).toEqual({ firmware: '2.1', port: 8 });
      expect(await attributes(api, a2.id.id, 'CLIENT_SCOPE')).toEqual({ firmware: '3.0' });
    });

    it("answers attribute requests in ThingsBoard's shape and in the spec's shape", async () => {
      const { api, client, inbox, dev } = await setup();
      const name = dev('r');
      await publishOk(client, 'v1/gateway/attributes', { [name]: { model: 'M', serial: 'S' } });
      const device = await deviceByName(api, name);
      await saveShared(api, device.id.id, { interval: 30, mode: 'eco' });

      const ask = async (body: Record<string, unknown>) => {
        await publishOk(client, 'v1/gateway/attributes/request', { device: name, ...body });
        return (
          await inbox.take('v1/gateway/attributes/response', (j) => (j as { id: number }).id === body.id)
        ).json;
      };
      expect(await ask({ id: 1, client: true, key: 'model' })).toEqual({ id: 1, device: name, value: 'M' });
      expect(await ask({ id: 2, client: false, key: 'interval' })).toEqual({
        id: 2,
        device: name,
        value: 30,
      });
      expect(await ask({ id: 3, client: true, keys: ['model', 'serial', 'missing'] })).toEqual({
        id: 3,
        device: name,
        values: { model: 'M', serial: 'S' },
      });
      // One key asked and one found, but through keys: still "value".
      expect(await ask({ id: 4, client: false, keys: ['mode'] })).toEqual({
        id: 4,
        device: name,
        value: 'eco',
      });
      // Scope matters: a shared key asked as client is not found.
      expect(await ask({ id: 5, client: true, key: 'interval' })).toEqual({ id: 5, device: name });
      // The spec's shape: client and shared key arrays, answered from both scopes.
      expect(await ask({ id: 6, client: ['model'], shared: ['interval', 'mode'] })).toEqual({
        id: 6,
        device: name,
        values: { model: 'M', interval: 30, mode: 'eco' },
      });
      expect(await ask({ id: 7, client: ['nothing'], shared: [] })).toEqual({ id: 7, device: name });
    });

    it('an attribute request for a device never connected connects it implicitly', async () => {
      const { api, client, inbox, dev } = await setup();
      await publishOk(client, 'v1/gateway/attributes/request', {
        id: 42,
        device: dev('fresh'),
        client: true,
        key: 'x',
      });
      expect((await inbox.take('v1/gateway/attributes/response')).json).toEqual({
        id: 42,
        device: dev('fresh'),
      });
      expect((await deviceByName(api, dev('fresh'))).type).toBe('default');
    });

    it('sends shared attribute updates only for devices connected through it, until they disconnect', async () => {
      const { api, client, inbox, dev } = await setup();
      const [a, b] = [dev('a'), dev('b')];
      await publishOk(client, 'v1/gateway/connect', { device: a });
      await publishOk(client, 'v1/gateway/connect', { device: b });
      const [idA, idB] = [(await deviceByName(api, a)).id.id, (await deviceByName(api, b)).id.id];
      const notConnected = await newDevice(api, dev('rest-only'));

      await saveShared(api, idA, { setpoint: 21 });
      expect((await inbox.take('v1/gateway/attributes')).json).toEqual({ device: a, data: { setpoint: 21 } });
      await deleteShared(api, idA, ['setpoint']);
      expect((await inbox.take('v1/gateway/attributes')).json).toEqual({
        device: a,
        data: {},
        deleted: ['setpoint'],
      });

      await publishOk(client, 'v1/gateway/disconnect', { device: a });
      await saveShared(api, idA, { setpoint: 22 });
      await saveShared(api, notConnected.id.id, { setpoint: 23 });
      await saveShared(api, idB, { setpoint: 24 });
      const control = await inbox.take('v1/gateway/attributes');
      expect(control.json).toEqual({ device: b, data: { setpoint: 24 } });
      expect(inbox.before(control).map((m) => m.json)).toEqual([
        { device: a, data: { setpoint: 21 } },
        { device: a, data: {}, deleted: ['setpoint'] },
      ]);
    });

    it('when its session ends, the devices connected through it are disconnected', async () => {
      const first = await setup();
      const { api, dev, gateway } = first;
      const [a, b] = [dev('a'), dev('b')];
      await publishOk(first.client, 'v1/gateway/connect', { device: a });
      await publishOk(first.client, 'v1/gateway/connect', { device: b });
      const [idA, idB] = [(await deviceByName(api, a)).id.id, (await deviceByName(api, b)).id.id];
      await first.client.endAsync();

      const client = await connect(api.p.urls.mqtt, gateway.accessToken, version);
      const inbox = new Inbox(client);
      await subscribeOk(client, ...GATEWAY_TOPICS);
      await publishOk(client, 'v1/gateway/connect', { device: b });
      // A RPC for a waits: a is not connected in the new session.
      const rpc = api.p.http(`/api/rpc/twoway/${idA}`, {
        method: 'POST',
        token: api.token,
        json: { method: 'ping', params: {}, timeout: 5000 },
      });
      await saveShared(api, idA, { v: 1 });
      await saveShared(api, idB, { v: 2 });
      const control = await inbox.take('v1/gateway/attributes');
      expect(control.json).toEqual({ device: b, data: { v: 2 } });
      expect(inbox.before(control)).toEqual([]);

      // Connecting a again delivers the waiting RPC; its answer completes the REST call.
      await publishOk(client, 'v1/gateway/connect', { device: a });
      const request = await inbox.take('v1/gateway/rpc');
      expect(request.json).toEqual({
        device: a,
        data: { id: expect.any(Number) as number, method: 'ping', params: {} },
      });
      const id = (request.json as { data: { id: number } }).data.id;
      await publishOk(client, 'v1/gateway/rpc', { device: a, id, data: { pong: true } });
      expect(await okJson(rpc)).toEqual({ pong: true });
      const server = await attributes(api, idA, 'SERVER_SCOPE');
      expect(server.lastDisconnectTime).toEqual(expect.any(Number));
    });

    it('ignores the disconnect of a device it never connected or that does not exist', async () => {
      const { client, dev } = await setup();
      await publishOk(client, 'v1/gateway/disconnect', { device: dev('never-heard-of') });
      await publishOk(client, 'v1/gateway/disconnect', { device: dev('never-heard-of') });
      // The connection is still usable.
      await publishOk(client, 'v1/gateway/connect', { device: dev('after') });
    });

    it('publishes its own telemetry and attributes through the device API', async () => {
      const { api, gateway, client } = await setup();
      await publishOk(client, 'v1/devices/me/telemetry', { cpu: 12 });
      await publishOk(client, 'v1/devices/me/attributes', { version: '3.8' });
      expect((await timeseries(api, gateway.id.id)).cpu![0]!.value).toBe(12);
      expect(await attributes(api, gateway.id.id, 'CLIENT_SCOPE')).toEqual({ version: '3.8' });
    });
  },
);

describe('device limit', () => {
  afterEach(closeAll);

  async function limited(version: MqttVersion) {
    // The demo data seeds no devices; the gateway is the first of 3.
    const p = withLoginPair(await startTestPlatform({ deviceLimit: 3 }));
    const api: Api = { p, token: await p.login() };
    const gateway = await newDevice(api, `limit-gw-${version}`, { gateway: true });
    const client = await connect(p.urls.mqtt, gateway.accessToken, version);
    return { api, client };
  }

  it('answers 0x97 (quota exceeded) on MQTT 5 past the limit, and existing devices still connect', async () => {
    const { api, client } = await limited(5);
    await publishOk(client, 'v1/gateway/connect', { device: 'lim-1' });
    await publishOk(client, 'v1/gateway/connect', { device: 'lim-2' });
    expect(await publish(client, 'v1/gateway/connect', { device: 'lim-3' })).toMatchObject({ code: 0x97 });
    // Implicit connects count too.
    expect(await publish(client, 'v1/gateway/telemetry', { 'lim-4': [{ t: 1 }] })).toMatchObject({
      code: 0x97,
    });
    await publishOk(client, 'v1/gateway/disconnect', { device: 'lim-1' });
    await publishOk(client, 'v1/gateway/connect', { device: 'lim-1' });
    await publishOk(client, 'v1/gateway/telemetry', { 'lim-2': [{ t: 1 }] });
    const res = await api.p.http('/api/tenant/devices?deviceName=lim-3', { token: api.token });
    expect(res.status).toBe(404);
  });

  it('closes an MQTT 3.1.1 connection past the limit', async () => {
    const { client } = await limited(4);
    await publishOk(client, 'v1/gateway/connect', { device: 'lim-1' });
    await publishOk(client, 'v1/gateway/connect', { device: 'lim-2' });
    await expectRefused(client, 4, 'v1/gateway/connect', { device: 'lim-3' }, 0x97);
  });
});
