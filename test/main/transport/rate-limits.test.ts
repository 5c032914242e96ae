import { afterEach, describe, expect, it } from 'vitest';
import { UNLIMITED } from '../../../shared/schemas/transport-limits.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { expectTbError, okJson, withLoginPair, type ApiPlatform } from '../api/api-kit.ts';
import {
  closeAll,
  closedByBroker,
  connect,
  deviceByName,
  Inbox,
  newDevice,
  publish,
  publishOk,
  timeseries,
  VERSIONS,
  versionName,
  type Api,
} from './mqtt/mqtt-kit.ts';

async function setLimits(api: Api, limits: Partial<typeof UNLIMITED>) {
  return okJson(
    api.p.http('/api/sandboard/transportLimits', {
      method: 'POST',
      token: api.token,
      json: { ...UNLIMITED, ...limits },
    }),
  );
}

async function stats(api: Api, deviceId: string) {
  return okJson<{ rateLimited: number; lastRateLimit: string | null; lastRateLimitedTs: number | null }>(
    api.p.http(`/api/sandboard/device/${deviceId}/transportStats`, { token: api.token }),
  );
}

async function platformApi(dataDir?: string): Promise<Api> {
  const p: ApiPlatform = withLoginPair(await startTestPlatform(dataDir ? { dataDir } : {}));
  return { p, token: await p.login() };
}

describe('transport limits settings', () => {
  it('are unlimited by default, validated, and kept across a restart', async () => {
    const dataDir = tempDir();
    const first = await platformApi(dataDir);
    expect(await okJson(first.p.http('/api/sandboard/transportLimits', { token: first.token }))).toEqual(
      UNLIMITED,
    );
    const bad = await first.p.http('/api/sandboard/transportLimits', {
      method: 'POST',
      token: first.token,
      json: { ...UNLIMITED, transportDeviceMsgRateLimit: '0:1' },
    });
    await expectTbError(bad, 400, 30, 'transportDeviceMsgRateLimit');
    const notSpec = await first.p.http('/api/sandboard/transportLimits', {
      method: 'POST',
      token: first.token,
      json: { ...UNLIMITED, transportDeviceMsgRateLimit: '10' },
    });
    await expectTbError(notSpec, 400, 30, 'transportDeviceMsgRateLimit');
    await setLimits(first, { transportDeviceTelemetryMsgRateLimit: ' 10:1 , 300:60' });
    await first.p.stop();

    const second = await platformApi(dataDir);
    expect(await okJson(second.p.http('/api/sandboard/transportLimits', { token: second.token }))).toEqual({
      ...UNLIMITED,
      transportDeviceTelemetryMsgRateLimit: '10:1,300:60',
    });
    const customer = await second.p.login('customer@thingsboard.org', 'customer');
    const denied = await second.p.http('/api/sandboard/transportLimits', {
      method: 'POST',
      token: customer,
      json: UNLIMITED,
    });
    expect(denied.status).toBe(403);
  });
});

describe.each(VERSIONS.map((v) => [versionName(v), v] as const))(
  'rate limits enforced over %s',
  (_n, version) => {
    afterEach(closeAll);

    it("a device's telemetry past its limit ends the connection (v5: DISCONNECT 0x83 naming the limit), is not stored and is counted", async () => {
      const api = await platformApi();
      await setLimits(api, { transportDeviceTelemetryMsgRateLimit: '2:3600' });
      const device = await newDevice(api, 'limited');
      const client = await connect(api.p.urls.mqtt, device.accessToken, version);
      await publishOk(client, 'v1/devices/me/telemetry', { n: 1 });
      await publishOk(client, 'v1/devices/me/telemetry', { n: 2 });
      const disconnectReason = new Promise<{ reasonCode?: number; properties?: { reasonString?: string } }>(
        (resolve) => client.once('disconnect', resolve),
      );
      const closed = closedByBroker(client);
      expect((await publish(client, 'v1/devices/me/telemetry', { n: 3 })).code).toBe('closed');
      const reason = await closed;
      if (version === 5) {
        expect(reason).toBe(0x83);
        expect((await disconnectReason).properties?.reasonString).toBe(
          'Rate limit exceeded: device telemetry messages 2:3600',
        );
      } else {
        expect(reason).toBeUndefined();
      }
      const series = await timeseries(api, device.id.id, { keys: 'n', startTs: 0, endTs: Date.now() + 1000 });
      expect(series.n!.map((e) => e.value).sort()).toEqual([1, 2]);
      expect(await stats(api, device.id.id)).toMatchObject({
        rateLimited: 1,
        lastRateLimit: 'device telemetry messages 2:3600',
        lastRateLimitedTs: expect.any(Number),
      });
      // Attributes count against the message bucket, which is unlimited here.
      const again = await connect(api.p.urls.mqtt, device.accessToken, version);
      await publishOk(again, 'v1/devices/me/attributes', { still: 'ok' });
    });

    it('data points count too: a telemetry message with more than its share is refused', async () => {
      const api = await platformApi();
      await setLimits(api, { transportDeviceTelemetryDataPointsRateLimit: '5:3600' });
      const device = await newDevice(api, 'dp-limited');
      const client = await connect(api.p.urls.mqtt, device.accessToken, version);
      await publishOk(client, 'v1/devices/me/telemetry', { a: 1, b: 2, c: 3 });
      expect((await publish(client, 'v1/devices/me/telemetry', { d: 4, e: 5, f: 6 })).code).toBe('closed');
      expect((await stats(api, device.id.id)).lastRateLimit).toBe('device telemetry data points 5:3600');
    });

    it('devices behind a gateway share its bucket: past it PUBACK 0x97 (v5), v1/gateway/disconnect reason 150, and the connection ends', async () => {
      const api = await platformApi();
      await setLimits(api, { transportGatewayTelemetryMsgRateLimit: '2:3600' });
      const gw = await newDevice(api, 'gw', { gateway: true });
      const client = await connect(api.p.urls.mqtt, gw.accessToken, version);
      const inbox = new Inbox(client);
      await publishOk(client, 'v1/gateway/telemetry', { 'child-a': [{ v: 1 }] });
      await publishOk(client, 'v1/gateway/telemetry', { 'child-b': [{ v: 1 }] });
      const closed = closedByBroker(client);
      const outcome = await publish(client, 'v1/gateway/telemetry', { 'child-a': [{ v: 2 }] });
      if (version === 5) {
        expect(outcome.code).toBe(0x97);
        expect((await inbox.take('v1/gateway/disconnect')).json).toEqual({ device: 'child-a', reason: 150 });
        expect(await closed).toBe(0x96);
      } else {
        expect(outcome.code).toBe('closed');
        await closed;
      }
      const child = await deviceByName(api, 'child-a');
      expect((await stats(api, child.id.id)).lastRateLimit).toBe(
        'devices behind the gateway telemetry messages 2:3600',
      );
      expect((await timeseries(api, child.id.id)).v![0]!.value).toBe(1);
      // The gateway's own telemetry has its own (unlimited) bucket.
      const again = await connect(api.p.urls.mqtt, gw.accessToken, version);
      await publishOk(again, 'v1/devices/me/telemetry', { own: 1 });
    });
  },
);

describe('rate limits enforced over HTTP', () => {
  it('answers 429 with ThingsBoard error JSON past the limit; the tenant bucket is shared with MQTT', async () => {
    const api = await platformApi();
    await setLimits(api, {
      transportDeviceTelemetryMsgRateLimit: '1:3600',
      transportTenantMsgRateLimit: '3:3600',
    });
    const device = await newDevice(api, 'http-limited');
    const post = (path: string, body: unknown) =>
      fetch(`${api.p.urls.http}/api/v1/${device.accessToken}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('/telemetry', { t: 1 })).status).toBe(200);
    await expectTbError(
      await post('/telemetry', { t: 2 }),
      429,
      33,
      'Rate limit exceeded: device telemetry messages 1:3600',
    );
    expect(await stats(api, device.id.id)).toMatchObject({ rateLimited: 1 });

    // Three non-telemetry messages for the whole tenant: two over MQTT, one over HTTP, the fourth refused.
    const other = await newDevice(api, 'mqtt-tenant');
    const client = await connect(api.p.urls.mqtt, other.accessToken, 5);
    await publishOk(client, 'v1/devices/me/attributes', { a: 1 });
    await publishOk(client, 'v1/devices/me/attributes', { a: 2 });
    expect((await post('/attributes', { b: 1 })).status).toBe(200);
    await expectTbError(await post('/attributes', { b: 2 }), 429, 33, 'tenant messages 3:3600');
    await closeAll();
  });
});
