import { describe, expect, it } from 'vitest';
import {
  CUSTOMER,
  NULL_UUID,
  createCustomer,
  createDevice,
  expectTbError,
  okJson,
  useSharedPlatform,
  type EntityRef,
  type PageJson,
} from './api-kit.ts';

interface CustomerJson {
  id: EntityRef;
  title: string;
}
interface TenantJson {
  id: EntityRef;
  createdTime: number;
  title: string;
  name: string;
  region: string;
  tenantProfileId: EntityRef;
  tenantProfileName?: string;
}

describe('customer reads', () => {
  const platform = useSharedPlatform();

  it('answers a title as text, short info, by title and by ids', async () => {
    const p = platform();
    const token = await p.login();
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    const one = await createCustomer(p, token, 'Reads One');
    const two = await createCustomer(p, token, 'Reads Two');

    const title = await p.http(`/api/customer/${one}/title`, { token });
    expect(title.status).toBe(200);
    expect(title.headers.get('content-type')).toMatch(/^application\/text/);
    expect(await title.text()).toBe('Reads One');
    expect(await okJson(p.http(`/api/customer/${one}/shortInfo`, { token }))).toEqual({
      title: 'Reads One',
      isPublic: false,
    });
    await expectTbError(await p.http(`/api/customer/${NULL_UUID}/title`, { token }), 404, 32);
    const device = await createDevice(p, token, { name: 'reads-public' });
    const pub = await okJson<{ customerId: EntityRef }>(
      p.http(`/api/customer/public/device/${device.id.id}`, { method: 'POST', token }),
    );
    expect(await okJson(p.http(`/api/customer/${pub.customerId.id}/shortInfo`, { token }))).toEqual({
      title: 'Public',
      isPublic: true,
    });
    await expectTbError(await p.http(`/api/customer/${one}/shortInfo`, { token: customer }), 403, 20);

    expect(
      (await okJson<CustomerJson>(p.http('/api/tenant/customers?customerTitle=Reads%20Two', { token }))).id
        .id,
    ).toBe(two);
    await expectTbError(
      await p.http('/api/tenant/customers?customerTitle=Nobody', { token }),
      404,
      32,
      'Nobody',
    );
    await expectTbError(await p.http('/api/tenant/customers', { token }), 400, 31, 'customerTitle');
    await expectTbError(
      await p.http('/api/tenant/customers?customerTitle=Reads%20Two', { token: customer }),
      403,
      20,
    );

    const byIds = await okJson<CustomerJson[]>(
      p.http(`/api/customers?customerIds=${two},${one},${NULL_UUID}`, { token }),
    );
    expect(byIds.map((c) => c.title)).toEqual(['Reads One', 'Reads Two']);
    await expectTbError(await p.http(`/api/customers?customerIds=${one}`, { token: customer }), 403, 20);
    await expectTbError(await p.http('/api/customers?pageSize=10', { token }), 400, 31, 'page');
  });
});

describe('the tenant', () => {
  const platform = useSharedPlatform();

  it('is readable by its administrator as Tenant, TenantInfo and in lists of one', async () => {
    const p = platform();
    const token = await p.login();
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    const me = await okJson<{ tenantId: EntityRef }>(p.http('/api/auth/user', { token }));
    const id = me.tenantId.id;
    const tenant = await okJson<TenantJson>(p.http(`/api/tenant/${id}`, { token }));
    expect(tenant).toMatchObject({
      id: { entityType: 'TENANT', id },
      title: 'Tenant',
      name: 'Tenant',
      region: 'Global',
      tenantProfileId: { entityType: 'TENANT_PROFILE' },
      additionalInfo: {},
    });
    expect(tenant.createdTime).toBeGreaterThan(0);
    expect(tenant).not.toHaveProperty('tenantProfileName');
    const info = await okJson<TenantJson>(p.http(`/api/tenant/info/${id}`, { token }));
    expect(info).toEqual({ ...tenant, tenantProfileName: 'Default' });

    const infos = await okJson<PageJson<TenantJson>>(
      p.http('/api/tenantInfos?pageSize=10&page=0', { token }),
    );
    expect(infos).toEqual({ data: [info], totalPages: 1, totalElements: 1, hasNext: false });
    const tenants = await okJson<PageJson<TenantJson>>(p.http('/api/tenants?pageSize=10&page=0', { token }));
    expect(tenants.data).toEqual([tenant]);
    expect(
      (await okJson<PageJson<TenantJson>>(p.http('/api/tenants?pageSize=10&page=1', { token }))).data,
    ).toEqual([]);
    expect(
      (
        await okJson<PageJson<TenantJson>>(
          p.http('/api/tenantInfos?pageSize=10&page=0&textSearch=nothing', { token }),
        )
      ).totalElements,
    ).toBe(0);
    expect(await okJson(p.http(`/api/tenants?tenantIds=${NULL_UUID},${id}`, { token }))).toEqual([tenant]);
    expect(await okJson(p.http(`/api/tenants?tenantIds=${NULL_UUID}`, { token }))).toEqual([]);

    await expectTbError(await p.http(`/api/tenant/${NULL_UUID}`, { token }), 404, 32);
    await expectTbError(await p.http(`/api/tenant/${id}`, { token: customer }), 403, 20);
    await expectTbError(await p.http('/api/tenantInfos?pageSize=10&page=0', { token: customer }), 403, 20);
  });
});
