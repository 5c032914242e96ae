import mqtt, { type MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { okJson, useSharedPlatform, type PageJson } from '../../api/api-kit.ts';
import { timeseries } from './mqtt-kit.ts';

const FLEET = 400;

describe('a connect storm', () => {
  const platform = useSharedPlatform();
  const clients: MqttClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
    clients.length = 0;
  });

  it('connects every device of a fleet connecting at once while REST keeps answering', async () => {
    const p = platform();
    const token = await p.login();
    const tokens = Array.from({ length: FLEET }, (_, i) => `storm-${i}`);
    await okJson(
      p.http('/api/device/bulk_import', {
        method: 'POST',
        token,
        json: {
          file: tokens.map((t, i) => `Storm ${i},${t}`).join('\n'),
          mapping: { columns: [{ type: 'NAME' }, { type: 'ACCESS_TOKEN' }], header: false, update: false },
        },
      }),
    );

    let connacks = 0;
    let stormOver = false;
    const answersDuringStorm: number[] = [];
    // one REST call in flight at a time for as long as the storm lasts, as a UI polling the device list
    const poller = (async () => {
      while (!stormOver) {
        const res = await p.http('/api/tenant/deviceInfos?pageSize=10&page=0', { token });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        if (!stormOver) answersDuringStorm.push(connacks);
      }
    })();
    const results = await Promise.allSettled(
      tokens.map((username) =>
        mqtt
          .connectAsync(p.urls.mqtt, {
            protocolVersion: 4,
            username,
            reconnectPeriod: 0,
            connectTimeout: 60_000,
          })
          .then((c) => {
            connacks++;
            clients.push(c);
            c.on('error', () => undefined);
          }),
      ),
    );
    stormOver = true;
    await poller;

    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(connacks).toBe(FLEET);
    // REST answered while CONNACKs were still outstanding, not only once the storm was over
    expect(answersDuringStorm.some((n) => n < FLEET)).toBe(true);

    const published = await Promise.all(
      clients.map((c, i) => c.publishAsync('v1/devices/me/telemetry', JSON.stringify({ n: i }), { qos: 1 })),
    );
    expect(published).toHaveLength(FLEET);
    const active = await okJson<PageJson<{ active: boolean }>>(
      p.http('/api/tenant/deviceInfos?pageSize=1&page=0&active=true', { token }),
    );
    expect(active.totalElements).toBe(FLEET);
  }, 120_000);

  it('answers every CONNECT of a storm on its own: right tokens as their own device, wrong or missing ones refused', async () => {
    const p = platform();
    const token = await p.login();
    const devices = Array.from({ length: 150 }, (_, i) => ({ name: `Mixed ${i}`, token: `mixed-${i}` }));
    const imported = await okJson<{ created: number }>(
      p.http('/api/device/bulk_import', {
        method: 'POST',
        token,
        json: {
          file: devices.map((d) => `${d.name},${d.token}`).join('\n'),
          mapping: { columns: [{ type: 'NAME' }, { type: 'ACCESS_TOKEN' }], header: false, update: false },
        },
      }),
    );
    expect(imported.created).toBe(devices.length);
    // right and wrong tokens (and no user name at all) interleaved, so they share admission slices
    const attempts = devices.flatMap((d, i) => [
      { username: d.token as string | undefined, device: i },
      { username: i % 5 === 0 ? undefined : `${d.token}-wrong`, device: -1 },
    ]);
    const outcomes = await Promise.allSettled(
      attempts.map((a) =>
        mqtt
          .connectAsync(p.urls.mqtt, {
            protocolVersion: 4,
            username: a.username,
            reconnectPeriod: 0,
            connectTimeout: 60_000,
          })
          .then((c) => {
            clients.push(c);
            c.on('error', () => undefined);
            return c;
          }),
      ),
    );
    const accepted = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [attempts[i]!.device] : []));
    expect(accepted).toEqual(devices.map((_, i) => i));
    for (const [i, o] of outcomes.entries())
      if (o.status === 'rejected') expect((o.reason as { code?: number }).code, `attempt ${i}`).toBe(4);

    // each accepted session is its own device's: what it publishes lands there
    const connected = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    await Promise.all(
      connected.map((c, i) =>
        c.publishAsync('v1/devices/me/telemetry', JSON.stringify({ n: i }), { qos: 1 }),
      ),
    );
    const page = await okJson<PageJson<{ id: { id: string }; name: string }>>(
      p.http('/api/tenant/deviceInfos?pageSize=200&page=0&textSearch=Mixed', { token }),
    );
    for (const i of [0, 1, 57, 149]) {
      const id = page.data.find((d) => d.name === `Mixed ${i}`)!.id.id;
      const series = await timeseries({ p, token }, id, { keys: 'n' });
      expect(series.n?.[0]?.value).toBe(i);
    }
  }, 120_000);
});
