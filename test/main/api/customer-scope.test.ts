import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CUSTOMER_SCOPE,
  type CustomerAccess,
  type ScopeRow,
} from '../../../main/api/customer-scope-table.ts';
import {
  CUSTOMER,
  createDevice,
  expectTbError,
  okJson,
  useSharedPlatform,
  type EntityRef,
} from './api-kit.ts';

const DOC = new URL('../../../docs/customer-scope.md', import.meta.url);
const CELL: Record<string, CustomerAccess> = { 'no login': 'public', own: 'customer', '**403**': 'tenant' };

/** The table of docs/customer-scope.md, row by row. */
function docRows(): ScopeRow[] {
  const rows: ScopeRow[] = [];
  for (const line of readFileSync(DOC, 'utf8').split('\n')) {
    const m = /^\| `(GET|POST|PUT|DELETE) (\S+)` +\| [^|]+\| ([^|]+?) +\| (.+?) +\|$/.exec(line);
    if (m) rows.push([m[1] as ScopeRow[0], m[2]!, CELL[m[3]!]!, m[4]!.replace(/\\\|/g, '|')]);
  }
  return rows;
}

interface Ids {
  customerId: string;
  tenantId: string;
  userId: string;
  deviceId: string;
  deviceName: string;
  profileId: string;
}

/** A path of the table with its parameters filled with the customer user's own things. */
function fill(path: string, ids: Ids): string {
  const value = (name: string): string => {
    if (name === 'customerId' || (name === 'id' && path.startsWith('/api/customer/:id')))
      return ids.customerId;
    if (name === 'userId' || (name === 'id' && path.startsWith('/api/user/:id'))) return ids.userId;
    const fixed: Record<string, string> = {
      tenantId: ids.tenantId,
      deviceName: ids.deviceName,
      deviceProfileId: ids.profileId,
      entityType: 'DEVICE',
      scope: 'SERVER_SCOPE',
      ttl: '0',
      timeout: '1000',
      queueName: 'Main',
      enabled: 'true',
      type: 'general',
      paths: 'nothing.here',
      otaPackageType: 'FIRMWARE',
      componentType: 'FILTER',
      componentDescriptorClazz: 'org.thingsboard.rule.engine.filter.TbJsFilterNode',
      relationType: 'Contains',
      eventType: 'DEBUG_RULE_NODE',
    };
    return fixed[name] ?? ids.deviceId;
  };
  const filled = path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(value(name)));
  return path.startsWith('/api/deviceProfileInfo/:id') ? filled.replace(ids.deviceId, ids.profileId) : filled;
}

/**
 * docs/customer-scope.md: every operation of the REST API with what a customer user may do, beside
 * ThingsBoard's rule. The page and the server's table are the same; every route of the app is in it; and
 * walked as the demo customer user, each tenant-only row answers 403 and no customer row does.
 */
describe('the customer scope table', () => {
  const platform = useSharedPlatform();

  it('is the table the server enforces', () => {
    expect(docRows()).toEqual(CUSTOMER_SCOPE.map((r) => [...r]));
  });

  it('holds every /api route of the running app, and no route it lacks', async () => {
    const p = platform();
    const token = await p.login();
    const doc = await okJson<{ paths: Record<string, Record<string, unknown>> }>(
      p.http('/v3/api-docs', { token }),
    );
    const listed = new Set(CUSTOMER_SCOPE.map(([m, path]) => `${m} ${path}`));
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths))
      for (const method of Object.keys(ops)) {
        const op = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;
        if (path.startsWith('/api/') && !listed.has(op)) missing.push(op);
      }
    expect(missing).toEqual([]);
    const stale = CUSTOMER_SCOPE.filter(([method, url]) => !p.api.hasRoute({ method, url }));
    expect(stale).toEqual([]);
  });

  it('is what a customer user gets, row by row', { timeout: 120_000 }, async () => {
    const p = platform();
    const tenant = await p.login();
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    const me = await okJson<{ id: EntityRef; customerId: EntityRef; tenantId: EntityRef }>(
      p.http('/api/auth/user', { token: customer }),
    );
    const device = await createDevice(p, tenant, {
      name: 'scope-device',
      type: 'default',
      customerId: { entityType: 'CUSTOMER', id: me.customerId.id },
    });
    const ids: Ids = {
      customerId: me.customerId.id,
      tenantId: me.tenantId.id,
      userId: me.id.id,
      deviceId: device.id.id,
      deviceName: device.name,
      profileId: device.deviceProfileId.id,
    };
    const call = async ([method, path]: ScopeRow, token: string | undefined) =>
      p.http(`${fill(path, ids)}?pageSize=10&page=0&timeout=1000`, {
        method,
        ...(token ? { token } : {}),
        ...(method === 'POST' || method === 'PUT' ? { json: {} } : {}),
        signal: AbortSignal.timeout(20_000),
      });

    for (const row of CUSTOMER_SCOPE.filter(([, , access]) => access === 'tenant'))
      await expectTbError(await call(row, customer), 403, 20, "You don't have permission");

    // last: the operations that end the session or give the device back
    const last = (r: ScopeRow) => (r[1] === '/api/auth/logout' ? 2 : r[1].endsWith('/claim') ? 1 : 0);
    const allowed = CUSTOMER_SCOPE.filter(([, , access]) => access === 'customer');
    const wrong: string[] = [];
    for (const row of [...allowed].sort((a, b) => last(a) - last(b))) {
      const res = await call(row, customer);
      if (res.status === 403 || res.status === 401)
        wrong.push(`${row[0]} ${row[1]}: ${res.status} ${await res.text()}`);
      else await res.body?.cancel();
    }
    for (const row of CUSTOMER_SCOPE.filter(([, , access]) => access === 'public')) {
      const res = await call(row, undefined);
      if (res.status === 403) wrong.push(`${row[0]} ${row[1]}: ${res.status} ${await res.text()}`);
      else await res.body?.cancel();
    }
    expect(wrong).toEqual([]);
  });

  it('gives customers device profile infos, never a profile and its provisioning secret', async () => {
    const p = platform();
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    const infos = await okJson<{ data: { id: EntityRef }[] }>(
      p.http('/api/deviceProfileInfos?pageSize=10&page=0', { token: customer }),
    );
    expect(infos.data.length).toBeGreaterThan(0);
    expect(JSON.stringify(infos)).not.toContain('profileData');
    const id = infos.data[0]!.id.id;
    await expectTbError(await p.http(`/api/deviceProfile/${id}`, { token: customer }), 403, 20);
    await expectTbError(await p.http('/api/deviceProfiles?pageSize=10&page=0', { token: customer }), 403, 20);
  });

  it('keeps a customer from creating a tenant-wide asset profile through its asset type', async () => {
    const p = platform();
    const tenant = await p.login();
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    const me = await okJson<{ customerId: EntityRef }>(p.http('/api/auth/user', { token: customer }));
    const asset = await okJson<Record<string, unknown> & { id: EntityRef }>(
      p.http('/api/asset', {
        method: 'POST',
        token: tenant,
        json: { name: 'scope-asset', type: 'building' },
      }),
    );
    await okJson(
      p.http(`/api/customer/${me.customerId.id}/asset/${asset.id.id}`, { method: 'POST', token: tenant }),
    );
    const own = await okJson<Record<string, unknown>>(
      p.http(`/api/asset/${asset.id.id}`, { token: customer }),
    );
    const save = (type: string) =>
      p.http('/api/asset', {
        method: 'POST',
        token: customer,
        json: { ...own, type, assetProfileId: undefined },
      });
    await expectTbError(await save('customer-made-type'), 403, 20, "Asset profile 'customer-made-type'");
    const names = await okJson<{ name: string }[]>(p.http('/api/assetProfile/names', { token: tenant }));
    expect(names.map((n) => n.name)).not.toContain('customer-made-type');
    // a type that names an existing profile is the customer's to choose, as a label is
    expect((await save('building')).status).toBe(200);
  });
});
