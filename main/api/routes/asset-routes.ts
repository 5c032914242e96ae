import { Type } from 'typebox';
import {
  Asset,
  AssetInfo,
  AssetProfile,
  AssetProfileInfo,
  EntityInfo,
  EntitySubtype,
  SaveAssetProfileRequest,
  SaveAssetRequest,
} from '../../../shared/schemas/assets.ts';
import { EpochMs, PageNumber, PageSize } from '../../../shared/limits.ts';
import { PageData, PageQuery, StringEnum, Uuid } from '../../../shared/schemas/common.ts';
import { SEARCH_DIRECTIONS } from '../../../shared/schemas/relations.ts';
import { BulkImportRequest, BulkImportResult } from '../../../shared/schemas/entities.ts';
import { ASSET_PROFILE_SORT } from '../../platform/asset-profiles.ts';
import { ASSET_SORT, type AssetFilter } from '../../platform/assets.ts';
import { requireCustomerAccess, requireTenantAdmin } from '../../platform/auth/principal.ts';
import { badRequestParams } from '../../platform/errors.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api, type RouteDeps } from '../route-types.ts';

const AssetPageQuery = Type.Intersect([
  PageQuery(ASSET_SORT),
  Type.Object({ type: Type.Optional(Type.String({ maxLength: 255 })) }),
]);
const AssetInfoPageQuery = Type.Intersect([
  AssetPageQuery,
  Type.Object({ assetProfileId: Type.Optional(Uuid) }),
]);
const IdList = (name: string) =>
  Type.String({ minLength: 1, maxLength: 37 * 1000, description: `Comma-separated ${name}` });

/** Splits a comma list of UUIDs; 400 naming the parameter for one that is not a UUID. */
function uuidList(text: string, name: string): string[] {
  const ids = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const id of ids) {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
      throw badRequestParams(`Invalid ${name}: '${id}' is not a UUID`);
    }
  }
  return ids;
}

/** ThingsBoard's AssetController and AssetProfileController (and the edge's asset assignments). */
export function registerAssetRoutes(app: Api, { services }: RouteDeps): void {
  const { assets, assetProfiles, edges } = services;
  const tags = ['Assets'];
  const AssetParams = Type.Object({ assetId: Uuid });

  app.post(
    '/api/asset',
    {
      schema: {
        tags,
        summary: 'Create or update an asset (type names its profile, created when missing)',
        body: SaveAssetRequest,
        response: { 200: Asset, ...authErrors },
      },
    },
    async (request) => assets.save(request.body, principalOf(request)),
  );
  app.get(
    '/api/asset/:assetId',
    { schema: { tags, summary: 'An asset', params: AssetParams, response: { 200: Asset, ...authErrors } } },
    async (request) => assets.get(request.params.assetId, principalOf(request)),
  );
  app.get(
    '/api/asset/info/:assetId',
    {
      schema: {
        tags,
        summary: 'An asset with its customer title and profile name',
        params: AssetParams,
        response: { 200: AssetInfo, ...authErrors },
      },
    },
    async (request) => assets.info(request.params.assetId, principalOf(request)),
  );
  app.delete(
    '/api/asset/:assetId',
    {
      schema: {
        tags,
        summary: 'Delete an asset with its attributes, telemetry, relations and alarms',
        params: AssetParams,
        response: emptyOk,
      },
    },
    async (request, reply) => {
      await assets.delete(request.params.assetId, principalOf(request));
      return reply.code(200).send(undefined);
    },
  );
  app.get(
    '/api/asset/types',
    {
      schema: {
        tags,
        summary: 'The asset types in use',
        response: { 200: Type.Array(EntitySubtype), ...authErrors },
      },
    },
    async () => assets.types(),
  );
  app.get(
    '/api/assets',
    {
      schema: {
        tags,
        summary: 'Assets by id (those you may see)',
        querystring: Type.Object({ assetIds: IdList('asset ids') }),
        response: { 200: Type.Array(Asset), ...authErrors },
      },
    },
    async (request) => assets.byIds(uuidList(request.query.assetIds, 'assetIds'), principalOf(request)),
  );
  app.post(
    '/api/assets',
    {
      schema: {
        tags,
        summary: 'Assets of some types related to a root entity (AssetSearchQuery)',
        body: Type.Object({
          parameters: Type.Object({
            rootId: Uuid,
            rootType: Type.String({ minLength: 1, maxLength: 32 }),
            direction: StringEnum(SEARCH_DIRECTIONS),
            maxLevel: Type.Optional(Type.Integer()),
            fetchLastLevelOnly: Type.Optional(Type.Boolean()),
          }),
          relationType: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
          assetTypes: Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 }),
        }),
        response: { 200: Type.Array(Asset), ...authErrors },
      },
    },
    async (request) => assets.search(request.body, principalOf(request)),
  );

  const tenantQuery = Type.Object({
    assetName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    type: Type.Optional(Type.String({ maxLength: 255 })),
    pageSize: Type.Optional(PageSize()),
    page: Type.Optional(PageNumber()),
    textSearch: Type.Optional(Type.String({ maxLength: 255 })),
    sortProperty: Type.Optional(StringEnum(ASSET_SORT)),
    sortOrder: Type.Optional(StringEnum(['ASC', 'DESC'] as const)),
  });
  app.get(
    '/api/tenant/assets',
    {
      schema: {
        tags,
        summary: "The tenant's assets a page at a time, or one asset by assetName",
        querystring: tenantQuery,
        response: { 200: Type.Union([PageData(Asset), Asset]), ...authErrors },
      },
    },
    async (request) => {
      const p = principalOf(request);
      requireTenantAdmin(p);
      const q = request.query;
      if (q.assetName !== undefined) return assets.getByName(q.assetName, p);
      if (q.pageSize === undefined)
        throw badRequestParams("Required request parameter 'pageSize' is not present");
      if (q.page === undefined) throw badRequestParams("Required request parameter 'page' is not present");
      return assets.page({ ...q, pageSize: q.pageSize, page: q.page }, { type: q.type });
    },
  );
  app.get(
    '/api/tenant/asset',
    {
      schema: {
        tags,
        summary: 'One asset by name',
        querystring: Type.Object({ assetName: Type.String({ minLength: 1, maxLength: 255 }) }),
        response: { 200: Asset, ...authErrors },
      },
    },
    async (request) => {
      const p = principalOf(request);
      requireTenantAdmin(p);
      return assets.getByName(request.query.assetName, p);
    },
  );
  app.get(
    '/api/tenant/assetInfos',
    {
      schema: {
        tags,
        summary: "The tenant's assets with customer titles and profile names",
        querystring: AssetInfoPageQuery,
        response: { 200: PageData(AssetInfo), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      const { type, assetProfileId, ...q } = request.query;
      return assets.infoPage(q, { type, assetProfileId });
    },
  );
  app.get(
    '/api/customer/:customerId/assets',
    {
      schema: {
        tags,
        summary: "A customer's assets",
        params: Type.Object({ customerId: Uuid }),
        querystring: AssetPageQuery,
        response: { 200: PageData(Asset), ...authErrors },
      },
    },
    async (request) => {
      requireCustomerAccess(principalOf(request), request.params.customerId);
      const { type, ...q } = request.query;
      return assets.page(q, { customerId: request.params.customerId, type });
    },
  );
  app.get(
    '/api/customer/:customerId/assetInfos',
    {
      schema: {
        tags,
        summary: "A customer's assets with customer titles and profile names",
        params: Type.Object({ customerId: Uuid }),
        querystring: AssetInfoPageQuery,
        response: { 200: PageData(AssetInfo), ...authErrors },
      },
    },
    async (request) => {
      requireCustomerAccess(principalOf(request), request.params.customerId);
      const { type, assetProfileId, ...q } = request.query;
      const filter: AssetFilter = { customerId: request.params.customerId, type, assetProfileId };
      return assets.infoPage(q, filter);
    },
  );
  app.post(
    '/api/customer/:customerId/asset/:assetId',
    {
      schema: {
        tags,
        summary: 'Assign an asset to a customer',
        params: Type.Object({ customerId: Uuid, assetId: Uuid }),
        response: { 200: Asset, ...authErrors },
      },
    },
    async (request) =>
      assets.assignToCustomer(request.params.assetId, request.params.customerId, principalOf(request)),
  );
  app.post(
    '/api/asset/bulk_import',
    {
      schema: {
        tags,
        summary: 'Create or update assets from CSV (one asset a line), with attributes and telemetry',
        body: BulkImportRequest,
        response: { 200: BulkImportResult, ...authErrors },
      },
    },
    async (request) => services.assetBulkImport.run(request.body, principalOf(request)),
  );
  app.post(
    '/api/customer/public/asset/:assetId',
    {
      schema: {
        tags,
        summary: 'Make an asset public: assign it to the public customer',
        params: AssetParams,
        response: { 200: Asset, ...authErrors },
      },
    },
    async (request) => assets.assignToPublicCustomer(request.params.assetId, principalOf(request)),
  );
  app.delete(
    '/api/customer/asset/:assetId',
    {
      schema: {
        tags,
        summary: 'Unassign an asset from its customer',
        params: AssetParams,
        response: { 200: Asset, ...authErrors },
      },
    },
    async (request) => assets.assignToCustomer(request.params.assetId, null, principalOf(request)),
  );
  for (const method of ['post', 'delete'] as const) {
    app[method](
      '/api/edge/:edgeId/asset/:assetId',
      {
        schema: {
          tags,
          summary: method === 'post' ? 'Assign an asset to an edge' : 'Unassign an asset from an edge',
          params: Type.Object({ edgeId: Uuid, assetId: Uuid }),
          response: { 200: Asset, ...authErrors },
        },
      },
      async (request) => {
        const p = principalOf(request);
        const { edgeId, assetId } = request.params;
        if (method === 'post') await edges.assign(edgeId, 'ASSET', assetId, p);
        else await edges.unassign(edgeId, 'ASSET', assetId, p);
        return assets.get(assetId, p);
      },
    );
  }
  app.get(
    '/api/edge/:edgeId/assets',
    {
      schema: {
        tags,
        summary: 'Assets assigned to an edge',
        params: Type.Object({ edgeId: Uuid }),
        querystring: Type.Intersect([
          AssetPageQuery,
          Type.Object({ startTime: Type.Optional(EpochMs()), endTime: Type.Optional(EpochMs()) }),
        ]),
        response: { 200: PageData(Asset), ...authErrors },
      },
    },
    async (request) => {
      const p = principalOf(request);
      edges.accessibleRow(request.params.edgeId, p);
      const { type, startTime: _s, endTime: _e, ...q } = request.query;
      return assets.page(q, {
        edgeId: request.params.edgeId,
        type,
        customerId: p.authority === 'CUSTOMER_USER' ? (p.customerId ?? '-') : undefined,
      });
    },
  );

  // --- asset profiles ---------------------------------------------------------------------------------
  const profileTags = ['Asset profiles'];
  const ProfileParams = Type.Object({ assetProfileId: Uuid });
  const ProfilePage = PageQuery(ASSET_PROFILE_SORT);
  app.post(
    '/api/assetProfile',
    {
      schema: {
        tags: profileTags,
        summary: 'Create or update an asset profile',
        body: SaveAssetProfileRequest,
        response: { 200: AssetProfile, ...authErrors },
      },
    },
    async (request) => assetProfiles.save(request.body, principalOf(request)),
  );
  app.get(
    '/api/assetProfile/:assetProfileId',
    {
      schema: {
        tags: profileTags,
        summary: 'An asset profile',
        params: ProfileParams,
        querystring: Type.Object({ inlineImages: Type.Optional(Type.Boolean()) }),
        response: { 200: AssetProfile, ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return assetProfiles.get(request.params.assetProfileId);
    },
  );
  app.delete(
    '/api/assetProfile/:assetProfileId',
    {
      schema: {
        tags: profileTags,
        summary: 'Delete an asset profile no asset uses',
        params: ProfileParams,
        response: emptyOk,
      },
    },
    async (request, reply) => {
      await assetProfiles.delete(request.params.assetProfileId, principalOf(request));
      return reply.code(200).send(undefined);
    },
  );
  app.post(
    '/api/assetProfile/:assetProfileId/default',
    {
      schema: {
        tags: profileTags,
        summary: 'Make a profile the default',
        params: ProfileParams,
        response: { 200: AssetProfile, ...authErrors },
      },
    },
    async (request) => assetProfiles.setDefault(request.params.assetProfileId, principalOf(request)),
  );
  app.get(
    '/api/assetProfile/names',
    {
      schema: {
        tags: profileTags,
        summary: 'Asset profile names (activeOnly: those some asset uses)',
        querystring: Type.Object({ activeOnly: Type.Optional(Type.Boolean()) }),
        response: { 200: Type.Array(EntityInfo), ...authErrors },
      },
    },
    async (request) => assetProfiles.names(request.query.activeOnly ?? false),
  );
  app.get(
    '/api/assetProfileInfo/default',
    {
      schema: {
        tags: profileTags,
        summary: 'The default asset profile',
        response: { 200: AssetProfileInfo, ...authErrors },
      },
    },
    async () => assetProfiles.defaultInfo(),
  );
  app.get(
    '/api/assetProfileInfo/:assetProfileId',
    {
      schema: {
        tags: profileTags,
        summary: 'An asset profile (id, name, image)',
        params: ProfileParams,
        response: { 200: AssetProfileInfo, ...authErrors },
      },
    },
    async (request) => assetProfiles.info(request.params.assetProfileId),
  );
  app.get(
    '/api/assetProfileInfos',
    {
      schema: {
        tags: profileTags,
        summary: 'Asset profile infos a page at a time, or those of assetProfileIds',
        querystring: Type.Object({
          ...ProfilePage.properties,
          pageSize: Type.Optional(ProfilePage.properties.pageSize),
          page: Type.Optional(ProfilePage.properties.page),
          assetProfileIds: Type.Optional(IdList('asset profile ids')),
        }),
        response: {
          200: Type.Union([PageData(AssetProfileInfo), Type.Array(AssetProfileInfo)]),
          ...authErrors,
        },
      },
    },
    async (request) => {
      const { assetProfileIds, ...q } = request.query;
      if (assetProfileIds !== undefined) {
        requireTenantAdmin(principalOf(request));
        return assetProfiles.infosByIds(uuidList(assetProfileIds, 'assetProfileIds'));
      }
      if (q.pageSize === undefined)
        throw badRequestParams("Required request parameter 'pageSize' is not present");
      if (q.page === undefined) throw badRequestParams("Required request parameter 'page' is not present");
      return assetProfiles.infoPage({ ...q, pageSize: q.pageSize, page: q.page });
    },
  );
  app.get(
    '/api/assetProfileInfos/list',
    {
      schema: {
        tags: profileTags,
        summary: 'Asset profile infos by id',
        querystring: Type.Object({ assetProfileIds: IdList('asset profile ids') }),
        response: { 200: Type.Array(AssetProfileInfo), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return assetProfiles.infosByIds(uuidList(request.query.assetProfileIds, 'assetProfileIds'));
    },
  );
  app.get(
    '/api/assetProfiles',
    {
      schema: {
        tags: profileTags,
        summary: 'Asset profiles, a page at a time',
        querystring: ProfilePage,
        response: { 200: PageData(AssetProfile), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return assetProfiles.page(request.query);
    },
  );
}
