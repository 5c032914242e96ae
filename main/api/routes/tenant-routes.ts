import { Type } from 'typebox';
import { OptionalPageQuery, PageData, PageQuery, Uuid } from '../../../shared/schemas/common.ts';
import { Tenant, TenantInfo } from '../../../shared/schemas/tenant.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, requirePage, type Api, type RouteDeps } from '../route-types.ts';

const TENANT_SORT = ['createdTime', 'title', 'email', 'country'] as const;

/**
 * The one tenant, read as ThingsBoard's Tenant and TenantInfo. ThingsBoard gives the lists to its system
 * administrator, whom Sandboard does not have: the tenant administrator reads them, with its tenant in them.
 */
export function registerTenantRoutes(app: Api, { services }: RouteDeps): void {
  const tags = ['Tenant'];
  const TenantParams = Type.Object({ tenantId: Uuid });
  app.get(
    '/api/tenant/:tenantId',
    {
      schema: { tags, summary: 'The tenant', params: TenantParams, response: { 200: Tenant, ...authErrors } },
    },
    async (request) => services.tenant.get(request.params.tenantId, principalOf(request)),
  );
  app.get(
    '/api/tenant/info/:tenantId',
    {
      schema: {
        tags,
        summary: 'The tenant with its profile name',
        params: TenantParams,
        response: { 200: TenantInfo, ...authErrors },
      },
    },
    async (request) => services.tenant.info(request.params.tenantId, principalOf(request)),
  );
  app.get(
    '/api/tenantInfos',
    {
      schema: {
        tags,
        summary: 'Tenants with their profile names, a page at a time (the one tenant)',
        querystring: PageQuery(TENANT_SORT),
        response: { 200: PageData(TenantInfo), ...authErrors },
      },
    },
    async (request) => services.tenant.page(request.query, principalOf(request)),
  );
  app.get(
    '/api/tenants',
    {
      schema: {
        tags,
        summary: 'Tenants a page at a time (the one tenant), or by tenantIds (repeated or comma-separated)',
        querystring: Type.Object({
          ...OptionalPageQuery(TENANT_SORT).properties,
          tenantIds: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 1000 })),
        }),
        response: { 200: Type.Union([PageData(Tenant), Type.Array(Tenant)]), ...authErrors },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.tenantIds) return services.tenant.byIds(q.tenantIds, principalOf(request));
      return services.tenant.page({ ...q, ...requirePage(q) }, principalOf(request));
    },
  );
}
