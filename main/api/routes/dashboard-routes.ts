import { Type, type Static } from 'typebox';
import { PageNumber, PageSize } from '../../../shared/limits.ts';
import { Nullable, PageData, StringEnum, Uuid } from '../../../shared/schemas/common.ts';
import {
  DASHBOARD_MAX_BYTES,
  Dashboard,
  DashboardInfo,
  HomeDashboard,
  HomeDashboardInfo,
  MAX_DATAPOINTS_LIMIT,
  SaveDashboardRequest,
  SaveHomeDashboardInfo,
} from '../../../shared/schemas/dashboards.ts';
import { requireCustomerAccess, requireTenantAdmin } from '../../platform/auth/principal.ts';
import {
  DASHBOARD_SORT,
  DashboardService,
  HOME_DASHBOARD_HIDE_TOOLBAR,
  HOME_DASHBOARD_ID,
} from '../../platform/dashboards.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, requirePage, type Api, type RouteDeps } from '../route-types.ts';

const DashboardPageQuery = Type.Object({
  pageSize: Type.Optional(PageSize()),
  page: Type.Optional(PageNumber()),
  mobile: Type.Optional(Type.Boolean({ description: 'leave out dashboards hidden for mobile' })),
  textSearch: Type.Optional(
    Type.String({ maxLength: 255, description: 'Case-insensitive part of the title' }),
  ),
  sortProperty: Type.Optional(StringEnum(DASHBOARD_SORT)),
  sortOrder: Type.Optional(StringEnum(['ASC', 'DESC'] as const)),
});
const CustomerIds = Nullable(Type.Array(Uuid, { maxItems: 10_000, description: 'customer ids' }));
const DashboardParams = Type.Object({ dashboardId: Uuid });
const ReadQuery = Type.Object({
  inlineImages: Type.Optional(Type.Boolean({ description: 'accepted; images are kept inline already' })),
  includeResources: Type.Optional(Type.Boolean({ description: 'accepted; Sandboard keeps no resources' })),
});

/** ThingsBoard's DashboardController: dashboards, their customers and edges, home dashboards, server time. */
export function registerDashboardRoutes(app: Api, { services }: RouteDeps): void {
  const { dashboards, tenant, edges, directory } = services;
  const tags = ['Dashboards'];

  app.get(
    '/api/dashboard/serverTime',
    {
      schema: {
        tags,
        summary: "The server's time, epoch ms",
        response: { 200: Type.Integer(), ...authErrors },
      },
    },
    async () => Date.now(),
  );
  app.get(
    '/api/dashboard/maxDatapointsLimit',
    {
      schema: {
        tags,
        summary: 'The most data points a dashboard asks for in one subscription',
        response: { 200: Type.Integer(), ...authErrors },
      },
    },
    async () => MAX_DATAPOINTS_LIMIT,
  );
  app.post(
    '/api/dashboard',
    {
      bodyLimit: DASHBOARD_MAX_BYTES + 64 * 1024,
      schema: {
        tags,
        summary: `Create or update a dashboard, or import one exported from ThingsBoard (at most ${DASHBOARD_MAX_BYTES} bytes)`,
        body: SaveDashboardRequest,
        response: { 200: Dashboard, ...authErrors },
      },
    },
    async (request) => dashboards.save(request.body, principalOf(request)),
  );
  app.get(
    '/api/dashboard/:dashboardId',
    {
      schema: {
        tags,
        summary: 'A dashboard with its configuration (what the export holds)',
        params: DashboardParams,
        querystring: ReadQuery,
        response: { 200: Dashboard, ...authErrors },
      },
    },
    async (request) => dashboards.get(request.params.dashboardId, principalOf(request)),
  );
  app.get(
    '/api/dashboard/info/:dashboardId',
    {
      schema: {
        tags,
        summary: 'A dashboard without its configuration',
        params: DashboardParams,
        response: { 200: DashboardInfo, ...authErrors },
      },
    },
    async (request) => dashboards.info(request.params.dashboardId, principalOf(request)),
  );
  app.delete(
    '/api/dashboard/:dashboardId',
    { schema: { tags, summary: 'Delete a dashboard', params: DashboardParams, response: emptyOk } },
    async (request, reply) => {
      await dashboards.delete(request.params.dashboardId, principalOf(request));
      return reply.code(200).send(undefined);
    },
  );

  for (const method of ['post', 'delete'] as const) {
    app[method](
      '/api/customer/:customerId/dashboard/:dashboardId',
      {
        schema: {
          tags,
          summary:
            method === 'post' ? 'Assign a dashboard to a customer' : 'Unassign a dashboard from a customer',
          params: Type.Object({ customerId: Uuid, dashboardId: Uuid }),
          response: { 200: Dashboard, ...authErrors },
        },
      },
      async (request) => {
        const { customerId, dashboardId } = request.params;
        const p = principalOf(request);
        return method === 'post'
          ? dashboards.assignToCustomer(dashboardId, customerId, p)
          : dashboards.unassignFromCustomer(dashboardId, customerId, p);
      },
    );
    app[method](
      '/api/customer/public/dashboard/:dashboardId',
      {
        schema: {
          tags,
          summary: method === 'post' ? 'Make a dashboard public' : 'Make a dashboard private again',
          params: DashboardParams,
          response: { 200: Dashboard, ...authErrors },
        },
      },
      async (request) =>
        dashboards.setPublic(request.params.dashboardId, method === 'post', principalOf(request)),
    );
    app[method](
      '/api/edge/:edgeId/dashboard/:dashboardId',
      {
        schema: {
          tags,
          summary: method === 'post' ? 'Assign a dashboard to an edge' : 'Unassign a dashboard from an edge',
          params: Type.Object({ edgeId: Uuid, dashboardId: Uuid }),
          response: { 200: Dashboard, ...authErrors },
        },
      },
      async (request) => {
        const p = principalOf(request);
        const { edgeId, dashboardId } = request.params;
        if (method === 'post') await edges.assign(edgeId, 'DASHBOARD', dashboardId, p);
        else await edges.unassign(edgeId, 'DASHBOARD', dashboardId, p);
        return dashboards.get(dashboardId, p);
      },
    );
  }

  const modes = { '': 'set', '/add': 'add', '/remove': 'remove' } as const;
  for (const [suffix, mode] of Object.entries(modes)) {
    app.post(
      `/api/dashboard/:dashboardId/customers${suffix}`,
      {
        config: { optionalBody: mode === 'set' },
        schema: {
          tags,
          summary: {
            set: 'Assign a dashboard to exactly these customers',
            add: 'Assign a dashboard to these customers too',
            remove: 'Unassign a dashboard from these customers',
          }[mode],
          params: DashboardParams,
          body: CustomerIds,
          response: { 200: Dashboard, ...authErrors },
        },
      },
      async (request) =>
        dashboards.changeCustomers(
          request.params.dashboardId,
          request.body ?? [],
          mode,
          principalOf(request),
        ),
    );
  }

  const page = (q: Static<typeof DashboardPageQuery>) => ({ ...q, ...requirePage(q) });
  app.get(
    '/api/tenant/dashboards',
    {
      schema: {
        tags,
        summary: "The tenant's dashboards a page at a time",
        querystring: DashboardPageQuery,
        response: { 200: PageData(DashboardInfo), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return dashboards.infoPage(page(request.query), { mobile: request.query.mobile === true });
    },
  );
  app.get(
    '/api/tenant/:tenantId/dashboards',
    {
      schema: {
        tags,
        summary: "A tenant's dashboards a page at a time (the one tenant)",
        params: Type.Object({ tenantId: Uuid }),
        querystring: DashboardPageQuery,
        response: { 200: PageData(DashboardInfo), ...authErrors },
      },
    },
    async (request) => {
      tenant.get(request.params.tenantId, principalOf(request));
      return dashboards.infoPage(page(request.query), {});
    },
  );
  app.get(
    '/api/customer/:customerId/dashboards',
    {
      schema: {
        tags,
        summary: 'The dashboards assigned to a customer a page at a time',
        params: Type.Object({ customerId: Uuid }),
        querystring: DashboardPageQuery,
        response: { 200: PageData(DashboardInfo), ...authErrors },
      },
    },
    async (request) => {
      const p = principalOf(request);
      requireCustomerAccess(p, request.params.customerId);
      return dashboards.infoPage(page(request.query), {
        customerId: request.params.customerId,
        mobile: request.query.mobile === true,
      });
    },
  );
  app.get(
    '/api/edge/:edgeId/dashboards',
    {
      schema: {
        tags,
        summary: 'The dashboards assigned to an edge a page at a time',
        params: Type.Object({ edgeId: Uuid }),
        querystring: DashboardPageQuery,
        response: { 200: PageData(DashboardInfo), ...authErrors },
      },
    },
    async (request) => {
      const p = principalOf(request);
      directory.require({ entityType: 'EDGE', id: request.params.edgeId }, p);
      const result = dashboards.infoPage(page(request.query), { edgeId: request.params.edgeId });
      // as ThingsBoard: the page is counted before a customer user's unreadable dashboards are left out
      if (p.authority === 'TENANT_ADMIN') return result;
      return { ...result, data: result.data.filter((d) => dashboards.isAssigned(d.id.id, p.customerId)) };
    },
  );
  app.get(
    '/api/dashboards/list',
    {
      schema: {
        tags,
        summary: 'Dashboard infos by id (those you may read)',
        querystring: Type.Object({ dashboardIds: Type.Array(Uuid, { minItems: 1, maxItems: 1000 }) }),
        response: { 200: Type.Array(DashboardInfo), ...authErrors },
      },
    },
    async (request) => dashboards.infosByIds(request.query.dashboardIds, principalOf(request)),
  );

  app.get(
    '/api/dashboard/home',
    {
      schema: {
        tags,
        summary: "Your home dashboard: your user's, your customer's or the tenant's (empty body when none)",
        response: { 200: Type.Union([HomeDashboard, Type.Null()]), ...authErrors },
      },
    },
    async (request, reply) => {
      const home = dashboards.home(principalOf(request), tenant.additionalInfo());
      return home ?? reply.code(200).send(undefined as never);
    },
  );
  app.get(
    '/api/dashboard/home/info',
    {
      schema: {
        tags,
        summary: "Your home dashboard's id and toolbar setting (empty body when none)",
        response: { 200: Type.Union([HomeDashboardInfo, Type.Null()]), ...authErrors },
      },
    },
    async (request, reply) => {
      const info = dashboards.homeInfo(principalOf(request), tenant.additionalInfo());
      return info ?? reply.code(200).send(undefined as never);
    },
  );
  app.get(
    '/api/tenant/dashboard/home/info',
    {
      schema: {
        tags,
        summary: "The tenant's home dashboard setting",
        response: { 200: HomeDashboardInfo, ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return DashboardService.tenantHomeInfo(tenant.additionalInfo());
    },
  );
  app.post(
    '/api/tenant/dashboard/home/info',
    {
      schema: {
        tags,
        summary: "Set (or, with no dashboardId, clear) the tenant's home dashboard",
        body: SaveHomeDashboardInfo,
        response: emptyOk,
      },
    },
    async (request, reply) => {
      const p = principalOf(request);
      requireTenantAdmin(p);
      const { dashboardId, hideDashboardToolbar } = request.body;
      if (dashboardId?.id) dashboards.requireForHome(dashboardId.id, p);
      const {
        [HOME_DASHBOARD_ID]: _id,
        [HOME_DASHBOARD_HIDE_TOOLBAR]: _hide,
        ...rest
      } = tenant.additionalInfo();
      await tenant.setAdditionalInfo(
        dashboardId?.id
          ? {
              ...rest,
              [HOME_DASHBOARD_ID]: dashboardId.id,
              [HOME_DASHBOARD_HIDE_TOOLBAR]: hideDashboardToolbar ?? false,
            }
          : rest,
      );
      return reply.code(200).send(undefined);
    },
  );
}
