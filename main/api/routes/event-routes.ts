import { Type, type Static } from 'typebox';
import { DebugEventInfo } from '../../../shared/rule-engine.ts';
import { PageData, Uuid } from '../../../shared/schemas/common.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import { KNOWN_ENTITY_TYPES } from '../../platform/entity-directory.ts';
import { badRequestParams, forbidden } from '../../platform/errors.ts';
import { matches, type DebugEvent, type DebugFilter } from '../../rule-engine/debug-log.ts';
import { RPC_SERVICE_ID } from '../../platform/rpc.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api, type RouteDeps } from '../route-types.ts';

/** ThingsBoard's event types (and their old names); Sandboard keeps rule node debug events. */
const EVENT_TYPES: Record<string, string> = {
  ERROR: 'ERROR',
  LC_EVENT: 'LC_EVENT',
  STATS: 'STATS',
  DEBUG_RULE_NODE: 'DEBUG_RULE_NODE',
  DEBUG_RULE_CHAIN: 'DEBUG_RULE_CHAIN',
  DEBUG_CALCULATED_FIELD: 'DEBUG_CALCULATED_FIELD',
};

function eventType(name: string): string {
  const type = EVENT_TYPES[name.toUpperCase()];
  if (!type) throw badRequestParams(`Event type: '${name}' is not supported!`);
  return type;
}

const EventQuery = Type.Object({
  tenantId: Type.Optional(Type.String()),
  pageSize: Type.Integer({ minimum: 1, maximum: 10_000 }),
  page: Type.Integer({ minimum: 0 }),
  textSearch: Type.Optional(Type.String({ maxLength: 255 })),
  sortProperty: Type.Optional(
    Type.Union([Type.Literal('ts'), Type.Literal('id'), Type.Literal('createdTime')]),
  ),
  sortOrder: Type.Optional(Type.Union([Type.Literal('ASC'), Type.Literal('DESC')])),
  startTime: Type.Optional(Type.Integer()),
  endTime: Type.Optional(Type.Integer()),
});

/** ThingsBoard's EventFilter body (eventType plus the rule node debug filter's fields). */
const EventFilter = Type.Object({
  eventType: Type.Optional(Type.String()),
  msgDirectionType: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  entityId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  entityType: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  msgId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  msgType: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  relationType: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  dataSearch: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  metadataSearch: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  isError: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  errorStr: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  server: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  traceId: Type.Optional(
    Type.Union([Type.String({ description: 'Sandboard: one message and what it became' }), Type.Null()]),
  ),
});
type EventFilter = Static<typeof EventFilter>;

const EventParams = Type.Object({ entityType: Type.String({ maxLength: 32 }), entityId: Uuid });

function toFilter(f: EventFilter | undefined, startTime?: number, endTime?: number): DebugFilter {
  const v = (x: string | null | undefined) => (x ? x : undefined);
  return {
    direction: v(f?.msgDirectionType),
    entityId: v(f?.entityId),
    entityType: v(f?.entityType),
    msgId: v(f?.msgId),
    traceId: v(f?.traceId),
    msgType: v(f?.msgType),
    relationType: v(f?.relationType),
    dataSearch: v(f?.dataSearch),
    metadataSearch: v(f?.metadataSearch),
    isError: f?.isError ?? undefined,
    errorStr: v(f?.errorStr),
    startTime,
    endTime,
  };
}

/** A debug event in ThingsBoard's EventInfo shape. */
function toInfo(e: DebugEvent, tenantId: string): DebugEventInfo {
  return {
    id: { entityType: 'EVENT', id: e.id },
    createdTime: e.ts,
    tenantId: { entityType: 'TENANT', id: tenantId },
    type: 'DEBUG_RULE_NODE',
    uid: e.id,
    entityId: { entityType: 'RULE_NODE', id: e.nodeId },
    body: {
      server: RPC_SERVICE_ID,
      type: e.direction,
      entityId: e.originator.id,
      entityType: e.originator.entityType,
      msgId: e.msgId,
      msgType: e.msgType,
      dataType: 'JSON',
      ...(e.relation !== null ? { relationType: e.relation } : {}),
      data: e.data,
      metadata: e.metadata,
      ...(e.error !== null ? { error: e.error } : {}),
      traceId: e.traceId,
      ...(e.parentId ? { parentMsgId: e.parentId } : {}),
      ruleChainId: e.ruleChainId,
      ruleNodeName: e.nodeName,
    },
  };
}

/** ThingsBoard's events API over the rule node debug events Sandboard keeps (the last ones of each node). */
export function registerEventRoutes(app: Api, { ruleChains, services }: RouteDeps): void {
  const tags = ['Events'];
  /** As ThingsBoard: a customer user reads the events of its own entities; rule nodes are the tenant's. */
  const requireEventAccess = (
    actor: Principal,
    params: { entityType: string; entityId: string },
    access: 'read' | 'write' = 'read',
  ) => {
    if (actor.authority === 'TENANT_ADMIN') return;
    if (!KNOWN_ENTITY_TYPES.includes(params.entityType)) throw forbidden();
    services.directory.require({ entityType: params.entityType, id: params.entityId }, actor, access);
  };
  const page = (
    entityType: string,
    entityId: string,
    type: string,
    q: Static<typeof EventQuery>,
    filter: EventFilter | undefined,
  ) => {
    const all =
      entityType === 'RULE_NODE' && type === 'DEBUG_RULE_NODE'
        ? ruleChains.engine.debugLog
            .events(entityId)
            .filter((e) => matches(e, toFilter(filter, q.startTime, q.endTime)))
        : [];
    const search = q.textSearch?.toLowerCase();
    const found = search
      ? all.filter((e) =>
          `${e.msgType} ${e.relation ?? ''} ${e.data} ${e.metadata}`.toLowerCase().includes(search),
        )
      : all;
    const ordered = q.sortOrder === 'ASC' ? found : [...found].reverse();
    const data = ordered.slice(q.page * q.pageSize, (q.page + 1) * q.pageSize);
    return {
      data: data.map((e) => toInfo(e, services.ctx.tenantId)),
      totalPages: Math.ceil(found.length / q.pageSize),
      totalElements: found.length,
      hasNext: (q.page + 1) * q.pageSize < found.length,
    };
  };

  app.get(
    '/api/events/:entityType/:entityId/:eventType',
    {
      schema: {
        tags,
        summary:
          "Events of an entity (a rule node's DEBUG_RULE_NODE events: its last messages in and out), newest first",
        params: Type.Intersect([EventParams, Type.Object({ eventType: Type.String({ maxLength: 64 }) })]),
        querystring: EventQuery,
        response: { 200: PageData(DebugEventInfo), ...authErrors },
      },
    },
    async (request) => {
      requireEventAccess(principalOf(request), request.params);
      const { entityType, entityId } = request.params;
      return page(entityType, entityId, eventType(request.params.eventType), request.query, undefined);
    },
  );
  app.get(
    '/api/events/:entityType/:entityId',
    {
      schema: {
        tags,
        summary: 'Lifecycle events of an entity (none are kept)',
        params: EventParams,
        querystring: EventQuery,
        response: { 200: PageData(DebugEventInfo), ...authErrors },
      },
    },
    async (request) => {
      requireEventAccess(principalOf(request), request.params);
      return page(request.params.entityType, request.params.entityId, 'LC_EVENT', request.query, undefined);
    },
  );
  app.post(
    '/api/events/:entityType/:entityId',
    {
      schema: {
        tags,
        summary:
          'Events of an entity matching a filter ({"eventType":"DEBUG_RULE_NODE", "msgDirectionType":"IN", ...})',
        params: EventParams,
        querystring: EventQuery,
        body: EventFilter,
        response: { 200: PageData(DebugEventInfo), ...authErrors },
      },
    },
    async (request) => {
      requireEventAccess(principalOf(request), request.params);
      const type = eventType(request.body.eventType ?? 'DEBUG_RULE_NODE');
      return page(request.params.entityType, request.params.entityId, type, request.query, request.body);
    },
  );
  app.post(
    '/api/events/:entityType/:entityId/clear',
    {
      schema: {
        tags,
        summary: "Deletes an entity's events matching the filter (in a time range when given)",
        params: EventParams,
        querystring: Type.Object({
          startTime: Type.Optional(Type.Integer()),
          endTime: Type.Optional(Type.Integer()),
        }),
        body: Type.Optional(EventFilter),
        response: emptyOk,
      },
    },
    async (request, reply) => {
      requireEventAccess(principalOf(request), request.params, 'write');
      const type = eventType(request.body?.eventType ?? 'DEBUG_RULE_NODE');
      if (request.params.entityType === 'RULE_NODE' && type === 'DEBUG_RULE_NODE')
        ruleChains.engine.debugLog.clear(
          request.params.entityId,
          toFilter(request.body, request.query.startTime, request.query.endTime),
        );
      return reply.code(200).send(undefined);
    },
  );
}
