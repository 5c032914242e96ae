import { Type } from 'typebox';
import { Uuid } from '../../../shared/schemas/common.ts';
import {
  EntityRelation,
  EntityRelationInfo,
  EntityRelationsQuery,
  RelationKeyQuery,
  RelationListQuery,
  SaveRelationRequest,
  type SearchDirection,
} from '../../../shared/schemas/relations.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import { badRequestParams } from '../../platform/errors.ts';
import { parseTypeGroup, type RelationKey } from '../../platform/relations.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api, type RouteDeps } from '../route-types.ts';

const keyOf = (q: RelationKeyQuery): RelationKey => ({
  from: { entityType: q.fromType, id: q.fromId },
  to: { entityType: q.toType, id: q.toId },
  type: q.relationType,
  typeGroup: parseTypeGroup(q.relationTypeGroup),
});

/** The end a listing is about: from (fromId, fromType) or to (toId, toType). */
function endOf(q: RelationListQuery): {
  entity: { entityType: string; id: string };
  direction: SearchDirection;
} {
  if (q.fromId && q.fromType) return { entity: { entityType: q.fromType, id: q.fromId }, direction: 'FROM' };
  if (q.toId && q.toType) return { entity: { entityType: q.toType, id: q.toId }, direction: 'TO' };
  throw badRequestParams("Give 'fromId' and 'fromType', or 'toId' and 'toType'");
}

/** ThingsBoard's EntityRelationController, with its newer path forms (/v2/relation, /relations/from/...). */
export function registerRelationRoutes(app: Api, { services }: RouteDeps): void {
  const { relations } = services;
  const tags = ['Relations'];
  const list = (q: RelationListQuery, p: Principal) => {
    const { entity, direction } = endOf(q);
    return relations.list(entity, direction, parseTypeGroup(q.relationTypeGroup), p, q.relationType);
  };

  app.post(
    '/api/relation',
    {
      schema: {
        tags,
        summary: 'Create or update a relation (both ends must exist and be yours)',
        body: SaveRelationRequest,
        response: emptyOk,
      },
    },
    async (request, reply) => {
      await relations.save(request.body, principalOf(request));
      return reply.code(200).send(undefined);
    },
  );
  app.post(
    '/api/v2/relation',
    {
      schema: {
        tags,
        summary: 'Create or update a relation, answering it',
        body: SaveRelationRequest,
        response: { 200: EntityRelation, ...authErrors },
      },
    },
    async (request) => relations.save(request.body, principalOf(request)),
  );
  app.delete(
    '/api/relation',
    { schema: { tags, summary: 'Delete a relation', querystring: RelationKeyQuery, response: emptyOk } },
    async (request, reply) => {
      await relations.delete(keyOf(request.query), principalOf(request));
      return reply.code(200).send(undefined);
    },
  );
  app.delete(
    '/api/v2/relation',
    {
      schema: {
        tags,
        summary: 'Delete a relation, answering it',
        querystring: RelationKeyQuery,
        response: { 200: EntityRelation, ...authErrors },
      },
    },
    async (request) => relations.delete(keyOf(request.query), principalOf(request)),
  );
  app.get(
    '/api/relation',
    {
      schema: {
        tags,
        summary: 'One relation',
        querystring: RelationKeyQuery,
        response: { 200: EntityRelation, ...authErrors },
      },
    },
    async (request) => relations.get(keyOf(request.query), principalOf(request)),
  );
  app.delete(
    '/api/relations',
    {
      schema: {
        tags,
        summary: 'Delete every COMMON relation from and to an entity',
        querystring: Type.Object({
          entityId: Uuid,
          entityType: Type.String({ minLength: 1, maxLength: 32 }),
        }),
        response: emptyOk,
      },
    },
    async (request, reply) => {
      await relations.deleteCommon(
        { entityType: request.query.entityType, id: request.query.entityId },
        principalOf(request),
      );
      return reply.code(200).send(undefined);
    },
  );
  app.get(
    '/api/relations',
    {
      schema: {
        tags,
        summary:
          'Relations from an entity (fromId, fromType) or to one (toId, toType), optionally of a relationType',
        querystring: RelationListQuery,
        response: { 200: Type.Array(EntityRelation), ...authErrors },
      },
    },
    async (request) => list(request.query, principalOf(request)),
  );
  app.get(
    '/api/relations/info',
    {
      schema: {
        tags,
        summary: 'Relations from or to an entity, with the name of the entity at the other end',
        querystring: RelationListQuery,
        response: { 200: Type.Array(EntityRelationInfo), ...authErrors },
      },
    },
    async (request) => {
      const { entity, direction } = endOf(request.query);
      return relations.listInfo(
        entity,
        direction,
        parseTypeGroup(request.query.relationTypeGroup),
        principalOf(request),
      );
    },
  );
  app.post(
    '/api/relations',
    {
      schema: {
        tags,
        summary: 'Relations found level by level from a root entity (EntityRelationsQuery)',
        body: EntityRelationsQuery,
        response: { 200: Type.Array(EntityRelation), ...authErrors },
      },
    },
    async (request) => relations.query(request.body, principalOf(request)),
  );
  app.post(
    '/api/relations/info',
    {
      schema: {
        tags,
        summary: 'A relations query answered with the names of the entities found',
        body: EntityRelationsQuery,
        response: { 200: Type.Array(EntityRelationInfo), ...authErrors },
      },
    },
    async (request) => relations.queryInfo(request.body, principalOf(request)),
  );

  // The path forms of ThingsBoard 4.x: /api/relations[/info]/{from|to}/{type}/{id}[/{relationType}]
  const EndParams = Type.Object({ entityType: Type.String({ minLength: 1, maxLength: 32 }), entityId: Uuid });
  const GroupQuery = Type.Object({ relationTypeGroup: Type.Optional(Type.String({ maxLength: 64 })) });
  for (const direction of ['from', 'to'] as const) {
    const dir: SearchDirection = direction === 'from' ? 'FROM' : 'TO';
    app.get(
      `/api/relations/${direction}/:entityType/:entityId`,
      {
        schema: {
          tags,
          summary: `Relations ${direction} an entity`,
          params: EndParams,
          querystring: GroupQuery,
          response: { 200: Type.Array(EntityRelation), ...authErrors },
        },
      },
      async (request) =>
        relations.list(
          { entityType: request.params.entityType, id: request.params.entityId },
          dir,
          parseTypeGroup(request.query.relationTypeGroup),
          principalOf(request),
        ),
    );
    app.get(
      `/api/relations/${direction}/:entityType/:entityId/:relationType`,
      {
        schema: {
          tags,
          summary: `Relations of a type ${direction} an entity`,
          params: Type.Object({
            ...EndParams.properties,
            relationType: Type.String({ minLength: 1, maxLength: 255 }),
          }),
          querystring: GroupQuery,
          response: { 200: Type.Array(EntityRelation), ...authErrors },
        },
      },
      async (request) =>
        relations.list(
          { entityType: request.params.entityType, id: request.params.entityId },
          dir,
          parseTypeGroup(request.query.relationTypeGroup),
          principalOf(request),
          request.params.relationType,
        ),
    );
    app.get(
      `/api/relations/info/${direction}/:entityType/:entityId`,
      {
        schema: {
          tags,
          summary: `Relations ${direction} an entity, with the names at the other end`,
          params: EndParams,
          querystring: GroupQuery,
          response: { 200: Type.Array(EntityRelationInfo), ...authErrors },
        },
      },
      async (request) =>
        relations.listInfo(
          { entityType: request.params.entityType, id: request.params.entityId },
          dir,
          parseTypeGroup(request.query.relationTypeGroup),
          principalOf(request),
        ),
    );
  }
}
