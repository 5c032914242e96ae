import { Type } from 'typebox';
import { PageNumber, PageSize } from '../../../shared/limits.ts';
import { JsonObject, PageData, StringEnum, Uuid } from '../../../shared/schemas/common.ts';
import {
  WidgetType,
  WidgetTypeDetails,
  WidgetTypeInfo,
  WidgetsBundle,
} from '../../../shared/schemas/dashboards.ts';
import { requireTenantAdmin, type Principal } from '../../platform/auth/principal.ts';
import { badRequestParams } from '../../platform/errors.ts';
import { DEPRECATED_FILTERS, WIDGET_TYPE_SORT, WIDGETS_BUNDLE_SORT } from '../../platform/widgets.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, requirePage, type Api, type RouteDeps } from '../route-types.ts';

const Flag = (description: string) => Type.Optional(Type.Boolean({ description }));
const Text = (description: string) => Type.Optional(Type.String({ maxLength: 255, description }));
const paging = {
  pageSize: Type.Optional(PageSize()),
  page: Type.Optional(PageNumber()),
  textSearch: Text('Case-insensitive part of the title or name'),
  sortOrder: Type.Optional(StringEnum(['ASC', 'DESC'] as const)),
  fullSearch: Flag('search descriptions and tags too'),
  tenantOnly: Flag("only the tenant's own (Sandboard keeps none)"),
};
const ByAlias = {
  isSystem: Flag('the bundle is a system one'),
  bundleAlias: Text("the bundle's alias"),
};
const IdList = Type.Array(Type.String({ maxLength: 255 }), { maxItems: 10_000 });
const BundleParams = Type.Object({ widgetsBundleId: Uuid });
const TypeParams = Type.Object({ widgetTypeId: Uuid });

/**
 * ThingsBoard's WidgetsBundleController and WidgetTypeController over the widgets Sandboard renders
 * (shared/dashboards/widget-catalog.ts): every read, and ThingsBoard's 403 for a tenant's writes.
 */
export function registerWidgetRoutes(app: Api, { services }: RouteDeps): void {
  const { widgets } = services;
  const bundleTags = ['Widgets bundles'];
  const typeTags = ['Widget types'];

  app.get(
    '/api/widgetsBundles',
    {
      schema: {
        tags: bundleTags,
        summary: 'Widget bundles: all, a page at a time, or by widgetsBundleIds',
        querystring: Type.Object({
          ...paging,
          sortProperty: Type.Optional(StringEnum(WIDGETS_BUNDLE_SORT)),
          scadaFirst: Flag('SCADA bundles first (Sandboard has none)'),
          widgetsBundleIds: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 1000 })),
        }),
        response: { 200: Type.Union([PageData(WidgetsBundle), Type.Array(WidgetsBundle)]), ...authErrors },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.widgetsBundleIds) return widgets.bundlesByIds(q.widgetsBundleIds);
      if (q.pageSize === undefined && q.page === undefined) return widgets.bundles();
      return widgets.bundlePage({ ...q, ...requirePage(q) }, q.tenantOnly === true, q.fullSearch === true);
    },
  );
  app.get(
    '/api/widgetsBundle/:widgetsBundleId',
    {
      schema: {
        tags: bundleTags,
        summary: 'A widget bundle',
        params: BundleParams,
        querystring: Type.Object({ inlineImages: Flag('accepted; Sandboard bundles have no images') }),
        response: { 200: WidgetsBundle, ...authErrors },
      },
    },
    async (request) => widgets.bundle(request.params.widgetsBundleId),
  );
  app.get(
    '/api/widgetsBundle/:widgetsBundleId/widgetTypes',
    {
      schema: {
        tags: bundleTags,
        summary: "A bundle's widget types",
        params: BundleParams,
        response: { 200: Type.Array(WidgetType), ...authErrors },
      },
    },
    async (request) => widgets.bundleTypes(request.params.widgetsBundleId),
  );
  app.post(
    '/api/widgetsBundle',
    {
      schema: {
        tags: bundleTags,
        summary: 'Save a widget bundle (403: the system bundles are read-only)',
        body: JsonObject,
        response: { 200: WidgetsBundle, ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      const id = (request.body.id as { id?: unknown } | undefined)?.id;
      return widgets.refuseWrite('bundle', typeof id === 'string' ? id : undefined);
    },
  );
  for (const list of ['widgetTypes', 'widgetTypeFqns'] as const) {
    app.post(
      `/api/widgetsBundle/:widgetsBundleId/${list}`,
      {
        schema: {
          tags: bundleTags,
          summary: `Set a bundle's widget types by ${list === 'widgetTypes' ? 'id' : 'FQN'} (403: the system bundles are read-only)`,
          params: BundleParams,
          body: IdList,
          response: emptyOk,
        },
      },
      async (request) => {
        requireTenantAdmin(principalOf(request));
        return widgets.refuseWrite('bundle', request.params.widgetsBundleId);
      },
    );
  }
  app.delete(
    '/api/widgetsBundle/:widgetsBundleId',
    {
      schema: {
        tags: bundleTags,
        summary: 'Delete a widget bundle (403: the system bundles are read-only)',
        params: BundleParams,
        response: emptyOk,
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return widgets.refuseWrite('bundle', request.params.widgetsBundleId);
    },
  );

  app.get(
    '/api/widgetType/:widgetTypeId',
    {
      schema: {
        tags: typeTags,
        summary: 'A widget type with its descriptor, description and tags',
        params: TypeParams,
        querystring: Type.Object({
          inlineImages: Flag('accepted; Sandboard widget types have no images'),
          includeResources: Flag('accepted; Sandboard widget types have no resources'),
        }),
        response: { 200: WidgetTypeDetails, ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return widgets.typeDetails(request.params.widgetTypeId);
    },
  );
  app.get(
    '/api/widgetTypeInfo/:widgetTypeId',
    {
      schema: {
        tags: typeTags,
        summary: 'A widget type without its descriptor, with its bundles',
        params: TypeParams,
        response: { 200: WidgetTypeInfo, ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return widgets.typeInfo(request.params.widgetTypeId);
    },
  );
  app.get(
    '/api/widgetType',
    {
      schema: {
        tags: typeTags,
        summary: 'A widget type by fqn (system.cards.value_card), or by isSystem, bundleAlias and alias',
        querystring: Type.Object({
          fqn: Text('scope and FQN: system.time_series_chart'),
          ...ByAlias,
          alias: Text("the widget type's alias in its bundle"),
        }),
        response: { 200: WidgetType, ...authErrors },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.fqn !== undefined) return widgets.typeByFqn(q.fqn);
      if (q.bundleAlias === undefined || q.alias === undefined || q.isSystem === undefined)
        throw badRequestParams(
          "Required request parameter 'fqn' for method parameter type String is not present",
        );
      return widgets.typeByAlias(q.isSystem, q.bundleAlias, q.alias);
    },
  );
  app.post(
    '/api/widgetType',
    {
      schema: {
        tags: typeTags,
        summary: 'Save a widget type (403: the system widget types are read-only)',
        querystring: Type.Object({ updateExistingByFqn: Flag('update the type of the same FQN') }),
        body: JsonObject,
        response: { 200: WidgetTypeDetails, ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      const id = (request.body.id as { id?: unknown } | undefined)?.id;
      return widgets.refuseWrite('type', typeof id === 'string' ? id : undefined);
    },
  );
  app.delete(
    '/api/widgetType/:widgetTypeId',
    {
      schema: {
        tags: typeTags,
        summary: 'Delete a widget type (403: the system widget types are read-only)',
        params: TypeParams,
        response: emptyOk,
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return widgets.refuseWrite('type', request.params.widgetTypeId);
    },
  );
  app.get(
    '/api/widgetTypeFqns',
    {
      schema: {
        tags: typeTags,
        summary: "A bundle's widget type FQNs",
        querystring: Type.Object({ widgetsBundleId: Uuid }),
        response: { 200: Type.Array(Type.String()), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return widgets.bundleFqns(request.query.widgetsBundleId);
    },
  );

  /** The bundle a list read names: by id, or (tenant administrators) by isSystem and bundleAlias. */
  const bundleOf = (
    q: { widgetsBundleId?: string; isSystem?: boolean; bundleAlias?: string },
    p: Principal,
  ): string => {
    if (q.widgetsBundleId) return q.widgetsBundleId;
    if (q.bundleAlias === undefined || q.isSystem === undefined)
      throw badRequestParams(
        "Required request parameter 'widgetsBundleId' for method parameter type String is not present",
      );
    requireTenantAdmin(p);
    return widgets.bundleId(widgets.bundleByAlias(q.isSystem, q.bundleAlias).alias);
  };
  const typeFilters = {
    deprecatedFilter: Type.Optional(StringEnum(DEPRECATED_FILTERS)),
    widgetTypeList: Type.Optional(
      Type.Array(Type.String({ maxLength: 32 }), {
        maxItems: 10,
        description: 'timeseries, latest, rpc, alarm, static',
      }),
    ),
  };
  app.get(
    '/api/widgetTypes',
    {
      schema: {
        tags: typeTags,
        summary: 'Widget type infos a page at a time, or the widget types of a bundle (by id or alias)',
        querystring: Type.Object({
          ...paging,
          sortProperty: Type.Optional(StringEnum(WIDGET_TYPE_SORT)),
          scadaFirst: Flag('SCADA widgets first (Sandboard has none)'),
          ...typeFilters,
          widgetsBundleId: Type.Optional(Uuid),
          ...ByAlias,
        }),
        response: { 200: Type.Union([PageData(WidgetTypeInfo), Type.Array(WidgetType)]), ...authErrors },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.pageSize !== undefined || q.page !== undefined)
        return widgets.typePage({ ...q, ...requirePage(q) }, { ...q, tenantOnly: q.tenantOnly === true });
      return widgets.bundleTypes(bundleOf(q, principalOf(request)));
    },
  );
  app.get(
    '/api/widgetTypesDetails',
    {
      schema: {
        tags: typeTags,
        summary: "A bundle's widget types with descriptors (by id or alias)",
        querystring: Type.Object({
          widgetsBundleId: Type.Optional(Uuid),
          ...ByAlias,
          inlineImages: Flag('accepted; Sandboard widget types have no images'),
          includeResources: Flag('accepted; Sandboard widget types have no resources'),
        }),
        response: { 200: Type.Array(WidgetTypeDetails), ...authErrors },
      },
    },
    async (request) => widgets.bundleTypeDetails(bundleOf(request.query, principalOf(request))),
  );
  app.get(
    '/api/widgetTypesInfos',
    {
      schema: {
        tags: typeTags,
        summary: "A bundle's widget type infos: all (by alias) or a page at a time (by id)",
        querystring: Type.Object({
          widgetsBundleId: Type.Optional(Uuid),
          ...ByAlias,
          ...paging,
          sortProperty: Type.Optional(StringEnum(WIDGET_TYPE_SORT)),
          ...typeFilters,
        }),
        response: { 200: Type.Union([PageData(WidgetTypeInfo), Type.Array(WidgetTypeInfo)]), ...authErrors },
      },
    },
    async (request) => {
      const q = request.query;
      const bundleId = bundleOf(q, principalOf(request));
      if (!q.widgetsBundleId) return widgets.bundleTypeInfos(bundleId);
      return widgets.typePage({ ...q, ...requirePage(q) }, { ...q, tenantOnly: false, bundleId });
    },
  );
}
