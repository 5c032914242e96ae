import { describe, expect, it } from 'vitest';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { createDevice, expectTbError, okJson, withLoginPair, type ApiPlatform } from './api-kit.ts';

const FAILURE = { errorMsg: 'Failed to provision device!', status: 'FAILURE' };

/** A device profile that lets devices provision themselves with its key and secret. */
async function provisioningProfile(p: ApiPlatform, token: string) {
  return okJson<{ id: { id: string } }>(
    p.http('/api/deviceProfile', {
      method: 'POST',
      token,
      json: {
        name: 'budget-provisioning',
        type: 'DEFAULT',
        transportType: 'DEFAULT',
        provisionType: 'ALLOW_CREATE_NEW_DEVICES',
        provisionDeviceKey: 'budget-key',
        profileData: {
          configuration: { type: 'DEFAULT' },
          transportConfiguration: { type: 'DEFAULT' },
          provisionConfiguration: {
            type: 'ALLOW_CREATE_NEW_DEVICES',
            provisionDeviceSecret: 'budget-secret',
          },
        },
      },
    }),
  );
}

const provision = (p: ApiPlatform, deviceName: string) =>
  okJson<Record<string, unknown>>(
    p.http('/api/v1/provision', {
      method: 'POST',
      json: { deviceName, provisionDeviceKey: 'budget-key', provisionDeviceSecret: 'budget-secret' },
    }),
  );

/**
 * Every write that adds data is refused at the store's budget (docs/write-paths.md): the store is
 * reopened with a budget it is already over, and each path answers 507 with ThingsBoard's error JSON
 * (provisioning: FAILURE) and adds nothing; with room again, the same provisioning works.
 */
describe('every write path at the store budget', () => {
  it('refuses with 507 and stores nothing', { timeout: 120_000 }, async () => {
    const dataDir = tempDir();
    const first = withLoginPair(await startTestPlatform({ dataDir }));
    const admin = await first.login();
    const device = await createDevice(first, admin, { name: 'budget-device' }, 'budget-device-token');
    await provisioningProfile(first, admin);
    const chain = await okJson<{ id: { id: string } }>(
      first.http('/api/ruleChain', { method: 'POST', token: admin, json: { name: 'budget-chain' } }),
    );
    const asset = await okJson<{ id: { id: string } }>(
      first.http('/api/asset', {
        method: 'POST',
        token: admin,
        json: { name: 'budget-asset', type: 'site' },
      }),
    );
    const dashboard = await okJson<{ id: { id: string }; version: number }>(
      first.http('/api/dashboard', {
        method: 'POST',
        token: admin,
        json: { title: 'budget-dashboard', configuration: { widgets: {}, states: {} } },
      }),
    );
    const { rpcId } = await okJson<{ rpcId: string }>(
      first.http(`/api/rpc/twoway/${device.id.id}`, {
        method: 'POST',
        token: admin,
        json: { method: 'read', persistent: true, timeout: 600_000 },
      }),
    );
    await first.stop();

    const p = withLoginPair(await startTestPlatform({ dataDir, storeBudgetBytes: 1 }));
    const token = await p.login();
    const count = async (path: string) =>
      (await okJson<{ totalElements: number }>(p.http(`${path}?pageSize=1&page=0`, { token }))).totalElements;
    const before = {
      devices: await count('/api/tenant/devices'),
      chains: await count('/api/ruleChains'),
      profiles: await count('/api/deviceProfiles'),
      dashboards: await count('/api/tenant/dashboards'),
    };
    const bigChain = { nodes: [], connections: [], firstNodeIndex: null, notes: 'x'.repeat(100_000) };
    const refused: [string, string, unknown][] = [
      ['POST', '/api/ruleChain', { name: 'new chain' }],
      ['POST', `/api/ruleChain/${chain.id.id}/metadata`, bigChain],
      [
        'POST',
        '/api/ruleChains/import',
        {
          ruleChains: [{ id: { entityType: 'RULE_CHAIN', id: chain.id.id }, name: 'imported', type: 'CORE' }],
          metadata: [{ ruleChainId: { entityType: 'RULE_CHAIN', id: chain.id.id }, ...bigChain }],
        },
      ],
      ['POST', '/api/sandboard/ruleChain/import', { ruleChain: { name: 'file import' }, metadata: bigChain }],
      ['POST', '/api/ruleChain/device/default', { name: 'device default' }],
      ['POST', '/api/deviceProfile', { name: 'new profile', type: 'DEFAULT', transportType: 'DEFAULT' }],
      ['POST', '/api/assetProfile', { name: 'new asset profile' }],
      ['POST', '/api/device', { name: 'new device' }],
      ['POST', '/api/asset', { name: 'new asset', type: 'site' }],
      ['POST', '/api/customer', { title: 'new customer' }],
      ['POST', '/api/user', { email: 'new@example.com', authority: 'TENANT_ADMIN' }],
      ['POST', '/api/apiKey', { description: 'new key' }],
      ['POST', '/api/edge', { name: 'new edge', type: 'default' }],
      [
        'POST',
        '/api/relation',
        {
          from: { entityType: 'ASSET', id: asset.id.id },
          to: { entityType: 'DEVICE', id: device.id.id },
          type: 'Contains',
        },
      ],
      [
        'POST',
        '/api/alarm',
        { type: 'Budget', severity: 'CRITICAL', originator: { entityType: 'DEVICE', id: device.id.id } },
      ],
      ['POST', `/api/plugins/telemetry/DEVICE/${device.id.id}/SERVER_SCOPE`, { grows: 'x'.repeat(1000) }],
      ['POST', `/api/plugins/telemetry/DEVICE/${device.id.id}/timeseries/ANY`, { t: 1 }],
      ['POST', `/api/rpc/twoway/${device.id.id}`, { method: 'later', persistent: true }],
      ['POST', '/api/user/settings', { grows: 'x'.repeat(1000) }],
      ['POST', '/api/dashboard', { title: 'new dashboard' }],
      [
        'POST',
        '/api/dashboard',
        { ...dashboard, title: 'budget-dashboard', configuration: { notes: 'x'.repeat(100_000) } },
      ],
    ];
    for (const [method, path, json] of refused)
      await expectTbError(await p.http(path, { method, token, json }), 507, 2, 'The store is full');

    // the device API: attributes and the answer to a persistent RPC, which waits on for a stored one
    const deviceApi = (path: string, body: string) =>
      p.http(`/api/v1/budget-device-token/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    await expectTbError(await deviceApi('attributes', '{"grows":1}'), 507, 2, 'The store is full');
    const request = await okJson<{ id: number }>(p.http('/api/v1/budget-device-token/rpc?timeout=10000'));
    await expectTbError(await deviceApi(`rpc/${request.id}`, '{"answer":42}'), 507, 2, 'The store is full');
    expect(await okJson<{ status: string }>(p.http(`/api/rpc/persistent/${rpcId}`, { token }))).toMatchObject(
      {
        status: 'DELIVERED',
      },
    );

    // provisioning at the limit: FAILURE, and no device
    expect(await provision(p, 'provisioned-later')).toEqual(FAILURE);
    await expectTbError(await p.http('/api/tenant/devices?deviceName=provisioned-later', { token }), 404, 32);
    expect({
      devices: await count('/api/tenant/devices'),
      chains: await count('/api/ruleChains'),
      profiles: await count('/api/deviceProfiles'),
      dashboards: await count('/api/tenant/dashboards'),
    }).toEqual(before);
    // the dashboard written before the restart is there as it was
    expect(await okJson(p.http(`/api/dashboard/${dashboard.id.id}`, { token }))).toMatchObject({
      title: 'budget-dashboard',
      version: dashboard.version,
      configuration: { widgets: {}, states: {} },
    });
    await p.stop();

    // with room again, the same device provisions
    const roomy = withLoginPair(await startTestPlatform({ dataDir }));
    expect(await provision(roomy, 'provisioned-later')).toMatchObject({ status: 'SUCCESS' });
  });
});
