import mqtt, { type MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { okJson, useSharedPlatform, type PageJson } from '../../api/api-kit.ts';

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
});
