import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { WIDGET_CATALOG, catalogWidget } from '../../../shared/dashboards/widget-catalog.ts';
import {
  CUSTOMER,
  createCustomer,
  expectTbError,
  okEmpty,
  okJson,
  useSharedPlatform,
  type ApiPlatform,
  type EntityRef,
  type PageJson,
} from './api-kit.ts';
import { unique } from './entity-kit.ts';

interface DashboardJson {
  id: EntityRef;
  createdTime: number;
  tenantId: EntityRef;
  title: string;
  name: string;
  image: string | null;
  mobileHide: boolean;
  mobileOrder: number | null;
  assignedCustomers: { customerId: EntityRef; title: string; public: boolean }[];
  version: number;
  configuration?: Record<string, unknown> | null;
}

/** A ThingsBoard 4.x export using every widget Sandboard renders, plus a tenant widget it does not. */
const EXPORT = JSON.parse(
  readFileSync(new URL('../../fixtures/dashboards/tb4-every-widget.json', import.meta.url), 'utf8'),
) as { title: string; configuration: { widgets: Record<string, { typeFullFqn: string }> } } & Record<
  string,
  unknown
>;

const CONFIG = {
  description: 'a floor',
  widgets: {},
  states: { default: { name: 'Floor', root: true, layouts: { main: { widgets: {}, gridSettings: {} } } } },
  entityAliases: {},
  filters: {},
  timewindow: { realtime: { timewindowMs: 60000 } },
  settings: { stateControllerId: 'entity' },
};

describe('dashboards over REST', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let customerToken: string;
  let myCustomerId: string;

  const save = (body: unknown, t = token) =>
    okJson<DashboardJson>(p.http('/api/dashboard', { method: 'POST', token: t, json: body }));

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    customerToken = await p.login(CUSTOMER.username, CUSTOMER.password);
    const me = await okJson<{ customerId: EntityRef }>(p.http('/api/auth/user', { token: customerToken }));
    myCustomerId = me.customerId.id;
  });

  it('creates, reads, updates and deletes a dashboard in ThingsBoard’s shape', async () => {
    const title = unique('Floor plan');
    const created = await save({ title, configuration: CONFIG });
    expect(created).toEqual({
      id: { entityType: 'DASHBOARD', id: expect.any(String) },
      createdTime: expect.any(Number),
      tenantId: { entityType: 'TENANT', id: expect.any(String) },
      title,
      name: title,
      image: null,
      mobileHide: false,
      mobileOrder: null,
      assignedCustomers: [],
      version: 1,
      configuration: CONFIG,
      resources: null,
    });
    const id = created.id.id;
    expect(await okJson(p.http(`/api/dashboard/${id}`, { token }))).toEqual(created);
    const { configuration: _c, resources: _r, ...info } = created as DashboardJson & { resources: unknown };
    expect(await okJson(p.http(`/api/dashboard/info/${id}`, { token }))).toEqual(info);

    const renamed = await save({ ...created, title: `${title} 2` });
    expect(renamed).toMatchObject({ title: `${title} 2`, name: `${title} 2`, version: 2 });

    await okEmpty(p.http(`/api/dashboard/${id}`, { method: 'DELETE', token }));
    await expectTbError(
      await p.http(`/api/dashboard/${id}`, { token }),
      404,
      32,
      `Dashboard with id [${id}]`,
    );
  });

  it('refuses a save naming an older version with 409, as ThingsBoard; no version overrides', async () => {
    const d = await save({ title: unique('Versioned'), configuration: CONFIG });
    const v2 = await save({ ...d, title: 'second' });
    expect(v2.version).toBe(2);
    await expectTbError(
      await p.http('/api/dashboard', { method: 'POST', token, json: { ...d, title: 'stale' } }),
      409,
      35,
      'already changed by someone else',
    );
    expect((await okJson<DashboardJson>(p.http(`/api/dashboard/${d.id.id}`, { token }))).title).toBe(
      'second',
    );
    const forced = await save({ ...d, version: null, title: 'third' });
    expect(forced).toMatchObject({ title: 'third', version: 3 });
  });

  it('pages dashboard infos with text search and sorting; /api/tenant/{tenantId} still answers', async () => {
    const tag = unique('Paged');
    for (const n of ['c', 'a', 'b']) await save({ title: `${tag} ${n}` });
    const page = await okJson<PageJson<DashboardJson>>(
      p.http(`/api/tenant/dashboards?pageSize=2&page=0&textSearch=${tag}&sortProperty=title&sortOrder=ASC`, {
        token,
      }),
    );
    expect(page.data.map((d) => d.title)).toEqual([`${tag} a`, `${tag} b`]);
    expect(page).toMatchObject({ totalPages: 2, totalElements: 3, hasNext: true });
    expect(page.data[0]).not.toHaveProperty('configuration');
    const me = await okJson<{ tenantId: EntityRef }>(p.http('/api/auth/user', { token }));
    const byTenant = await okJson<PageJson<DashboardJson>>(
      p.http(`/api/tenant/${me.tenantId.id}/dashboards?pageSize=10&page=0&textSearch=${tag}`, { token }),
    );
    expect(byTenant.totalElements).toBe(3);
    expect(await okJson(p.http(`/api/tenant/${me.tenantId.id}`, { token }))).toMatchObject({
      id: { entityType: 'TENANT' },
    });
    await expectTbError(await p.http('/api/tenant/dashboards?page=0', { token }), 400, 31, "'pageSize'");
  });

  it('assigns dashboards to customers; a customer user reads only its own', async () => {
    const d = await save({ title: unique('Assigned'), configuration: CONFIG });
    const other = await createCustomer(p, token, unique('Other customer'));
    await expectTbError(
      await p.http(`/api/dashboard/${d.id.id}`, { token: customerToken }),
      403,
      20,
      'permission',
    );

    const assigned = await okJson<DashboardJson>(
      p.http(`/api/customer/${myCustomerId}/dashboard/${d.id.id}`, { method: 'POST', token }),
    );
    expect(assigned.assignedCustomers).toEqual([
      { customerId: { entityType: 'CUSTOMER', id: myCustomerId }, title: expect.any(String), public: false },
    ]);
    expect(
      await okJson<DashboardJson>(p.http(`/api/dashboard/${d.id.id}`, { token: customerToken })),
    ).toEqual(assigned);
    const mine = await okJson<PageJson<DashboardJson>>(
      p.http(`/api/customer/${myCustomerId}/dashboards?pageSize=100&page=0`, { token: customerToken }),
    );
    expect(mine.data.map((x) => x.id.id)).toContain(d.id.id);
    await expectTbError(
      await p.http(`/api/customer/${other}/dashboards?pageSize=10&page=0`, { token: customerToken }),
      403,
      20,
      'permission',
    );

    const both = await okJson<DashboardJson>(
      p.http(`/api/dashboard/${d.id.id}/customers/add`, { method: 'POST', token, json: [other] }),
    );
    expect(both.assignedCustomers.map((c) => c.customerId.id).sort()).toEqual([myCustomerId, other].sort());
    const onlyOther = await okJson<DashboardJson>(
      p.http(`/api/dashboard/${d.id.id}/customers`, { method: 'POST', token, json: [other] }),
    );
    expect(onlyOther.assignedCustomers.map((c) => c.customerId.id)).toEqual([other]);
    // as ThingsBoard, the body is optional there: none unassigns every customer
    const cleared = await okJson<DashboardJson>(
      p.http(`/api/dashboard/${d.id.id}/customers`, {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect(cleared.assignedCustomers).toEqual([]);
    await okJson(p.http(`/api/dashboard/${d.id.id}/customers`, { method: 'POST', token, json: [other] }));
    await expectTbError(
      await p.http(`/api/dashboard/${d.id.id}`, { token: customerToken }),
      403,
      20,
      'permission',
    );
    const none = await okJson<DashboardJson>(
      p.http(`/api/dashboard/${d.id.id}/customers/remove`, { method: 'POST', token, json: [other] }),
    );
    expect(none.assignedCustomers).toEqual([]);
    const unknown = '5e5b8a60-0000-4000-8000-000000000001';
    await expectTbError(
      await p.http(`/api/customer/${unknown}/dashboard/${d.id.id}`, { method: 'POST', token }),
      404,
      32,
      `Customer with id [${unknown}]`,
    );
    await expectTbError(
      await p.http('/api/dashboard', { method: 'POST', token: customerToken, json: { title: 'mine' } }),
      403,
      20,
      'permission',
    );
  });

  it('makes a dashboard public and private again through the public customer', async () => {
    const d = await save({ title: unique('Public') });
    const pub = await okJson<DashboardJson>(
      p.http(`/api/customer/public/dashboard/${d.id.id}`, { method: 'POST', token }),
    );
    expect(pub.assignedCustomers).toEqual([
      { customerId: { entityType: 'CUSTOMER', id: expect.any(String) }, title: 'Public', public: true },
    ]);
    const priv = await okJson<DashboardJson>(
      p.http(`/api/customer/public/dashboard/${d.id.id}`, { method: 'DELETE', token }),
    );
    expect(priv.assignedCustomers).toEqual([]);
  });

  it('keeps home dashboards where ThingsBoard does: user, then customer, then tenant additionalInfo', async () => {
    const tenantHome = await save({ title: unique('Tenant home') });
    expect(await okJson(p.http('/api/tenant/dashboard/home/info', { token }))).toEqual({
      dashboardId: null,
      hideDashboardToolbar: true,
    });
    await okEmpty(
      p.http('/api/tenant/dashboard/home/info', {
        method: 'POST',
        token,
        json: { dashboardId: tenantHome.id, hideDashboardToolbar: false },
      }),
    );
    expect(await okJson(p.http('/api/tenant/dashboard/home/info', { token }))).toEqual({
      dashboardId: tenantHome.id,
      hideDashboardToolbar: false,
    });
    expect(await okJson(p.http('/api/dashboard/home/info', { token }))).toEqual({
      dashboardId: tenantHome.id,
      hideDashboardToolbar: false,
    });
    expect(await okJson(p.http('/api/dashboard/home', { token }))).toMatchObject({
      id: tenantHome.id,
      title: tenantHome.title,
      hideDashboardToolbar: false,
    });
    // the tenant's home is not assigned to the customer: the customer user has none
    const none = await p.http('/api/dashboard/home/info', { token: customerToken });
    expect(none.status).toBe(200);
    expect(await none.text()).toBe('');

    const customerHome = await save({ title: unique('Customer home') });
    await okJson(
      p.http(`/api/customer/${myCustomerId}/dashboard/${customerHome.id.id}`, { method: 'POST', token }),
    );
    const customer = await okJson<Record<string, unknown>>(
      p.http(`/api/customer/${myCustomerId}`, { token }),
    );
    await okJson(
      p.http('/api/customer', {
        method: 'POST',
        token,
        json: { ...customer, additionalInfo: { homeDashboardId: customerHome.id.id } },
      }),
    );
    expect(await okJson(p.http('/api/dashboard/home/info', { token: customerToken }))).toEqual({
      dashboardId: customerHome.id,
      hideDashboardToolbar: true,
    });
    await okEmpty(p.http('/api/tenant/dashboard/home/info', { method: 'POST', token, json: {} }));
    expect(await okJson(p.http('/api/tenant/dashboard/home/info', { token }))).toEqual({
      dashboardId: null,
      hideDashboardToolbar: true,
    });
  });

  it('answers server time and the data points limit to any user', async () => {
    const before = Date.now();
    const t = await okJson<number>(p.http('/api/dashboard/serverTime', { token: customerToken }));
    expect(t).toBeGreaterThanOrEqual(before);
    expect(await okJson(p.http('/api/dashboard/maxDatapointsLimit', { token }))).toBe(50000);
  });

  it('imports a ThingsBoard 4.x export unchanged, and its export imports back equal', async () => {
    const fqns = Object.values(EXPORT.configuration.widgets).map((w) => w.typeFullFqn);
    // the fixture holds every catalogued widget and exactly one Sandboard does not render
    expect(new Set(fqns)).toEqual(
      new Set([...WIDGET_CATALOG.map((w) => `system.${w.fqn}`), ...fqns.filter((f) => !catalogWidget(f))]),
    );
    expect(fqns.filter((f) => !catalogWidget(f))).toEqual(['tenant.my_tenant_widgets.wind_rose']);

    const imported = await save(EXPORT);
    expect(imported).toMatchObject({ title: EXPORT.title, name: EXPORT.title, version: 1 });
    expect(imported.configuration).toEqual(EXPORT.configuration);
    const exported = await okJson<DashboardJson>(p.http(`/api/dashboard/${imported.id.id}`, { token }));
    expect(exported.configuration).toEqual(EXPORT.configuration);
    // the UI's export drops the ids; importing that file again gives an equal dashboard
    const {
      id: _id,
      createdTime: _t,
      tenantId: _tenant,
      version: _v,
      assignedCustomers: _a,
      ...file
    } = exported;
    const again = await save(JSON.parse(JSON.stringify(file)));
    expect(again.id.id).not.toBe(imported.id.id);
    const { id: _i2, createdTime: _t2, ...rest } = again;
    const { id: _i1, createdTime: _t1, ...first } = exported;
    expect(rest).toEqual(first);
  });

  it('refuses a dashboard over its size bound with a clear 413, keeping nothing', async () => {
    const before = await okJson<PageJson<DashboardJson>>(
      p.http('/api/tenant/dashboards?pageSize=1&page=0', { token }),
    );
    const huge = {
      title: unique('Huge'),
      configuration: { ...CONFIG, description: 'x'.repeat(4 * 1024 * 1024) },
    };
    await expectTbError(
      await p.http('/api/dashboard', { method: 'POST', token, json: huge }),
      413,
      31,
      /Dashboard is too large: \d+ bytes .* at most 4194304/,
    );
    const after = await okJson<PageJson<DashboardJson>>(
      p.http('/api/tenant/dashboards?pageSize=1&page=0', { token }),
    );
    expect(after.totalElements).toBe(before.totalElements);
    // far above it, the body itself is refused before it is read
    const body = { title: 'x', configuration: { description: 'x'.repeat(5 * 1024 * 1024) } };
    await expectTbError(
      await p.http('/api/dashboard', { method: 'POST', token, json: body }),
      413,
      31,
      'too large',
    );
  });

  it('assigns dashboards to edges, and forgets a deleted customer’s assignment', async () => {
    const d = await save({ title: unique('Edge dashboard') });
    const edge = await okJson<{ id: EntityRef }>(
      p.http('/api/edge', { method: 'POST', token, json: { name: unique('Edge'), type: 'default' } }),
    );
    const onEdge = async () =>
      (
        await okJson<PageJson<DashboardJson>>(
          p.http(`/api/edge/${edge.id.id}/dashboards?pageSize=10&page=0`, { token }),
        )
      ).data.map((x) => x.id.id);
    await okJson(p.http(`/api/edge/${edge.id.id}/dashboard/${d.id.id}`, { method: 'POST', token }));
    expect(await onEdge()).toEqual([d.id.id]);
    await okJson(p.http(`/api/edge/${edge.id.id}/dashboard/${d.id.id}`, { method: 'DELETE', token }));
    expect(await onEdge()).toEqual([]);

    const customer = await createCustomer(p, token, unique('Short-lived'));
    await okJson(p.http(`/api/customer/${customer}/dashboard/${d.id.id}`, { method: 'POST', token }));
    await okEmpty(p.http(`/api/customer/${customer}`, { method: 'DELETE', token }));
    expect(
      (await okJson<DashboardJson>(p.http(`/api/dashboard/${d.id.id}`, { token }))).assignedCustomers,
    ).toEqual([]);
    // a dashboard is an entity relations may name; deleting it removes them
    const link = { from: edge.id, to: d.id, type: 'Shows' };
    await okEmpty(p.http('/api/relation', { method: 'POST', token, json: link }));
    const related = () =>
      okJson<{ to: EntityRef }[]>(
        p.http(`/api/relations?fromId=${edge.id.id}&fromType=EDGE&relationType=Shows`, { token }),
      );
    expect((await related()).map((r) => r.to)).toEqual([d.id]);
    await okEmpty(p.http(`/api/dashboard/${d.id.id}`, { method: 'DELETE', token }));
    expect(await related()).toEqual([]);
  });
});
