import { Type } from 'typebox';
import { PageNumber, PageSize } from '../../../shared/limits.ts';
import { StringEnum, Uuid } from '../../../shared/schemas/common.ts';
import { requireTenantAdmin } from '../../platform/auth/principal.ts';
import { CF_ENTITY_TYPES, CF_TYPES } from '../../platform/calculated-fields.ts';
import { badRequestParams } from '../../platform/errors.ts';
import { testCalculatedField } from '../../rule-engine/calculated-fields/cf-test-script.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, ownValidation, requirePage, type Api, type RouteDeps } from '../route-types.ts';

const CF_BODY_LIMIT = 256 * 1024;
const AnyObject = Type.Object({}, { additionalProperties: true });
const FieldParams = Type.Object({ calculatedFieldId: Uuid });
const PageQuery = {
  pageSize: Type.Optional(PageSize()),
  page: Type.Optional(PageNumber()),
  textSearch: Type.Optional(
    Type.String({ maxLength: 255, description: 'Case-insensitive part of the name' }),
  ),
  sortOrder: Type.Optional(StringEnum(['ASC', 'DESC'] as const)),
};

/** ThingsBoard 4.3's CalculatedFieldController: fields of devices, assets and profiles, their test and debug. */
export function registerCalculatedFieldRoutes(app: Api, { services }: RouteDeps): void {
  const { calculatedFields } = services;
  const tags = ['Calculated fields'];

  app.post(
    '/api/calculatedField',
    {
      bodyLimit: CF_BODY_LIMIT,
      ...ownValidation,
      schema: {
        tags,
        summary: `Create or update a calculated field (types ${CF_TYPES.join(', ')}) of a device, asset or profile`,
        body: AnyObject,
        response: { 200: AnyObject, ...authErrors },
      },
    },
    async (request) => calculatedFields.save(request.body, principalOf(request)),
  );
  app.post(
    '/api/calculatedField/testScript',
    {
      bodyLimit: CF_BODY_LIMIT,
      ...ownValidation,
      schema: {
        tags,
        summary: 'Run a calculated field expression (TBEL) once on sample arguments: {output, error}',
        body: AnyObject,
        response: { 200: Type.Object({ output: Type.String(), error: Type.String() }), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return testCalculatedField(request.body as Record<string, unknown>);
    },
  );
  app.get(
    '/api/calculatedField/:calculatedFieldId',
    {
      schema: {
        tags,
        summary: 'A calculated field',
        params: FieldParams,
        response: { 200: AnyObject, ...authErrors },
      },
    },
    async (request) => calculatedFields.get(request.params.calculatedFieldId, principalOf(request)),
  );
  app.delete(
    '/api/calculatedField/:calculatedFieldId',
    { schema: { tags, summary: 'Delete a calculated field', params: FieldParams, response: emptyOk } },
    async (request, reply) => {
      await calculatedFields.delete(request.params.calculatedFieldId, principalOf(request));
      return reply.send();
    },
  );
  app.get(
    '/api/calculatedField/:calculatedFieldId/debug',
    {
      schema: {
        tags,
        summary: "The field's latest debug event (an empty object when there is none)",
        params: FieldParams,
        response: { 200: AnyObject, ...authErrors },
      },
    },
    async (request) =>
      calculatedFields.debugEvents(request.params.calculatedFieldId, principalOf(request), 1)[0] ?? {},
  );
  app.get(
    '/api/calculatedField/:calculatedFieldId/debugEvents',
    {
      schema: {
        tags,
        summary: "Sandboard only: the field's kept debug events, newest first",
        params: FieldParams,
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }),
        response: { 200: Type.Array(AnyObject), ...authErrors },
      },
    },
    async (request) =>
      calculatedFields.debugEvents(
        request.params.calculatedFieldId,
        principalOf(request),
        request.query.limit ?? 100,
      ),
  );
  app.get(
    '/api/calculatedFields/names',
    {
      schema: {
        tags,
        summary: "The names of the tenant's calculated fields of a type",
        querystring: Type.Object({ type: Type.Optional(Type.String({ maxLength: 64 })), ...PageQuery }),
        response: { 200: AnyObject, ...authErrors },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.type === undefined)
        throw badRequestParams(
          "Required request parameter 'type' for method parameter type CalculatedFieldType is not present",
        );
      if (!(CF_TYPES as readonly string[]).includes(q.type))
        throw badRequestParams(`Invalid value '${q.type}' for parameter 'type'`);
      return calculatedFields.names(
        q.type,
        { ...requirePage(q), textSearch: q.textSearch, sortOrder: q.sortOrder },
        principalOf(request),
      );
    },
  );
  app.get(
    '/api/:entityType/:entityId/calculatedFields',
    {
      schema: {
        tags,
        summary: 'The calculated fields of a device, asset, device profile or asset profile (paged)',
        params: Type.Object({ entityType: Type.String({ maxLength: 32 }), entityId: Uuid }),
        querystring: Type.Object({
          ...PageQuery,
          sortProperty: Type.Optional(StringEnum(['createdTime', 'name', 'type'] as const)),
          type: Type.Optional(Type.String({ maxLength: 64, description: 'only fields of this type' })),
        }),
        response: { 200: AnyObject, ...authErrors },
      },
    },
    async (request) => {
      const { entityType, entityId } = request.params;
      if (!(CF_ENTITY_TYPES as readonly string[]).includes(entityType))
        throw badRequestParams(`Entity type '${entityType}' does not support calculated fields.`);
      const q = request.query;
      return calculatedFields.page(
        { entityType, id: entityId },
        { ...requirePage(q), textSearch: q.textSearch, sortProperty: q.sortProperty, sortOrder: q.sortOrder },
        principalOf(request),
        q.type,
      );
    },
  );
}
