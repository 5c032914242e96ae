import { afterEach, describe, expect, it } from 'vitest';
import { useSharedPlatform } from '../../api/api-kit.ts';
import {
  attributes,
  closeAll,
  connect,
  deleteShared,
  Inbox,
  newDevice,
  publishOk,
  saveShared,
  subscribeOk,
  timeseries,
  VERSIONS,
  versionName,
  type Api,
} from './mqtt-kit.ts';

/** A whole minute an hour ago: history timestamps no "now" entry can collide with. */
const BASE = Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000;

describe.each(VERSIONS.map((v) => [versionName(v), v] as const))(
  'device MQTT API over %s',
  (_name, version) => {
    const platform = useSharedPlatform();
    let counter = 0;
    let token: string | undefined;
    afterEach(closeAll);

    async function setup() {
      const p = platform();
      token ??= await p.login();
      const api: Api = { p, token };
      const device = await newDevice(api, `dev-v${version}-${++counter}`);
      const client = await connect(p.urls.mqtt, device.accessToken, version);
      return { api, device, client };
    }

    it('stores telemetry in every shape ThingsBoard accepts, readable once PUBACKed', async () => {
      const { api, device, client } = await setup();
      const before = Date.now();
      await publishOk(client, 'v1/devices/me/telemetry', {
        temperature: 21.5,
        humidity: 40,
        active: true,
        mode: 'auto',
        config: { a: 1 },
      });
      const after = Date.now();
      await publishOk(client, 'v1/devices/me/telemetry', { ts: BASE, values: { pressure: 1013 } });
      await publishOk(client, 'v1/devices/me/telemetry', [
        { ts: BASE + 1, values: { pressure: 1014 } },
        { ts: BASE + 2, values: { pressure: 1015, wind: 3.25 } },
        { gust: 7 },
      ]);

      const latest = await timeseries(api, device.id.id);
      const nowTs = latest.temperature![0]!.ts;
      expect(nowTs).toBeGreaterThanOrEqual(before);
      expect(nowTs).toBeLessThanOrEqual(after);
      expect(latest).toEqual({
        temperature: [{ ts: nowTs, value: 21.5 }],
        humidity: [{ ts: nowTs, value: 40 }],
        active: [{ ts: nowTs, value: true }],
        mode: [{ ts: nowTs, value: 'auto' }],
        config: [{ ts: nowTs, value: { a: 1 } }],
        pressure: [{ ts: BASE + 2, value: 1015 }],
        wind: [{ ts: BASE + 2, value: 3.25 }],
        gust: [{ ts: expect.any(Number) as number, value: 7 }],
      });
      expect(latest.gust![0]!.ts).toBeGreaterThanOrEqual(after);
      const history = await timeseries(api, device.id.id, {
        keys: 'pressure',
        startTs: BASE,
        endTs: BASE + 10,
        orderBy: 'ASC',
      });
      expect(history).toEqual({
        pressure: [
          { ts: BASE, value: 1013 },
          { ts: BASE + 1, value: 1014 },
          { ts: BASE + 2, value: 1015 },
        ],
      });
    });

    it('stores published attributes as client attributes and updates them', async () => {
      const { api, device, client } = await setup();
      await publishOk(client, 'v1/devices/me/attributes', { firmware: '1.0', slots: 4, enabled: false });
      await publishOk(client, 'v1/devices/me/attributes', { firmware: '1.1' });
      expect(await attributes(api, device.id.id, 'CLIENT_SCOPE')).toEqual({
        firmware: '1.1',
        slots: 4,
        enabled: false,
      });
      expect(await attributes(api, device.id.id, 'SHARED_SCOPE')).toEqual({});
    });

    it('answers attribute requests on the response topic with the same id', async () => {
      const { api, device, client } = await setup();
      const inbox = new Inbox(client);
      await subscribeOk(client, 'v1/devices/me/attributes/response/+');
      await publishOk(client, 'v1/devices/me/attributes', { model: 'X1', serial: 'S-9' });
      await saveShared(api, device.id.id, { interval: 30, label: 'north' });

      await publishOk(client, 'v1/devices/me/attributes/request/7', {
        clientKeys: 'model',
        sharedKeys: 'interval,missing',
      });
      expect((await inbox.take('v1/devices/me/attributes/response/7')).json).toEqual({
        client: { model: 'X1' },
        shared: { interval: 30 },
      });
      await publishOk(client, 'v1/devices/me/attributes/request/8', { sharedKeys: 'label' });
      expect((await inbox.take('v1/devices/me/attributes/response/8')).json).toEqual({
        shared: { label: 'north' },
      });
      // No keys: everything of both scopes; an empty payload is the same.
      await publishOk(client, 'v1/devices/me/attributes/request/9', {});
      await publishOk(client, 'v1/devices/me/attributes/request/10', '');
      for (const id of [9, 10]) {
        expect((await inbox.take(`v1/devices/me/attributes/response/${id}`)).json).toEqual({
          client: { model: 'X1', serial: 'S-9' },
          shared: { interval: 30, label: 'north' },
        });
      }
    });

    it('pushes shared attribute updates and deletions to a subscribed device, and only shared ones', async () => {
      const { api, device, client } = await setup();
      const inbox = new Inbox(client);
      await subscribeOk(client, 'v1/devices/me/attributes');
      // A server-scope attribute is not the device's business; the shared update after it must arrive alone.
      const res = await api.p.http(`/api/plugins/telemetry/DEVICE/${device.id.id}/attributes/SERVER_SCOPE`, {
        method: 'POST',
        token: api.token,
        json: { secret: 1 },
      });
      expect(res.status).toBe(200);
      await saveShared(api, device.id.id, { interval: 10, mode: 'eco' });
      const update = await inbox.take('v1/devices/me/attributes');
      expect(update.json).toEqual({ interval: 10, mode: 'eco' });
      expect(inbox.before(update)).toEqual([]);

      await deleteShared(api, device.id.id, ['mode']);
      expect((await inbox.take('v1/devices/me/attributes')).json).toEqual({ deleted: ['mode'] });
      // Publishing client attributes on the same topic is not echoed back.
      await publishOk(client, 'v1/devices/me/attributes', { own: 1 });
      await saveShared(api, device.id.id, { interval: 11 });
      const next = await inbox.take('v1/devices/me/attributes');
      expect(next.json).toEqual({ interval: 11 });
      expect(inbox.all.map((m) => m.json)).toEqual([
        { interval: 10, mode: 'eco' },
        { deleted: ['mode'] },
        { interval: 11 },
      ]);
    });

    it('acknowledges a client-side RPC request and keeps the device active', async () => {
      const { api, device, client } = await setup();
      await publishOk(client, 'v1/devices/me/rpc/request/1', { method: 'getTime', params: {} });
      const server = await attributes(api, device.id.id, 'SERVER_SCOPE');
      expect(server.active).toBe(true);
      expect(server.lastConnectTime).toEqual(expect.any(Number));
      expect(server.lastActivityTime).toEqual(expect.any(Number));
    });
  },
);
