import { describe, expect, it } from 'vitest';
import {
  CUSTOMER,
  NULL_UUID,
  createDevice,
  expectTbError,
  okEmpty,
  okJson,
  useSharedPlatform,
  type EntityRef,
  type PageJson,
} from './api-kit.ts';

interface ProfileInfoJson {
  id: EntityRef;
  tenantId: EntityRef;
  name: string;
  image: string | null;
  defaultDashboardId: EntityRef | null;
  type: string;
  transportType: string;
}

describe('device profile infos, names and keys', () => {
  const platform = useSharedPlatform();

  it('answers profile infos by id, by ids and in pages filtered by transport type', async () => {
    const p = platform();
    const token = await p.login();
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    const mqtt = await okJson<{ id: EntityRef }>(
      p.http('/api/deviceProfile', {
        method: 'POST',
        token,
        json: { name: 'infos-mqtt', transportType: 'MQTT' },
      }),
    );
    const plain = await okJson<{ id: EntityRef }>(
      p.http('/api/deviceProfile', { method: 'POST', token, json: { name: 'infos-plain' } }),
    );
    const info = await okJson<ProfileInfoJson>(
      p.http(`/api/deviceProfileInfo/${mqtt.id.id}`, { token: customer }),
    );
    expect(info).toEqual({
      id: mqtt.id,
      tenantId: { entityType: 'TENANT', id: expect.any(String) as string },
      name: 'infos-mqtt',
      image: null,
      defaultDashboardId: null,
      type: 'DEFAULT',
      transportType: 'MQTT',
    });
    await expectTbError(await p.http(`/api/deviceProfileInfo/${NULL_UUID}`, { token }), 404, 32);

    const page = await okJson<PageJson<ProfileInfoJson>>(
      p.http('/api/deviceProfileInfos?pageSize=10&page=0&textSearch=infos-&sortProperty=name&sortOrder=ASC', {
        token: customer,
      }),
    );
    expect(page.data.map((d) => d.name)).toEqual(['infos-mqtt', 'infos-plain']);
    const mqttOnly = await okJson<PageJson<ProfileInfoJson>>(
      p.http('/api/deviceProfileInfos?pageSize=10&page=0&transportType=MQTT', { token }),
    );
    expect(mqttOnly.data.map((d) => d.name)).toEqual(['infos-mqtt']);
    const byIds = await okJson<ProfileInfoJson[]>(
      p.http(`/api/deviceProfileInfos?deviceProfileIds=${plain.id.id}&deviceProfileIds=${mqtt.id.id}`, {
        token,
      }),
    );
    expect(byIds.map((d) => d.name)).toEqual(['infos-mqtt', 'infos-plain']);
    await expectTbError(await p.http('/api/deviceProfileInfos?page=0', { token }), 400, 31, 'pageSize');
    await expectTbError(
      await p.http(`/api/deviceProfileInfos?deviceProfileIds=${plain.id.id}`, { token: customer }),
      403,
      20,
    );
    // GET /api/deviceProfile/{id} takes ThingsBoard's inlineImages
    expect(
      (
        await okJson<{ name: string }>(
          p.http(`/api/deviceProfile/${plain.id.id}?inlineImages=true`, { token }),
        )
      ).name,
    ).toBe('infos-plain');
  });

  it('names profiles (activeOnly: those in use) and lists the keys of their devices', async () => {
    const p = platform();
    const token = await p.login();
    const used = await createDevice(p, token, { name: 'keys-device', type: 'keys-used' });
    await okJson(p.http('/api/deviceProfile', { method: 'POST', token, json: { name: 'keys-unused' } }));
    const names = await okJson<{ id: EntityRef; name: string }[]>(
      p.http('/api/deviceProfile/names', { token }),
    );
    expect(names.map((n) => n.name)).toEqual(expect.arrayContaining(['keys-unused', 'keys-used']));
    expect(names).toContainEqual({ id: used.deviceProfileId, name: 'keys-used' });
    const active = await okJson<{ name: string }[]>(
      p.http('/api/deviceProfile/names?activeOnly=True', { token }),
    );
    expect(active.map((n) => n.name)).toContain('keys-used');
    expect(active.map((n) => n.name)).not.toContain('keys-unused');

    const url = `/api/plugins/telemetry/DEVICE/${used.id.id}`;
    await okEmpty(
      p.http(`${url}/timeseries/ANY`, { method: 'POST', token, json: { power: 1, voltage: 230 } }),
    );
    await okEmpty(p.http(`${url}/SERVER_SCOPE`, { method: 'POST', token, json: { floor: 2 } }));
    await okEmpty(p.http(`${url}/SHARED_SCOPE`, { method: 'POST', token, json: { setpoint: 21 } }));
    const profileId = used.deviceProfileId.id;
    expect(
      await okJson(
        p.http(`/api/deviceProfile/devices/keys/timeseries?deviceProfileId=${profileId}`, { token }),
      ),
    ).toEqual(['power', 'voltage']);
    expect(
      await okJson(
        p.http(`/api/deviceProfile/devices/keys/attributes?deviceProfileId=${profileId}`, { token }),
      ),
    ).toEqual(['floor', 'setpoint']);
    expect(await okJson<string[]>(p.http('/api/deviceProfile/devices/keys/timeseries', { token }))).toEqual(
      expect.arrayContaining(['power', 'voltage']),
    );
    await expectTbError(
      await p.http(`/api/deviceProfile/devices/keys/timeseries?deviceProfileId=${NULL_UUID}`, { token }),
      404,
      32,
    );
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    await expectTbError(
      await p.http('/api/deviceProfile/devices/keys/attributes', { token: customer }),
      403,
      20,
    );
  });
});
