import { Type } from 'typebox';
import {
  Alarm,
  AlarmInfo,
  AlarmListQuery,
  AlarmListQueryV2,
  AlarmSeverity,
  HighestSeverityQuery,
  SaveAlarmRequest,
} from '../../../shared/schemas/alarms.ts';
import { PageNumber, PageSize } from '../../../shared/limits.ts';
import { EntitySubtype } from '../../../shared/schemas/assets.ts';
import { PageData, StringEnum, Uuid } from '../../../shared/schemas/common.ts';
import {
  parseSearchStatusList,
  parseSeverityList,
  type AlarmSelection,
} from '../../platform/alarm-records.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import { badRequestParams } from '../../platform/errors.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, type Api, type RouteDeps } from '../route-types.ts';

const AlarmParams = Type.Object({ alarmId: Uuid });
const EntityParams = Type.Object({
  entityType: Type.String({ minLength: 1, maxLength: 32 }),
  entityId: Uuid,
});

/** The part of a listing's query the selection takes: status, assignee and the created time window. */
function selectionOf(q: {
  searchStatus?: AlarmSelection['searchStatus'];
  status?: AlarmSelection['status'];
  assigneeId?: string;
  startTime?: number;
  endTime?: number;
}): AlarmSelection {
  if (q.searchStatus && q.status) {
    throw badRequestParams(
      "Invalid alarms search query: Both parameters 'searchStatus' and 'status' can't be specified at the same time!",
    );
  }
  return {
    searchStatus: q.searchStatus,
    status: q.status,
    assigneeId: q.assigneeId,
    startTime: q.startTime,
    endTime: q.endTime,
  };
}

function selectionOfV2(q: AlarmListQueryV2): AlarmSelection {
  return {
    statusList: parseSearchStatusList(q.statusList),
    severityList: parseSeverityList(q.severityList),
    typeList: q.typeList
      ? q.typeList
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean)
      : undefined,
    assigneeId: q.assigneeId,
    startTime: q.startTime,
    endTime: q.endTime,
  };
}

/** A customer user sees its customer's alarms; a tenant administrator all of them. */
const ownerScope = (p: Principal): AlarmSelection =>
  p.authority === 'TENANT_ADMIN' ? {} : { customerId: p.customerId ?? '-' };

/** ThingsBoard's AlarmController. */
export function registerAlarmRoutes(app: Api, { services }: RouteDeps): void {
  const { alarms, directory } = services;
  const tags = ['Alarms'];

  app.post(
    '/api/alarm',
    {
      schema: {
        tags,
        summary:
          'Create or update an alarm. Without an id the active alarm of the same originator and type is updated (raised again), or a new one created',
        body: SaveAlarmRequest,
        response: { 200: Alarm, ...authErrors },
      },
    },
    async (request) => alarms.save(request.body, principalOf(request)),
  );
  app.get(
    '/api/alarm/:alarmId',
    { schema: { tags, summary: 'An alarm', params: AlarmParams, response: { 200: Alarm, ...authErrors } } },
    async (request) => alarms.get(request.params.alarmId, principalOf(request)),
  );
  app.get(
    '/api/alarm/info/:alarmId',
    {
      schema: {
        tags,
        summary: 'An alarm with its originator name and assignee',
        params: AlarmParams,
        response: { 200: AlarmInfo, ...authErrors },
      },
    },
    async (request) => alarms.info(request.params.alarmId, principalOf(request)),
  );
  app.delete(
    '/api/alarm/:alarmId',
    {
      schema: {
        tags,
        summary: 'Delete an alarm',
        params: AlarmParams,
        response: { 200: Type.Boolean(), ...authErrors },
      },
    },
    async (request) => {
      await alarms.delete(request.params.alarmId, principalOf(request));
      return true;
    },
  );
  app.post(
    '/api/alarm/:alarmId/ack',
    {
      schema: {
        tags,
        summary: 'Acknowledge an alarm (400 when it already is)',
        params: AlarmParams,
        response: { 200: AlarmInfo, ...authErrors },
      },
    },
    async (request) => (await alarms.ack(request.params.alarmId, principalOf(request))).alarm,
  );
  app.post(
    '/api/alarm/:alarmId/clear',
    {
      schema: {
        tags,
        summary: 'Clear an alarm (400 when it already is); the next raise of its type creates a new alarm',
        params: AlarmParams,
        response: { 200: AlarmInfo, ...authErrors },
      },
    },
    async (request) => (await alarms.clear(request.params.alarmId, principalOf(request))).alarm,
  );
  app.post(
    '/api/alarm/:alarmId/assign/:assigneeId',
    {
      schema: {
        tags,
        summary: 'Assign an alarm to a user',
        params: Type.Object({ alarmId: Uuid, assigneeId: Uuid }),
        response: { 200: AlarmInfo, ...authErrors },
      },
    },
    async (request) =>
      (await alarms.assign(request.params.alarmId, request.params.assigneeId, principalOf(request))).alarm,
  );
  app.delete(
    '/api/alarm/:alarmId/assign',
    {
      schema: {
        tags,
        summary: 'Unassign an alarm',
        params: AlarmParams,
        response: { 200: AlarmInfo, ...authErrors },
      },
    },
    async (request) => (await alarms.unassign(request.params.alarmId, principalOf(request))).alarm,
  );
  app.get(
    '/api/alarm/:entityType/:entityId',
    {
      schema: {
        tags,
        summary: 'The alarms shown on an entity (raised by it or propagated to it), a page at a time',
        params: EntityParams,
        querystring: AlarmListQuery,
        response: { 200: PageData(AlarmInfo), ...authErrors },
      },
    },
    async (request) => {
      const selection = selectionOf(request.query);
      const entity = directory.require(
        { entityType: request.params.entityType, id: request.params.entityId },
        principalOf(request),
      );
      return alarms.page(request.query, { ...selection, entityId: entity.id });
    },
  );
  app.get(
    '/api/alarms',
    {
      schema: {
        tags,
        summary: "Every alarm of the tenant (a customer user: its customer's), a page at a time",
        querystring: AlarmListQuery,
        response: { 200: PageData(AlarmInfo), ...authErrors },
      },
    },
    async (request) =>
      alarms.page(request.query, { ...selectionOf(request.query), ...ownerScope(principalOf(request)) }),
  );
  app.get(
    '/api/v2/alarm/:entityType/:entityId',
    {
      schema: {
        tags,
        summary: 'The alarms shown on an entity, by lists of statuses, severities and types',
        params: EntityParams,
        querystring: AlarmListQueryV2,
        response: { 200: PageData(AlarmInfo), ...authErrors },
      },
    },
    async (request) => {
      const selection = selectionOfV2(request.query);
      const entity = directory.require(
        { entityType: request.params.entityType, id: request.params.entityId },
        principalOf(request),
      );
      return alarms.page(request.query, { ...selection, entityId: entity.id });
    },
  );
  app.get(
    '/api/v2/alarms',
    {
      schema: {
        tags,
        summary: 'Every alarm you may see, by lists of statuses, severities and types',
        querystring: AlarmListQueryV2,
        response: { 200: PageData(AlarmInfo), ...authErrors },
      },
    },
    async (request) =>
      alarms.page(request.query, { ...selectionOfV2(request.query), ...ownerScope(principalOf(request)) }),
  );
  app.get(
    '/api/alarm/highestSeverity/:entityType/:entityId',
    {
      schema: {
        tags,
        summary: 'The highest severity among the alarms shown on an entity (empty body when there are none)',
        params: EntityParams,
        querystring: HighestSeverityQuery,
        response: { 200: Type.Union([AlarmSeverity, Type.Null()]), ...authErrors },
      },
    },
    async (request, reply) => {
      const selection = selectionOf(request.query);
      const entity = directory.require(
        { entityType: request.params.entityType, id: request.params.entityId },
        principalOf(request),
      );
      const severity = alarms.highestSeverity({ ...selection, entityId: entity.id });
      // ThingsBoard answers a JSON string, or an empty body when there is no alarm
      return reply
        .code(200)
        .type('application/json')
        .serializer(() => (severity === null ? '' : JSON.stringify(severity)))
        .send(severity);
    },
  );
  app.get(
    '/api/alarm/types',
    {
      schema: {
        tags,
        summary: 'The alarm types in use, a page at a time',
        querystring: Type.Object({
          pageSize: PageSize(),
          page: PageNumber(),
          textSearch: Type.Optional(Type.String({ maxLength: 255 })),
          sortOrder: Type.Optional(StringEnum(['ASC', 'DESC'] as const)),
        }),
        response: { 200: PageData(EntitySubtype), ...authErrors },
      },
    },
    async (request) => {
      principalOf(request);
      return alarms.types(request.query);
    },
  );
}
