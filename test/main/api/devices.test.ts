import { describe, expect, it } from 'vitest';
import {
  NULL_UUID,
  createDevice,
  expectTbError,
  okEmpty,
  okJson,
  useSharedPlatform,
  type DeviceJson,
  type EntityRef,
  type PageJson,
} from './api-kit.ts';

interface CredentialsJson {
  id: { id: string };
  createdTime: number;
  deviceId: EntityRef;
  credentialsType: string;
  credentialsId: string;
  credentialsValue: null;
}

interface ProfileJson {
  id: EntityRef;
  name: string;
  description: string | null;
  default: boolean;
  type: string;
  transportType: string;
}

describe('devices', () => {
  const platform = useSharedPlatform();

  it('creates a device with ?accessToken=, reads it back and its credentials', async () => {
    const p = platform();
    const token = await p.login();
    const before = Date.now();
    const device = await createDevice(p, token, { name: 'Thermostat A', label: 'hall' }, 'thermo-a-token');
    expect(device).toMatchObject({
      id: { entityType: 'DEVICE' },
      tenantId: { entityType: 'TENANT' },
      customerId: { entityType: 'CUSTOMER', id: NULL_UUID },
      name: 'Thermostat A',
      label: 'hall',
      type: 'default',
      deviceProfileId: { entityType: 'DEVICE_PROFILE' },
    });
    expect(device.createdTime).toBeGreaterThanOrEqual(before);
    expect(await okJson<DeviceJson>(p.http(`/api/device/${device.id.id}`, { token }))).toEqual(device);

    const credentials = await okJson<CredentialsJson>(
      p.http(`/api/device/${device.id.id}/credentials`, { token }),
    );
    expect(credentials).toMatchObject({
      deviceId: { entityType: 'DEVICE', id: device.id.id },
      credentialsType: 'ACCESS_TOKEN',
      credentialsId: 'thermo-a-token',
      credentialsValue: null,
    });

    const generated = await createDevice(p, token, { name: 'Thermostat B' });
    const generatedCredentials = await okJson<CredentialsJson>(
      p.http(`/api/device/${generated.id.id}/credentials`, { token }),
    );
    expect(generatedCredentials.credentialsId).toMatch(/^[A-Za-z0-9]{20}$/);

    const takenToken = await p.http('/api/device?accessToken=thermo-a-token', {
      method: 'POST',
      token,
      json: { name: 'Thermostat C' },
    });
    await expectTbError(takenToken, 400, 30, 'already assigned');
    const spaces = await p.http('/api/device?accessToken=has%20space', {
      method: 'POST',
      token,
      json: { name: 'Thermostat D' },
    });
    await expectTbError(spaces, 400, 31, 'accessToken');
    for (const refused of ['Thermostat C', 'Thermostat D']) {
      await expectTbError(
        await p.http(`/api/tenant/devices?deviceName=${encodeURIComponent(refused)}`, { token }),
        404,
        32,
      );
    }
  });

  it('refuses a duplicate name with a clear message and keeps the first device', async () => {
    const p = platform();
    const token = await p.login();
    const first = await createDevice(p, token, { name: 'Unique pump' });
    const duplicate = await p.http('/api/device', { method: 'POST', token, json: { name: 'Unique pump' } });
    await expectTbError(duplicate, 400, 30, 'Device with such name already exists!');
    const byName = await okJson<DeviceJson>(
      p.http('/api/tenant/devices?deviceName=Unique%20pump', { token }),
    );
    expect(byName.id.id).toBe(first.id.id);
  });

  it('updates a device (rename, label) through POST /api/device with its id', async () => {
    const p = platform();
    const token = await p.login();
    const device = await createDevice(p, token, { name: 'Old name' });
    const updated = await okJson<DeviceJson>(
      p.http('/api/device', {
        method: 'POST',
        token,
        json: { ...device, name: 'New name', label: 'relabelled' },
      }),
    );
    expect(updated).toMatchObject({
      id: device.id,
      name: 'New name',
      label: 'relabelled',
      createdTime: device.createdTime,
    });
    await expectTbError(await p.http('/api/tenant/devices?deviceName=Old%20name', { token }), 404, 32);
    const missing = await p.http('/api/device', {
      method: 'POST',
      token,
      json: { id: { entityType: 'DEVICE', id: crypto.randomUUID() }, name: 'Ghost' },
    });
    await expectTbError(missing, 404, 32);
  });

  it('deletes a device: then 404 errorCode 32 on get, credentials, telemetry and a second delete', async () => {
    const p = platform();
    const token = await p.login();
    const device = await createDevice(p, token, { name: 'Doomed' }, 'doomed-token');
    await okEmpty(
      p.http(`/api/plugins/telemetry/DEVICE/${device.id.id}/timeseries/ANY`, {
        method: 'POST',
        token,
        json: { t: 1 },
      }),
    );
    await okEmpty(p.http(`/api/device/${device.id.id}`, { method: 'DELETE', token }));
    await expectTbError(await p.http(`/api/device/${device.id.id}`, { token }), 404, 32, device.id.id);
    await expectTbError(await p.http(`/api/device/${device.id.id}/credentials`, { token }), 404, 32);
    await expectTbError(
      await p.http(`/api/plugins/telemetry/DEVICE/${device.id.id}/values/timeseries`, { token }),
      404,
      32,
    );
    await expectTbError(await p.http(`/api/device/${device.id.id}`, { method: 'DELETE', token }), 404, 32);
    // its name and token are free again
    const again = await createDevice(p, token, { name: 'Doomed' }, 'doomed-token');
    expect(again.id.id).not.toBe(device.id.id);
    expect(
      await okJson(p.http(`/api/plugins/telemetry/DEVICE/${again.id.id}/values/timeseries`, { token })),
    ).toEqual({});
  });

  it('finds one device by deviceName, 404 when there is none', async () => {
    const p = platform();
    const token = await p.login();
    const device = await createDevice(p, token, { name: 'Lookup me/01' });
    const found = await okJson<DeviceJson>(
      p.http(`/api/tenant/devices?deviceName=${encodeURIComponent('Lookup me/01')}`, { token }),
    );
    expect(found).toEqual(device);
    await expectTbError(
      await p.http('/api/tenant/devices?deviceName=lookup%20ME%2F01x', { token }),
      404,
      32,
      'lookup ME/01x',
    );
  });

  it('changes credentials through POST /api/device/{id}/credentials and POST /api/device/credentials', async () => {
    const p = platform();
    const token = await p.login();
    const device = await createDevice(p, token, { name: 'Rotating' }, 'rot-1');
    const other = await createDevice(p, token, { name: 'Other rotating' }, 'rot-other');

    const second = await okJson<CredentialsJson>(
      p.http(`/api/device/${device.id.id}/credentials`, {
        method: 'POST',
        token,
        json: { credentialsType: 'ACCESS_TOKEN', credentialsId: 'rot-2' },
      }),
    );
    expect(second).toMatchObject({ deviceId: { id: device.id.id }, credentialsId: 'rot-2' });

    // ThingsBoard's form: GET the credentials, change credentialsId, POST them back
    const current = await okJson<CredentialsJson>(
      p.http(`/api/device/${device.id.id}/credentials`, { token }),
    );
    const third = await okJson<CredentialsJson>(
      p.http('/api/device/credentials', {
        method: 'POST',
        token,
        json: { ...current, credentialsId: 'rot-3' },
      }),
    );
    expect(third).toMatchObject({ id: current.id, deviceId: { id: device.id.id }, credentialsId: 'rot-3' });
    expect(
      (await okJson<CredentialsJson>(p.http(`/api/device/${device.id.id}/credentials`, { token })))
        .credentialsId,
    ).toBe('rot-3');

    const clash = await p.http(`/api/device/${device.id.id}/credentials`, {
      method: 'POST',
      token,
      json: { credentialsId: 'rot-other' },
    });
    await expectTbError(clash, 400, 30, 'already assigned');
    expect(
      (await okJson<CredentialsJson>(p.http(`/api/device/${other.id.id}/credentials`, { token })))
        .credentialsId,
    ).toBe('rot-other');
    const noDevice = await p.http('/api/device/credentials', {
      method: 'POST',
      token,
      json: { credentialsId: 'rot-4' },
    });
    await expectTbError(noDevice, 400, 30, 'deviceId');
    const emptyToken = await p.http(`/api/device/${device.id.id}/credentials`, {
      method: 'POST',
      token,
      json: { credentialsId: '' },
    });
    await expectTbError(emptyToken, 400, 30, 'credentialsId');
  });
});

describe('device paging and search', () => {
  const platform = useSharedPlatform();
  const names = [
    'alpha-01',
    'alpha-02',
    'Alpha-03',
    'beta-01',
    'gamma 50%',
    'gamma 500',
    'under_score',
    'underXscore',
    "it's quoted",
    'say "hi"',
    "x' OR 1=1 --",
    'back\\slash',
  ];

  async function seed(): Promise<string> {
    const p = platform();
    const token = await p.login();
    const existing = await okJson<PageJson<DeviceJson>>(
      p.http('/api/tenant/devices?pageSize=1&page=0', { token }),
    );
    if (existing.totalElements === 0) {
      for (const name of names)
        await createDevice(p, token, { name, type: name.startsWith('beta') ? 'beta' : 'default' });
    }
    return token;
  }

  async function search(text: string, token: string): Promise<string[]> {
    const page = await okJson<PageJson<DeviceJson>>(
      platform().http(`/api/tenant/devices?pageSize=100&page=0&textSearch=${encodeURIComponent(text)}`, {
        token,
      }),
    );
    return page.data.map((d) => d.name).sort();
  }

  it('pages with pageSize/page/sortProperty/sortOrder and ThingsBoard page shape', async () => {
    const p = platform();
    const token = await seed();
    const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const seen: string[] = [];
    for (let page = 0; page < 3; page++) {
      const res = await okJson<PageJson<DeviceJson>>(
        p.http(`/api/tenant/devices?pageSize=5&page=${page}&sortProperty=name&sortOrder=ASC`, { token }),
      );
      expect(Object.keys(res).sort()).toEqual(['data', 'hasNext', 'totalElements', 'totalPages']);
      expect(res.totalElements).toBe(names.length);
      expect(res.totalPages).toBe(3);
      expect(res.hasNext).toBe(page < 2);
      expect(res.data.length).toBe(page < 2 ? 5 : 2);
      seen.push(...res.data.map((d) => d.name));
    }
    expect(seen).toEqual(sorted);
    const desc = await okJson<PageJson<DeviceJson>>(
      p.http('/api/tenant/devices?pageSize=3&page=0&sortProperty=name&sortOrder=DESC', { token }),
    );
    expect(desc.data.map((d) => d.name)).toEqual([...sorted].reverse().slice(0, 3));
    const beyond = await okJson<PageJson<DeviceJson>>(
      p.http('/api/tenant/devices?pageSize=5&page=7', { token }),
    );
    expect(beyond).toEqual({ data: [], totalPages: 3, totalElements: names.length, hasNext: false });
    const byType = await okJson<PageJson<DeviceJson>>(
      p.http('/api/tenant/devices?pageSize=10&page=0&type=beta', { token }),
    );
    expect(byType.data.map((d) => d.name)).toEqual(['beta-01']);
    // newest first by default, as ThingsBoard
    const byDefault = await okJson<PageJson<DeviceJson>>(
      p.http('/api/tenant/devices?pageSize=100&page=0', { token }),
    );
    const times = byDefault.data.map((d) => d.createdTime);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('searches names case-insensitively as a substring', async () => {
    const token = await seed();
    expect(await search('ALPHA', token)).toEqual(['Alpha-03', 'alpha-01', 'alpha-02']);
    expect(await search('-01', token)).toEqual(['alpha-01', 'beta-01']);
    expect(await search('nothing like it', token)).toEqual([]);
  });

  it('matches quotes and SQL-like text only literally', async () => {
    const token = await seed();
    expect(await search("' OR 1=1 --", token)).toEqual(["x' OR 1=1 --"]);
    expect(await search("' OR '1'='1", token)).toEqual([]);
    expect(await search('%', token)).toEqual(['gamma 50%']);
    expect(await search('50%', token)).toEqual(['gamma 50%']);
    expect(await search('_', token)).toEqual(['under_score']);
    expect(await search('under_', token)).toEqual(['under_score']);
    expect(await search('"', token)).toEqual(['say "hi"']);
    expect(await search("'s", token)).toEqual(["it's quoted"]);
    expect(await search('\\', token)).toEqual(['back\\slash']);
    expect(await search('%%', token)).toEqual([]);
    // the table is intact after all of that
    const all = await okJson<PageJson<DeviceJson>>(
      platform().http('/api/tenant/devices?pageSize=100&page=0', { token }),
    );
    expect(all.totalElements).toBe(names.length);
  });

  it('names the missing or wrong paging parameter', async () => {
    const p = platform();
    const token = await seed();
    await expectTbError(await p.http('/api/tenant/devices?page=0', { token }), 400, 31, 'pageSize');
    await expectTbError(await p.http('/api/tenant/devices?pageSize=10', { token }), 400, 31, 'page');
    await expectTbError(await p.http('/api/customers?page=0', { token }), 400, 31, 'pageSize');
    await expectTbError(
      await p.http('/api/tenant/devices?pageSize=ten&page=0', { token }),
      400,
      31,
      'pageSize',
    );
    await expectTbError(
      await p.http('/api/tenant/devices?pageSize=0&page=0', { token }),
      400,
      31,
      'pageSize',
    );
    await expectTbError(
      await p.http('/api/tenant/devices?pageSize=10&page=0&sortProperty=secret', { token }),
      400,
      31,
      'sortProperty',
    );
    await expectTbError(
      await p.http('/api/tenant/devices?pageSize=10&page=0&sortOrder=sideways', { token }),
      400,
      31,
      'sortOrder',
    );
  });
});

describe('device profiles', () => {
  const platform = useSharedPlatform();

  it('creates, lists, makes default, and refuses to delete a used or default profile', async () => {
    const p = platform();
    const token = await p.login();
    const initialDefault = await okJson<ProfileJson>(p.http('/api/deviceProfileInfo/default', { token }));
    // ThingsBoard's DeviceProfileInfo: no 'default' flag, no profile data.
    expect(initialDefault).toEqual({
      id: { entityType: 'DEVICE_PROFILE', id: expect.any(String) as string },
      tenantId: { entityType: 'TENANT', id: expect.any(String) as string },
      name: 'default',
      image: null,
      defaultDashboardId: null,
      type: 'DEFAULT',
      transportType: 'DEFAULT',
    });

    const thermo = await okJson<ProfileJson>(
      p.http('/api/deviceProfile', {
        method: 'POST',
        token,
        json: { name: 'thermostats', description: 'room units' },
      }),
    );
    expect(thermo).toMatchObject({
      id: { entityType: 'DEVICE_PROFILE' },
      name: 'thermostats',
      description: 'room units',
      default: false,
      type: 'DEFAULT',
      transportType: 'DEFAULT',
    });
    await expectTbError(
      await p.http('/api/deviceProfile', { method: 'POST', token, json: { name: 'thermostats' } }),
      400,
      30,
      'already exists',
    );
    const list = await okJson<PageJson<ProfileJson>>(
      p.http('/api/deviceProfiles?pageSize=10&page=0&sortProperty=name&sortOrder=ASC', { token }),
    );
    expect(list.data.map((d) => d.name)).toEqual(['default', 'thermostats']);
    expect(await okJson(p.http(`/api/deviceProfile/${thermo.id.id}`, { token }))).toEqual(thermo);

    const nowDefault = await okJson<ProfileJson>(
      p.http(`/api/deviceProfile/${thermo.id.id}/default`, { method: 'POST', token }),
    );
    expect(nowDefault.default).toBe(true);
    expect((await okJson<ProfileJson>(p.http('/api/deviceProfileInfo/default', { token }))).id).toEqual(
      thermo.id,
    );
    expect(
      (await okJson<ProfileJson>(p.http(`/api/deviceProfile/${initialDefault.id.id}`, { token }))).default,
    ).toBe(false);
    const plain = await createDevice(p, token, { name: 'gets the new default' });
    expect(plain).toMatchObject({ type: 'thermostats', deviceProfileId: thermo.id });
    await expectTbError(
      await p.http(`/api/deviceProfile/${thermo.id.id}`, { method: 'DELETE', token }),
      400,
      30,
      'default device profile cannot be deleted',
    );

    await okJson(p.http(`/api/deviceProfile/${initialDefault.id.id}/default`, { method: 'POST', token }));
    await expectTbError(
      await p.http(`/api/deviceProfile/${thermo.id.id}`, { method: 'DELETE', token }),
      400,
      30,
      'referenced by the devices',
    );
    const byId = await createDevice(p, token, { name: 'by profile id', deviceProfileId: thermo.id });
    expect(byId.type).toBe('thermostats');

    await okEmpty(p.http(`/api/device/${plain.id.id}`, { method: 'DELETE', token }));
    await okEmpty(p.http(`/api/device/${byId.id.id}`, { method: 'DELETE', token }));
    await okEmpty(p.http(`/api/deviceProfile/${thermo.id.id}`, { method: 'DELETE', token }));
    await expectTbError(await p.http(`/api/deviceProfile/${thermo.id.id}`, { token }), 404, 32);
  });

  it('creates a profile on the fly for a device type, and refuses an unknown profile id', async () => {
    const p = platform();
    const token = await p.login();
    const device = await createDevice(p, token, { name: 'pump 7', type: 'pumps' });
    expect(device.type).toBe('pumps');
    const profile = await okJson<ProfileJson>(
      p.http(`/api/deviceProfile/${device.deviceProfileId.id}`, { token }),
    );
    expect(profile).toMatchObject({ name: 'pumps', default: false });
    const unknown = await p.http('/api/device', {
      method: 'POST',
      token,
      json: { name: 'orphan', deviceProfileId: { entityType: 'DEVICE_PROFILE', id: crypto.randomUUID() } },
    });
    await expectTbError(unknown, 400, 30, 'Device profile');
  });
});
