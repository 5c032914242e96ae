import { afterEach, describe, expect, it } from 'vitest';
import { okJson, useSharedPlatform } from '../../api/api-kit.ts';
import { closeAll, connect, newDevice, publishOk } from './mqtt-kit.ts';

const ANNOUNCED = 3_000;

describe('a gateway announcing many devices', () => {
  const platform = useSharedPlatform();
  afterEach(closeAll);

  it('creates them in chunks while another device CONNECTs and is answered before they are all done', async () => {
    const p = platform();
    const token = await p.login();
    const gateway = await newDevice({ p, token }, 'chunks-gateway', { gateway: true });
    const direct = await newDevice({ p, token }, 'chunks-direct');
    const gw = await connect(p.urls.mqtt, gateway.accessToken, 4);

    let acknowledged = 0;
    const announced = Array.from({ length: ANNOUNCED }, (_, i) =>
      gw
        .publishAsync('v1/gateway/connect', JSON.stringify({ device: `Chunk ${i}`, type: 'chunked' }), {
          qos: 1,
        })
        .then(() => acknowledged++),
    );
    // the first announcements are being created: now a device of its own connects
    while (acknowledged === 0) await new Promise((r) => setImmediate(r));
    const device = await connect(p.urls.mqtt, direct.accessToken, 4);
    const acknowledgedAtConnack = acknowledged;
    await publishOk(device, 'v1/devices/me/telemetry', { during: 1 });

    await Promise.all(announced);
    expect(acknowledgedAtConnack).toBeLessThan(ANNOUNCED);
    const page = await okJson<{ totalElements: number }>(
      p.http('/api/tenant/deviceInfos?pageSize=1&page=0&textSearch=Chunk%20', { token }),
    );
    expect(page.totalElements).toBe(ANNOUNCED);
    // announcing a known device again creates nothing new
    await gw.publishAsync('v1/gateway/connect', JSON.stringify({ device: 'Chunk 7' }), { qos: 1 });
    const again = await okJson<{ totalElements: number }>(
      p.http('/api/tenant/deviceInfos?pageSize=1&page=0&textSearch=Chunk%20', { token }),
    );
    expect(again.totalElements).toBe(ANNOUNCED);
  });
});
