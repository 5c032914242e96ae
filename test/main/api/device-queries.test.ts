import { describe, expect, it } from 'vitest';
import {
  CUSTOMER,
  NULL_UUID,
  createCustomer,
  createDevice,
  expectTbError,
  okJson,
  useSharedPlatform,
  type DeviceJson,
  type PageJson,
} from './api-kit.ts';

interface DeviceInfoJson extends DeviceJson {
  customerTitle: string | null;
  customerIsPublic: boolean;
  deviceProfileName: string;
  active: boolean;
}

describe('device infos, lists and searches', () => {
  const platform = useSharedPlatform();

  async function setup() {
    const p = platform();
    const token = await p.login();
    const customerToken = await p.login(CUSTOMER.username, CUSTOMER.password);
    const me = await okJson<{ customerId: { id: string } }>(
      p.http('/api/auth/user', { token: customerToken }),
    );
    return { p, token, customerToken, customerA: me.customerId.id };
  }

  it('answers DeviceInfo (customer title, profile name, activity) by id and in pages with the filters', async () => {
    const { p, token, customerToken, customerA } = await setup();
    const meter = await createDevice(p, token, { name: 'info-meter', type: 'info-meters', label: 'hall' });
    const pump = await createDevice(p, token, { name: 'info-pump', type: 'info-pumps' });
    await okJson(p.http(`/api/customer/${customerA}/device/${meter.id.id}`, { method: 'POST', token }));
    // the 'active' server attribute is what the transport writes on connect and inactivity
    await p.services.telemetry.saveAttributes(meter.id.id, 'SERVER_SCOPE', { active: true });

    const info = await okJson<DeviceInfoJson>(p.http(`/api/device/info/${meter.id.id}`, { token }));
    expect(info).toMatchObject({
      id: meter.id,
      name: 'info-meter',
      label: 'hall',
      customerId: { entityType: 'CUSTOMER', id: customerA },
      customerTitle: 'Customer A',
      customerIsPublic: false,
      deviceProfileName: 'info-meters',
      active: true,
    });
    // the customer user reads its device's info, not the tenant's
    expect(
      (await okJson<DeviceInfoJson>(p.http(`/api/device/info/${meter.id.id}`, { token: customerToken })))
        .name,
    ).toBe('info-meter');
    await expectTbError(await p.http(`/api/device/info/${pump.id.id}`, { token: customerToken }), 403, 20);
    await expectTbError(await p.http(`/api/device/info/${NULL_UUID}`, { token }), 404, 32);

    const infos = (q: string, t = token) =>
      okJson<PageJson<DeviceInfoJson>>(
        p.http(`/api/tenant/deviceInfos?pageSize=50&page=0&textSearch=info-&${q}`, { token: t }),
      );
    expect((await infos('sortProperty=name&sortOrder=ASC')).data.map((d) => d.name)).toEqual([
      'info-meter',
      'info-pump',
    ]);
    expect((await infos('active=true')).data.map((d) => d.name)).toEqual(['info-meter']);
    expect((await infos('active=false')).data.map((d) => d.name)).toEqual(['info-pump']);
    expect((await infos('type=info-pumps')).data.map((d) => d.name)).toEqual(['info-pump']);
    expect((await infos(`deviceProfileId=${meter.deviceProfileId.id}`)).data.map((d) => d.name)).toEqual([
      'info-meter',
    ]);
    expect((await infos('sortProperty=customerTitle&sortOrder=DESC')).data[0]!.name).toBe('info-meter');
    await expectTbError(
      await p.http('/api/tenant/deviceInfos?pageSize=10&page=0', { token: customerToken }),
      403,
      20,
    );

    const customerInfos = await okJson<PageJson<DeviceInfoJson>>(
      p.http(`/api/customer/${customerA}/deviceInfos?pageSize=10&page=0&textSearch=info-`, {
        token: customerToken,
      }),
    );
    expect(customerInfos.data.map((d) => d.name)).toEqual(['info-meter']);
    const other = await createCustomer(p, token, 'Info other');
    await expectTbError(
      await p.http(`/api/customer/${other}/deviceInfos?pageSize=10&page=0`, { token: customerToken }),
      403,
      20,
    );
  });

  it('lists devices by ids (what the caller may see), device types, and counts a profile without OTA', async () => {
    const { p, token, customerToken, customerA } = await setup();
    const mine = await createDevice(p, token, { name: 'ids-mine', type: 'ids-type' });
    const theirs = await createDevice(p, token, { name: 'ids-theirs', type: 'ids-type' });
    await okJson(p.http(`/api/customer/${customerA}/device/${mine.id.id}`, { method: 'POST', token }));
    const ids = `deviceIds=${mine.id.id},${theirs.id.id},${NULL_UUID}`;
    expect((await okJson<DeviceJson[]>(p.http(`/api/devices?${ids}`, { token }))).map((d) => d.name)).toEqual(
      ['ids-mine', 'ids-theirs'],
    );
    expect(
      (await okJson<DeviceJson[]>(p.http(`/api/devices?${ids}`, { token: customerToken }))).map(
        (d) => d.name,
      ),
    ).toEqual(['ids-mine']);
    await expectTbError(await p.http('/api/devices', { token }), 400, 31, 'deviceIds');

    const types = await okJson<{ tenantId: { entityType: string }; entityType: string; type: string }[]>(
      p.http('/api/device/types', { token }),
    );
    expect(types).toContainEqual({
      tenantId: { entityType: 'TENANT', id: mine.tenantId.id },
      entityType: 'DEVICE',
      type: 'ids-type',
    });
    // served, not read as GET /api/device/{id} with the id "types"; sorted by type
    expect(types.map((t) => t.type)).toEqual([...types.map((t) => t.type)].sort());

    expect(await okJson(p.http(`/api/devices/count/FIRMWARE/${mine.deviceProfileId.id}`, { token }))).toBe(2);
    expect(await okJson(p.http(`/api/devices/count/SOFTWARE/${NULL_UUID}`, { token }))).toBe(0);
    await expectTbError(
      await p.http(`/api/devices/count/BOOTLOADER/${mine.deviceProfileId.id}`, { token }),
      400,
      31,
    );
  });

  it('finds devices related to an entity (POST /api/devices) by level, relation type and device type', async () => {
    const { p, token } = await setup();
    const gw = await createDevice(p, token, { name: 'search-gw', additionalInfo: { gateway: true } });
    const gwRow = p.services.devices.findRow(gw.id.id)!;
    const child = await p.services.devices.connectViaGateway(gwRow, 'search-child', 'search-sensor', 0);
    await p.services.devices.connectViaGateway(child, 'search-grandchild', 'search-sensor', 0);
    await p.services.devices.connectViaGateway(gwRow, 'search-valve', 'search-valve', 0);
    const search = (parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      okJson<DeviceJson[]>(
        p.http('/api/devices', {
          method: 'POST',
          token,
          json: {
            parameters: { rootId: gw.id.id, rootType: 'DEVICE', direction: 'FROM', ...parameters },
            relationType: 'Created',
            deviceTypes: ['search-sensor'],
            ...extra,
          },
        }),
      );
    const names = (list: DeviceJson[]) => list.map((d) => d.name).sort();
    expect(names(await search({ maxLevel: 1 }))).toEqual(['search-child']);
    expect(names(await search({ maxLevel: 2 }))).toEqual(['search-child', 'search-grandchild']);
    expect(names(await search({ maxLevel: 0 }))).toEqual(['search-child', 'search-grandchild']);
    expect(names(await search({ maxLevel: 2, fetchLastLevelOnly: true }))).toEqual(['search-grandchild']);
    expect(names(await search({ maxLevel: 1 }, { deviceTypes: ['search-sensor', 'search-valve'] }))).toEqual([
      'search-child',
      'search-valve',
    ]);
    expect(await search({ maxLevel: 1 }, { relationType: 'Contains' })).toEqual([]);
    // the other way: who created the grandchild
    const up = await okJson<DeviceJson[]>(
      p.http('/api/devices', {
        method: 'POST',
        token,
        json: {
          parameters: { rootId: child.id, rootType: 'DEVICE', direction: 'TO', maxLevel: 1 },
          relationType: 'Created',
          deviceTypes: ['default'],
        },
      }),
    );
    expect(names(up)).toEqual(['search-gw']);
    await expectTbError(
      await p.http('/api/devices', {
        method: 'POST',
        token,
        json: { parameters: { rootId: NULL_UUID, rootType: 'DEVICE', direction: 'FROM' }, deviceTypes: [] },
      }),
      404,
      32,
    );
    await expectTbError(
      await p.http('/api/devices', { method: 'POST', token, json: { deviceTypes: [] } }),
      400,
      30,
      'parameters',
    );
  });

  it('creates a device with its credentials, assigns to the public customer and back to the tenant', async () => {
    const { p, token, customerA } = await setup();
    const created = await okJson<DeviceJson>(
      p.http('/api/device-with-credentials', {
        method: 'POST',
        token,
        json: {
          device: { name: 'with-creds', type: 'creds-type', label: 'L' },
          credentials: { credentialsType: 'ACCESS_TOKEN', credentialsId: 'with-creds-token' },
        },
      }),
    );
    expect(created).toMatchObject({ name: 'with-creds', type: 'creds-type', label: 'L' });
    const creds = await okJson<{ credentialsId: string }>(
      p.http(`/api/device/${created.id.id}/credentials`, { token }),
    );
    expect(creds.credentialsId).toBe('with-creds-token');
    // an update through the same call changes the token
    await okJson(
      p.http('/api/device-with-credentials', {
        method: 'POST',
        token,
        json: {
          device: { id: created.id, name: 'with-creds', type: 'creds-type' },
          credentials: { credentialsType: 'ACCESS_TOKEN', credentialsId: 'with-creds-token-2' },
        },
      }),
    );
    expect(
      (await okJson<{ credentialsId: string }>(p.http(`/api/device/${created.id.id}/credentials`, { token })))
        .credentialsId,
    ).toBe('with-creds-token-2');
    await expectTbError(
      await p.http('/api/device-with-credentials', {
        method: 'POST',
        token,
        json: {
          device: { name: 'x509' },
          credentials: { credentialsType: 'X509_CERTIFICATE', credentialsId: 'abc' },
        },
      }),
      400,
      30,
      'credentialsType',
    );

    const pub = await okJson<DeviceJson>(
      p.http(`/api/customer/public/device/${created.id.id}`, { method: 'POST', token }),
    );
    const publicId = pub.customerId.id;
    expect(publicId).not.toBe(NULL_UUID);
    expect(await okJson(p.http(`/api/customer/${publicId}`, { token }))).toMatchObject({
      title: 'Public',
      additionalInfo: { isPublic: true },
    });
    expect(
      (await okJson<DeviceInfoJson>(p.http(`/api/device/info/${created.id.id}`, { token }))).customerIsPublic,
    ).toBe(true);
    // the same public customer again
    const second = await createDevice(p, token, { name: 'with-creds-2' });
    expect(
      (
        await okJson<DeviceJson>(
          p.http(`/api/customer/public/device/${second.id.id}`, { method: 'POST', token }),
        )
      ).customerId.id,
    ).toBe(publicId);

    await okJson(p.http(`/api/customer/${customerA}/device/${second.id.id}`, { method: 'POST', token }));
    const tenantId = second.tenantId.id;
    const back = await okJson<DeviceJson>(
      p.http(`/api/tenant/${tenantId}/device/${second.id.id}`, { method: 'POST', token }),
    );
    expect(back.customerId.id).toBe(NULL_UUID);
    await expectTbError(
      await p.http(`/api/tenant/${NULL_UUID}/device/${second.id.id}`, { method: 'POST', token }),
      400,
      31,
      'Could not find the specified Tenant!',
    );
  });

  it("lists an edge's devices as DeviceInfo and answers assignments with the device", async () => {
    const { p, token } = await setup();
    const edge = await okJson<{ id: { id: string } }>(
      p.http('/api/edge', { method: 'POST', token, json: { name: 'infos-edge', type: 'default' } }),
    );
    // a fixed word, not an edge id
    expect(await okJson(p.http('/api/edge/types', { token }))).toContainEqual({
      tenantId: { entityType: 'TENANT', id: expect.any(String) as string },
      entityType: 'EDGE',
      type: 'default',
    });
    const d = await createDevice(p, token, { name: 'edge-infos-device' });
    const assigned = await okJson<DeviceJson>(
      p.http(`/api/edge/${edge.id.id}/device/${d.id.id}`, { method: 'POST', token }),
    );
    expect(assigned.id).toEqual(d.id);
    const page = await okJson<PageJson<DeviceInfoJson>>(
      p.http(`/api/edge/${edge.id.id}/devices?pageSize=10&page=0&startTime=${d.createdTime}&active=false`, {
        token,
      }),
    );
    expect(page.data.map((x) => [x.name, x.deviceProfileName])).toEqual([['edge-infos-device', 'default']]);
    expect(
      (
        await okJson<PageJson<DeviceInfoJson>>(
          p.http(`/api/edge/${edge.id.id}/devices?pageSize=10&page=0&endTime=${d.createdTime - 1}`, {
            token,
          }),
        )
      ).data,
    ).toEqual([]);
    expect(
      (
        await okJson<DeviceJson>(
          p.http(`/api/edge/${edge.id.id}/device/${d.id.id}`, { method: 'DELETE', token }),
        )
      ).id,
    ).toEqual(d.id);
  });
});

describe('device bulk import', () => {
  const platform = useSharedPlatform();

  it('creates and updates devices from CSV with credentials, attributes and telemetry, line by line', async () => {
    const p = platform();
    const token = await p.login();
    await createDevice(p, token, { name: 'bulk-existing', label: 'old' }, 'bulk-existing-token');
    const csv = [
      'name;type;token;target;serial;temperature;gateway;description;label',
      'bulk-1;bulk-meters;bulk-token-1;22;SN-1;21.5;false;"first; meter";L1',
      'bulk-2;bulk-meters;;23;SN-2;19,25;true;;L2',
      'bulk-existing;;;24;;;;;new label',
      ';bulk-meters;;;;;;;',
      'bulk-3;bulk-meters;bulk-token-1;;;;;;',
    ].join('\n');
    const mapping = {
      delimiter: ';',
      header: true,
      update: false,
      columns: [
        { type: 'NAME' },
        { type: 'TYPE' },
        { type: 'ACCESS_TOKEN' },
        { type: 'SHARED_ATTRIBUTE', key: 'target' },
        { type: 'SERVER_ATTRIBUTE', key: 'serial' },
        { type: 'TIMESERIES', key: 'temperature' },
        { type: 'IS_GATEWAY' },
        { type: 'DESCRIPTION' },
        { type: 'LABEL' },
      ],
    };
    const before = Date.now();
    const result = await okJson<{ created: number; updated: number; errors: number; errorsList: string[] }>(
      p.http('/api/device/bulk_import', { method: 'POST', token, json: { file: csv, mapping } }),
    );
    expect(result).toEqual({
      created: 2,
      updated: 1,
      errors: 2,
      errorsList: [
        'Line 5: Device name should be specified!',
        'Line 6: Device credentials are already assigned to another device!',
      ],
    });

    const byName = (name: string) =>
      okJson<DeviceJson>(p.http(`/api/tenant/devices?deviceName=${encodeURIComponent(name)}`, { token }));
    const one = await byName('bulk-1');
    expect(one).toMatchObject({
      type: 'bulk-meters',
      label: 'L1',
      additionalInfo: { gateway: false, description: 'first; meter' },
    });
    expect(
      (await okJson<{ credentialsId: string }>(p.http(`/api/device/${one.id.id}/credentials`, { token })))
        .credentialsId,
    ).toBe('bulk-token-1');
    const url = `/api/plugins/telemetry/DEVICE/${one.id.id}`;
    const attrs = await okJson<{ key: string; value: unknown }[]>(
      p.http(`${url}/values/attributes`, { token }),
    );
    expect(attrs.map(({ key, value }) => [key, value]).sort()).toEqual([
      ['serial', 'SN-1'],
      ['target', 22],
    ]);
    const ts = await okJson<Record<string, { ts: number; value: unknown }[]>>(
      p.http(`${url}/values/timeseries?keys=temperature&useStrictDataTypes=true`, { token }),
    );
    expect(ts.temperature![0]!.value).toBe(21.5);
    expect(ts.temperature![0]!.ts).toBeGreaterThanOrEqual(before);

    const two = await byName('bulk-2');
    expect(two.additionalInfo).toMatchObject({ gateway: true });
    const twoTs = await okJson<Record<string, { value: unknown }[]>>(
      p.http(`/api/plugins/telemetry/DEVICE/${two.id.id}/values/timeseries?useStrictDataTypes=true`, {
        token,
      }),
    );
    expect(twoTs.temperature![0]!.value).toBe(19.25); // "19,25": a decimal comma, as ThingsBoard reads it

    // an existing device is updated, but its attributes only with update=true
    const existing = await byName('bulk-existing');
    expect(existing.label).toBe('new label');
    expect(
      await okJson(p.http(`/api/plugins/telemetry/DEVICE/${existing.id.id}/values/attributes`, { token })),
    ).toEqual([]);
    const again = await okJson<{ updated: number }>(
      p.http('/api/device/bulk_import', {
        method: 'POST',
        token,
        json: {
          file: 'bulk-existing,25',
          mapping: { columns: [{ type: 'NAME' }, { type: 'SHARED_ATTRIBUTE', key: 'target' }], update: true },
        },
      }),
    );
    expect(again.updated).toBe(1);
    expect(
      (
        await okJson<{ key: string; value: unknown }[]>(
          p.http(`/api/plugins/telemetry/DEVICE/${existing.id.id}/values/attributes/SHARED_SCOPE`, { token }),
        )
      ).map((a) => a.value),
    ).toEqual([25]);
  });

  it('refuses unknown columns and broken CSV; a line with credentials Sandboard does not keep fails alone', async () => {
    const p = platform();
    const token = await p.login();
    await expectTbError(
      await p.http('/api/device/bulk_import', {
        method: 'POST',
        token,
        json: { file: 'a', mapping: { columns: [{ type: 'COLOR' }] } },
      }),
      400,
      31,
      'COLOR',
    );
    await expectTbError(
      await p.http('/api/device/bulk_import', {
        method: 'POST',
        token,
        json: { file: 'a,"b', mapping: { columns: [{ type: 'NAME' }, { type: 'LABEL' }] } },
      }),
      400,
      31,
      'quoted field',
    );
    const result = await okJson<{ created: number; errorsList: string[] }>(
      p.http('/api/device/bulk_import', {
        method: 'POST',
        token,
        json: {
          file: 'bulk-x509,CERT\nbulk-fine,',
          mapping: { columns: [{ type: 'NAME' }, { type: 'X509' }] },
        },
      }),
    );
    expect(result.created).toBe(1);
    expect(result.errorsList).toEqual([
      'Line 1: X509 is not supported: Sandboard keeps access tokens and MQTT basic credentials',
    ]);
    // MQTT basic credentials, as ThingsBoard's MQTT_* columns give them
    const mqtt = await okJson<{ created: number; errorsList: string[] }>(
      p.http('/api/device/bulk_import', {
        method: 'POST',
        token,
        json: {
          file: 'bulk-mqtt,client-1,user-1,secret\nbulk-mqtt-bad,,,secret',
          mapping: {
            columns: [
              { type: 'NAME' },
              { type: 'MQTT_CLIENT_ID' },
              { type: 'MQTT_USER_NAME' },
              { type: 'MQTT_PASSWORD' },
            ],
          },
        },
      }),
    );
    expect(mqtt).toMatchObject({
      created: 1,
      errorsList: ['Line 2: Both mqtt client id and user name are empty!'],
    });
    const device = await okJson<{ id: { id: string } }>(
      p.http('/api/tenant/devices?deviceName=bulk-mqtt', { token }),
    );
    expect(await okJson(p.http(`/api/device/${device.id.id}/credentials`, { token }))).toMatchObject({
      credentialsType: 'MQTT_BASIC',
      credentialsValue: JSON.stringify({ clientId: 'client-1', userName: 'user-1', password: 'secret' }),
    });
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    await expectTbError(
      await p.http('/api/device/bulk_import', {
        method: 'POST',
        token: customer,
        json: { file: 'x', mapping: { columns: [{ type: 'NAME' }] } },
      }),
      403,
      20,
    );
  });
});
