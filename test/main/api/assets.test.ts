import { beforeAll, describe, expect, it } from 'vitest';
import {
  CUSTOMER,
  NULL_UUID,
  createCustomer,
  expectTbError,
  okEmpty,
  okJson,
  useSharedPlatform,
  type ApiPlatform,
  type EntityRef,
  type PageJson,
} from './api-kit.ts';
import { createAsset, relate, unique, type AssetJson } from './entity-kit.ts';

interface ProfileJson {
  id: EntityRef;
  name: string;
  default: boolean;
  description: string | null;
}

describe('assets and asset profiles over REST', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;

  beforeAll(async () => {
    p = platform();
    token = await p.login();
  });

  it('creates an asset in ThingsBoard’s shape; its type names a profile, created when missing', async () => {
    const name = unique('Building');
    const asset = await createAsset(p, token, {
      name,
      type: 'building',
      label: 'HQ',
      additionalInfo: { floors: 3 },
    });
    expect(asset).toEqual({
      id: { entityType: 'ASSET', id: expect.any(String) },
      createdTime: expect.any(Number),
      tenantId: { entityType: 'TENANT', id: expect.any(String) },
      customerId: { entityType: 'CUSTOMER', id: NULL_UUID },
      name,
      type: 'building',
      label: 'HQ',
      assetProfileId: { entityType: 'ASSET_PROFILE', id: expect.any(String) },
      additionalInfo: { floors: 3 },
    });
    const profile = await okJson<ProfileJson>(
      p.http(`/api/assetProfile/${asset.assetProfileId.id}`, { token }),
    );
    expect(profile).toMatchObject({ name: 'building', default: false });
    expect(await okJson(p.http(`/api/asset/${asset.id.id}`, { token }))).toEqual(asset);
    expect(
      await okJson(p.http(`/api/tenant/assets?assetName=${encodeURIComponent(name)}`, { token })),
    ).toEqual(asset);
    expect(
      await okJson(p.http(`/api/tenant/asset?assetName=${encodeURIComponent(name)}`, { token })),
    ).toEqual(asset);
    const info = await okJson<Record<string, unknown>>(p.http(`/api/asset/info/${asset.id.id}`, { token }));
    expect(info).toMatchObject({
      ...asset,
      customerTitle: null,
      customerIsPublic: false,
      assetProfileName: 'building',
    });

    const plain = await createAsset(p, token, { name: unique('Plain') });
    expect(plain.type).toBe('default');
    const def = await okJson<{ id: EntityRef; name: string }>(
      p.http('/api/assetProfileInfo/default', { token }),
    );
    expect(def.id).toEqual(plain.assetProfileId);

    const renamed = await createAsset(p, token, { ...asset, name: `${name} (renamed)` });
    expect(renamed).toMatchObject({
      id: asset.id,
      name: `${name} (renamed)`,
      createdTime: asset.createdTime,
    });
  });

  it('refuses a duplicate name, a missing profile, an unknown id and a body without a name', async () => {
    const name = unique('Twin');
    await createAsset(p, token, { name });
    const post = (json: unknown) => p.http('/api/asset', { method: 'POST', token, json });
    await expectTbError(await post({ name }), 400, 31, 'Asset with such name already exists!');
    await expectTbError(
      await post({
        name: unique('x'),
        assetProfileId: { entityType: 'ASSET_PROFILE', id: crypto.randomUUID() },
      }),
      400,
      31,
      'non existing asset profile',
    );
    await expectTbError(
      await post({ id: { entityType: 'ASSET', id: crypto.randomUUID() }, name: unique('x') }),
      400,
      31,
      "Can't update non existing asset!",
    );
    await expectTbError(await post({ type: 'x' }), 400, 30, 'name');
    await expectTbError(
      await p.http(`/api/asset/${crypto.randomUUID()}`, { token }),
      404,
      32,
      'Asset with id',
    );
    await expectTbError(await p.http('/api/tenant/assets?assetName=nobody-has-this', { token }), 404, 32);
    await expectTbError(await p.http('/api/tenant/assets?page=0', { token }), 400, 31, 'pageSize');
  });

  it('lists, filters by type and profile, sorts, finds by ids and lists types', async () => {
    const type = unique('line').replace(/\s/g, '-');
    const a = await createAsset(p, token, { name: unique('Line A'), type });
    const b = await createAsset(p, token, { name: unique('Line B'), type });
    const page = await okJson<PageJson<AssetJson>>(
      p.http(`/api/tenant/assets?pageSize=1&page=0&type=${type}&sortProperty=name&sortOrder=DESC`, { token }),
    );
    expect(page).toMatchObject({ totalElements: 2, totalPages: 2, hasNext: true });
    expect(page.data[0]!.id).toEqual(b.id);
    const infos = await okJson<PageJson<{ id: EntityRef; assetProfileName: string }>>(
      p.http(`/api/tenant/assetInfos?pageSize=10&page=0&assetProfileId=${a.assetProfileId.id}`, { token }),
    );
    expect(infos.data.map((x) => x.id.id).sort()).toEqual([a.id.id, b.id.id].sort());
    expect(infos.data[0]!.assetProfileName).toBe(type);
    const byIds = await okJson<AssetJson[]>(
      p.http(`/api/assets?assetIds=${a.id.id},${b.id.id},${crypto.randomUUID()}`, { token }),
    );
    expect(byIds.map((x) => x.id.id).sort()).toEqual([a.id.id, b.id.id].sort());
    await expectTbError(await p.http('/api/assets?assetIds=zzz', { token }), 400, 31, 'zzz');
    const types = await okJson<{ entityType: string; type: string }[]>(p.http('/api/asset/types', { token }));
    expect(types).toContainEqual(expect.objectContaining({ entityType: 'ASSET', type }));
  });

  it('finds assets related to a root (AssetSearchQuery)', async () => {
    const site = await createAsset(p, token, { name: unique('Site'), type: 'site' });
    const hall = await createAsset(p, token, { name: unique('Hall'), type: 'hall' });
    const room = await createAsset(p, token, { name: unique('Room'), type: 'room' });
    await relate(p, token, site.id, hall.id);
    await relate(p, token, hall.id, room.id);
    const found = await okJson<AssetJson[]>(
      p.http('/api/assets', {
        method: 'POST',
        token,
        json: {
          parameters: { rootId: site.id.id, rootType: 'ASSET', direction: 'FROM', maxLevel: 2 },
          relationType: 'Contains',
          assetTypes: ['room'],
        },
      }),
    );
    expect(found.map((x) => x.id)).toEqual([room.id]);
  });

  it('assigns to a customer and back; a customer user sees and updates only its own', async () => {
    const customerId = await createCustomer(p, token, unique('Asset customer'));
    const asset = await createAsset(p, token, { name: unique('Assigned') });
    const assigned = await okJson<AssetJson>(
      p.http(`/api/customer/${customerId}/asset/${asset.id.id}`, { method: 'POST', token }),
    );
    expect(assigned.customerId).toEqual({ entityType: 'CUSTOMER', id: customerId });
    const listed = await okJson<PageJson<AssetJson>>(
      p.http(`/api/customer/${customerId}/assets?pageSize=10&page=0`, { token }),
    );
    expect(listed.data.map((x) => x.id)).toEqual([asset.id]);
    const infos = await okJson<PageJson<{ customerTitle: string }>>(
      p.http(`/api/customer/${customerId}/assetInfos?pageSize=10&page=0`, { token }),
    );
    expect(infos.data[0]!.customerTitle).toMatch(/^Asset customer/);
    const back = await okJson<AssetJson>(
      p.http(`/api/customer/asset/${asset.id.id}`, { method: 'DELETE', token }),
    );
    expect(back.customerId.id).toBe(NULL_UUID);
    await expectTbError(
      await p.http(`/api/customer/asset/${asset.id.id}`, { method: 'DELETE', token }),
      400,
      31,
      "Asset isn't assigned to any customer!",
    );
    await expectTbError(
      await p.http(`/api/customer/${crypto.randomUUID()}/asset/${asset.id.id}`, { method: 'POST', token }),
      404,
      32,
    );

    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    const me = await okJson<{ customerId: EntityRef }>(p.http('/api/auth/user', { token: customer }));
    const mine = await createAsset(p, token, { name: unique('Mine'), customerId: me.customerId });
    expect(await okJson<AssetJson>(p.http(`/api/asset/${mine.id.id}`, { token: customer }))).toEqual(mine);
    await expectTbError(await p.http(`/api/asset/${asset.id.id}`, { token: customer }), 403, 20);
    await expectTbError(await p.http('/api/tenant/assets?pageSize=10&page=0', { token: customer }), 403, 20);
    await expectTbError(
      await p.http(`/api/customer/${customerId}/assets?pageSize=10&page=0`, { token: customer }),
      403,
      20,
    );
    const ownList = await okJson<PageJson<AssetJson>>(
      p.http(`/api/customer/${me.customerId.id}/assets?pageSize=100&page=0`, { token: customer }),
    );
    expect(ownList.data.map((x) => x.id)).toContainEqual(mine.id);
    const relabelled = await okJson<AssetJson>(
      p.http('/api/asset', { method: 'POST', token: customer, json: { ...mine, label: 'ours' } }),
    );
    expect(relabelled).toMatchObject({ id: mine.id, label: 'ours', customerId: me.customerId });
    await expectTbError(
      await p.http('/api/asset', { method: 'POST', token: customer, json: { name: unique('Not allowed') } }),
      403,
      20,
    );
    await expectTbError(
      await p.http(`/api/asset/${mine.id.id}`, { method: 'DELETE', token: customer }),
      403,
      20,
    );
    const byIds = await okJson<AssetJson[]>(
      p.http(`/api/assets?assetIds=${mine.id.id},${asset.id.id}`, { token: customer }),
    );
    expect(byIds.map((x) => x.id)).toEqual([mine.id]);
  });

  it('keeps attributes and telemetry of assets like devices', async () => {
    const asset = await createAsset(p, token, { name: unique('Metered') });
    const base = `/api/plugins/telemetry/ASSET/${asset.id.id}`;
    await okEmpty(
      p.http(`${base}/attributes/SERVER_SCOPE`, { method: 'POST', token, json: { area: 120, zone: 'A' } }),
    );
    await okEmpty(
      p.http(`${base}/timeseries/ANY`, {
        method: 'POST',
        token,
        json: [
          { ts: 1_000, values: { power: 10 } },
          { ts: 2_000, values: { power: 12.5 } },
        ],
      }),
    );
    expect(await okJson(p.http(`${base}/keys/timeseries`, { token }))).toEqual(['power']);
    expect(await okJson(p.http(`${base}/keys/attributes`, { token }))).toEqual(['area', 'zone']);
    expect(await okJson(p.http(`${base}/values/timeseries?keys=power`, { token }))).toEqual({
      power: [{ ts: 2_000, value: '12.5' }],
    });
    expect(
      await okJson(
        p.http(`${base}/values/timeseries?keys=power&startTs=0&endTs=3000&useStrictDataTypes=true`, {
          token,
        }),
      ),
    ).toEqual({
      power: [
        { ts: 2_000, value: 12.5 },
        { ts: 1_000, value: 10 },
      ],
    });
    const attrs = await okJson<{ key: string; value: unknown }[]>(
      p.http(`${base}/values/attributes/SERVER_SCOPE`, { token }),
    );
    expect(attrs.map(({ key, value }) => ({ key, value }))).toEqual([
      { key: 'area', value: 120 },
      { key: 'zone', value: 'A' },
    ]);
    await okEmpty(p.http(`${base}/SERVER_SCOPE?keys=zone`, { method: 'DELETE', token }));
    expect(await okJson(p.http(`${base}/keys/attributes/SERVER_SCOPE`, { token }))).toEqual(['area']);

    // customers and the tenant keep telemetry too; an unknown entity type is a 400, an unknown id a 404
    const customerId = await createCustomer(p, token, unique('Metered customer'));
    await okEmpty(
      p.http(`/api/plugins/telemetry/CUSTOMER/${customerId}/timeseries/ANY`, {
        method: 'POST',
        token,
        json: { bill: 3 },
      }),
    );
    expect(
      await okJson(p.http(`/api/plugins/telemetry/CUSTOMER/${customerId}/keys/timeseries`, { token })),
    ).toEqual(['bill']);
    await expectTbError(
      await p.http(`/api/plugins/telemetry/GADGET/${asset.id.id}/values/timeseries`, { token }),
      400,
      31,
      "'GADGET'",
    );
    await expectTbError(
      await p.http(`/api/plugins/telemetry/ASSET/${crypto.randomUUID()}/values/timeseries`, { token }),
      404,
      32,
      'Asset with id',
    );

    // deleting the asset takes its telemetry and attributes with it
    await okEmpty(p.http(`/api/asset/${asset.id.id}`, { method: 'DELETE', token }));
    await expectTbError(await p.http(`/api/asset/${asset.id.id}`, { token }), 404, 32);
    const again = await createAsset(p, token, { name: unique('Metered again') });
    expect(
      await okJson(p.http(`/api/plugins/telemetry/ASSET/${again.id.id}/keys/timeseries`, { token })),
    ).toEqual([]);
  });

  it('assigns assets to edges', async () => {
    const edge = await okJson<{ id: EntityRef }>(
      p.http('/api/edge', { method: 'POST', token, json: { name: unique('Edge') } }),
    );
    const asset = await createAsset(p, token, { name: unique('On the edge') });
    const assigned = await okJson<AssetJson>(
      p.http(`/api/edge/${edge.id.id}/asset/${asset.id.id}`, { method: 'POST', token }),
    );
    expect(assigned.id).toEqual(asset.id);
    const onEdge = await okJson<PageJson<AssetJson>>(
      p.http(`/api/edge/${edge.id.id}/assets?pageSize=10&page=0`, { token }),
    );
    expect(onEdge.data.map((x) => x.id)).toEqual([asset.id]);
    await okJson(p.http(`/api/edge/${edge.id.id}/asset/${asset.id.id}`, { method: 'DELETE', token }));
    const after = await okJson<PageJson<AssetJson>>(
      p.http(`/api/edge/${edge.id.id}/assets?pageSize=10&page=0`, { token }),
    );
    expect(after.data).toEqual([]);
    await expectTbError(
      await p.http(`/api/edge/${edge.id.id}/asset/${crypto.randomUUID()}`, { method: 'POST', token }),
      404,
      32,
      'Asset with id',
    );
  });

  it('manages asset profiles: default, names, infos, and what may not be deleted', async () => {
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    const name = unique('Profile');
    const profile = await okJson<ProfileJson>(
      p.http('/api/assetProfile', { method: 'POST', token, json: { name, description: 'rooms' } }),
    );
    expect(profile).toMatchObject({
      id: { entityType: 'ASSET_PROFILE' },
      name,
      description: 'rooms',
      default: false,
      image: null,
      defaultRuleChainId: null,
      defaultDashboardId: null,
      defaultQueueName: null,
      defaultEdgeRuleChainId: null,
    });
    await expectTbError(
      await p.http('/api/assetProfile', { method: 'POST', token, json: { name } }),
      400,
      31,
      'Asset profile with such name already exists!',
    );
    await expectTbError(
      await p.http('/api/assetProfile', { method: 'POST', token: customer, json: { name: unique('No') } }),
      403,
      20,
    );
    const asset = await createAsset(p, token, { name: unique('Profiled'), assetProfileId: profile.id });
    expect(asset.type).toBe(name);
    await expectTbError(
      await p.http(`/api/assetProfile/${profile.id.id}`, { method: 'DELETE', token }),
      400,
      31,
      'referenced by the assets',
    );
    const names = await okJson<{ id: EntityRef; name: string }[]>(
      p.http('/api/assetProfile/names?activeOnly=true', { token: customer }),
    );
    expect(names).toContainEqual({ id: profile.id, name });
    const infos = await okJson<PageJson<{ id: EntityRef; name: string }>>(
      p.http(`/api/assetProfileInfos?pageSize=100&page=0&textSearch=${encodeURIComponent(name)}`, {
        token: customer,
      }),
    );
    expect(infos.data).toEqual([
      { id: profile.id, tenantId: expect.any(Object), name, image: null, defaultDashboardId: null },
    ]);
    expect(
      await okJson(p.http(`/api/assetProfileInfos?assetProfileIds=${profile.id.id}`, { token })),
    ).toEqual(infos.data);
    expect(await okJson(p.http(`/api/assetProfileInfo/${profile.id.id}`, { token: customer }))).toEqual(
      infos.data[0],
    );
    await expectTbError(await p.http(`/api/assetProfile/${profile.id.id}`, { token: customer }), 403, 20);
    await expectTbError(await p.http('/api/assetProfiles?pageSize=10&page=0', { token: customer }), 403, 20);

    const made = await okJson<ProfileJson>(
      p.http(`/api/assetProfile/${profile.id.id}/default`, { method: 'POST', token }),
    );
    expect(made.default).toBe(true);
    const all = await okJson<PageJson<ProfileJson>>(
      p.http('/api/assetProfiles?pageSize=1000&page=0', { token }),
    );
    expect(all.data.filter((x) => x.default).map((x) => x.id)).toEqual([profile.id]);
    await expectTbError(
      await p.http(`/api/assetProfile/${profile.id.id}`, { method: 'DELETE', token }),
      400,
      31,
      'Default Asset Profile',
    );
    const spare = await okJson<ProfileJson>(
      p.http('/api/assetProfile', { method: 'POST', token, json: { name: unique('Spare') } }),
    );
    await okEmpty(p.http(`/api/assetProfile/${spare.id.id}`, { method: 'DELETE', token }));
    await expectTbError(await p.http(`/api/assetProfile/${spare.id.id}`, { token }), 404, 32);
  });

  it('imports assets from CSV (created, updated by name, attributes and telemetry) and makes one public', async () => {
    const prefix = unique('Bulk');
    const file = [
      'name,type,label,floors,occupancy,token',
      `${prefix} A,bulk-building,Main,3,41,ignored-for-assets`,
      `${prefix} B,,,5,7,`,
      ',bulk-building,,1,1,',
    ].join('\n');
    const mapping = {
      header: true,
      columns: [
        { type: 'NAME' },
        { type: 'TYPE' },
        { type: 'LABEL' },
        { type: 'SERVER_ATTRIBUTE', key: 'floors' },
        { type: 'TIMESERIES', key: 'occupancy' },
        { type: 'ACCESS_TOKEN' },
      ],
    };
    const result = await okJson(
      p.http('/api/asset/bulk_import', { method: 'POST', token, json: { file, mapping } }),
    );
    expect(result).toEqual({
      created: 2,
      updated: 0,
      errors: 1,
      errorsList: ['Line 4: Asset name should be specified!'],
    });
    const a = await okJson<AssetJson>(
      p.http(`/api/tenant/asset?assetName=${encodeURIComponent(`${prefix} A`)}`, { token }),
    );
    expect(a).toMatchObject({ type: 'bulk-building', label: 'Main' });
    const b = await okJson<AssetJson>(
      p.http(`/api/tenant/asset?assetName=${encodeURIComponent(`${prefix} B`)}`, { token }),
    );
    // no type: the default asset profile's
    const def = await okJson<{ name: string }>(p.http('/api/assetProfileInfo/default', { token }));
    expect(b.type).toBe(def.name);
    const url = `/api/plugins/telemetry/ASSET/${a.id.id}`;
    expect(
      await okJson(p.http(`${url}/values/attributes/SERVER_SCOPE?keys=floors`, { token })),
    ).toMatchObject([{ key: 'floors', value: 3 }]);
    expect(
      await okJson(p.http(`${url}/values/timeseries?keys=occupancy&useStrictDataTypes=true`, { token })),
    ).toMatchObject({ occupancy: [{ value: 41 }] });

    // the same name again, with update: the asset is changed, its values written again
    const again = await okJson<{ updated: number }>(
      p.http('/api/asset/bulk_import', {
        method: 'POST',
        token,
        json: {
          file: `${prefix} A,Annex,4`,
          mapping: {
            columns: [{ type: 'NAME' }, { type: 'LABEL' }, { type: 'SERVER_ATTRIBUTE', key: 'floors' }],
            update: true,
          },
        },
      }),
    );
    expect(again.updated).toBe(1);
    expect(await okJson(p.http(`/api/asset/${a.id.id}`, { token }))).toMatchObject({
      label: 'Annex',
      type: 'bulk-building',
    });
    expect(
      await okJson(p.http(`${url}/values/attributes/SERVER_SCOPE?keys=floors`, { token })),
    ).toMatchObject([{ key: 'floors', value: 4 }]);

    const made = await okJson<AssetJson & { customerId: EntityRef }>(
      p.http(`/api/customer/public/asset/${a.id.id}`, { method: 'POST', token }),
    );
    const customer = await okJson<{ title: string; additionalInfo: { isPublic?: boolean } }>(
      p.http(`/api/customer/${made.customerId.id}`, { token }),
    );
    expect(customer).toMatchObject({ title: 'Public', additionalInfo: { isPublic: true } });
    const customerToken = await p.login(CUSTOMER.username, CUSTOMER.password);
    await expectTbError(
      await p.http(`/api/customer/public/asset/${b.id.id}`, { method: 'POST', token: customerToken }),
      403,
      20,
    );
  });
});
