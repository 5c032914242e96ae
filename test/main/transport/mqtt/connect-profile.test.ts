import { afterEach, describe, expect, it } from 'vitest';
import { alarm, numeric, profileWithAlarms, rule } from '../../../fixtures/alarm-rules.ts';
import { okJson, useSharedPlatform, type DeviceJson } from '../../api/api-kit.ts';
import { closeAll, connect, loggedIn, newDevice, publishOk, type Api } from './mqtt-kit.ts';

/**
 * The device profile node takes a connecting device's profile from its CONNECT's credentials lookup; the
 * profile's alarm rules apply to what it sends, and a profile changed while it is connected wins.
 */
describe("a connected device's profile", () => {
  const api = loggedIn(useSharedPlatform());
  afterEach(closeAll);

  async function hotProfile({ p, token }: Api, name: string): Promise<string> {
    const profile = await okJson<{ id: { id: string } }>(
      p.http('/api/deviceProfile', {
        method: 'POST',
        token,
        json: profileWithAlarms(name, [
          alarm('Hot', { CRITICAL: rule([numeric('temperature', 'GREATER', 50)]) }),
        ]),
      }),
    );
    return profile.id.id;
  }

  async function activeAlarms({ p, token }: Api, deviceId: string): Promise<{ type: string }[]> {
    const page = await okJson<{ data: { type: string }[] }>(
      p.http(`/api/alarm/DEVICE/${deviceId}?pageSize=10&page=0&searchStatus=ACTIVE`, { token }),
    );
    return page.data;
  }

  it('raises the alarms of the profile it connected with, and follows a profile change made while connected', async () => {
    const a = await api();
    const hot = await hotProfile(a, 'Connect profile hot');
    const devices: DeviceJson[] = [];
    const clients = [];
    for (const name of ['connect-profile-stays', 'connect-profile-moves']) {
      const d = await newDevice(a, name);
      const moved = await okJson<DeviceJson>(
        a.p.http('/api/device', {
          method: 'POST',
          token: a.token,
          json: { ...d, deviceProfileId: { entityType: 'DEVICE_PROFILE', id: hot } },
        }),
      );
      devices.push(moved);
      clients.push(await connect(a.p.urls.mqtt, d.accessToken, 4));
    }
    const [stays, moves] = devices as [DeviceJson, DeviceJson];

    // the second device goes back to the default profile (no alarm rules) while connected
    const defaults = await okJson<{ id: { id: string } }>(
      a.p.http('/api/deviceProfileInfo/default', { token: a.token }),
    );
    await okJson(
      a.p.http('/api/device', {
        method: 'POST',
        token: a.token,
        json: { ...moves, deviceProfileId: { entityType: 'DEVICE_PROFILE', id: defaults.id.id } },
      }),
    );

    for (const c of clients) await publishOk(c, 'v1/devices/me/telemetry', { temperature: 60 });
    expect(await activeAlarms(a, stays.id.id)).toMatchObject([{ type: 'Hot' }]);
    expect(await activeAlarms(a, moves.id.id)).toEqual([]);
  });
});
