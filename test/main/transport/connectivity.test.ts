import { afterEach, describe, expect, it } from 'vitest';
import { connectLive } from '../../helpers/live-ws.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { okEmpty, withLoginPair } from '../api/api-kit.ts';
import {
  attributes,
  closeAll,
  closedByBroker,
  connect,
  newDevice,
  publishOk,
  type Api,
} from './mqtt/mqtt-kit.ts';

afterEach(closeAll);

describe('connectivity as ThingsBoard shows it', () => {
  it("honours a device's inactivityTimeout server attribute (ms) over the default, and pushes each change live", async () => {
    const p = withLoginPair(await startTestPlatform());
    const api: Api = { p, token: await p.login() };
    const quick = await newDevice(api, 'Quick to sleep');
    const normal = await newDevice(api, 'Default timeout');
    await okEmpty(
      p.http(`/api/plugins/telemetry/DEVICE/${quick.id.id}/attributes/SERVER_SCOPE`, {
        method: 'POST',
        token: api.token,
        json: { inactivityTimeout: 1500 },
      }),
    );
    const live = await connectLive(p, api.token);
    const a = await connect(p.urls.mqtt, quick.accessToken, 4);
    const b = await connect(p.urls.mqtt, normal.accessToken, 4);
    await publishOk(a, 'v1/devices/me/telemetry', { t: 1 });
    await publishOk(b, 'v1/devices/me/telemetry', { t: 1 });
    await live.next('device', (m) => m.deviceId === quick.id.id && m.change === 'updated');
    const connected = await attributes(api, quick.id.id, 'SERVER_SCOPE');
    expect(connected).toMatchObject({
      active: true,
      lastConnectTime: expect.any(Number),
      lastActivityTime: expect.any(Number),
    });

    // no message for longer than its 1.5 s: inactive, pushed to the device list; the other stays active
    await live.next('device', (m) => m.deviceId === quick.id.id && m.change === 'updated');
    let quiet: Record<string, unknown>;
    do quiet = await attributes(api, quick.id.id, 'SERVER_SCOPE');
    while (quiet.active !== false);
    expect(quiet.inactivityAlarmTime).toEqual(expect.any(Number));
    expect((await attributes(api, normal.id.id, 'SERVER_SCOPE')).active).toBe(true);

    const closed = closedByBroker(b);
    await b.endAsync();
    await closed;
    let after: Record<string, unknown>;
    do after = await attributes(api, normal.id.id, 'SERVER_SCOPE');
    while (after.lastDisconnectTime === undefined);
    expect(after.lastDisconnectTime).toEqual(expect.any(Number));
    live.ws.close();
  });
});
