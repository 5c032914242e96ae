/** Alarms in ThingsBoard's shapes (Alarm, AlarmInfo), their enums and the query strings of the listings. */
import { Type, type Static } from 'typebox';
import { EpochMs, PageNumber, PageSize } from '../limits.ts';
import { AnyEntityId, EntityId, Nullable, StringEnum } from './common.ts';

export const ALARM_SEVERITIES = ['CRITICAL', 'MAJOR', 'MINOR', 'WARNING', 'INDETERMINATE'] as const;
export type AlarmSeverity = (typeof ALARM_SEVERITIES)[number];
export const AlarmSeverity = StringEnum(ALARM_SEVERITIES);

export const ALARM_STATUSES = ['ACTIVE_UNACK', 'ACTIVE_ACK', 'CLEARED_UNACK', 'CLEARED_ACK'] as const;
export type AlarmStatus = (typeof ALARM_STATUSES)[number];
export const AlarmStatus = StringEnum(ALARM_STATUSES);

export const ALARM_SEARCH_STATUSES = ['ANY', 'ACTIVE', 'CLEARED', 'ACK', 'UNACK'] as const;
export type AlarmSearchStatus = (typeof ALARM_SEARCH_STATUSES)[number];
export const AlarmSearchStatus = StringEnum(ALARM_SEARCH_STATUSES);

/**
 * What an alarm operation did, with ThingsBoard 4.x's names (the rule engine message types without the
 * ALARM_ prefix; DELETED is ALARM_DELETE): CREATED, UPDATED (raised again, same severity),
 * SEVERITY_UPDATED, ACK, CLEAR, ASSIGNED, UNASSIGNED, DELETED.
 */
export const ALARM_CHANGE_KINDS = [
  'CREATED',
  'UPDATED',
  'SEVERITY_UPDATED',
  'ACK',
  'CLEAR',
  'ASSIGNED',
  'UNASSIGNED',
  'DELETED',
] as const;
export type AlarmChangeKind = (typeof ALARM_CHANGE_KINDS)[number];

export const ALARM_SORT_PROPERTIES = [
  'createdTime',
  'startTs',
  'endTs',
  'type',
  'ackTs',
  'clearTs',
  'severity',
  'status',
  'originatorName',
  'assignee',
] as const;

export const ALARM_LIMITS = {
  typeChars: 255,
  detailsChars: 65_536,
  propagateRelationTypes: 100,
  /** how deep propagation follows relations up from the originator */
  propagationLevels: 50,
  /** entities one alarm propagates to at most */
  propagationEntities: 10_000,
} as const;

export const Alarm = Type.Object({
  id: EntityId('ALARM'),
  createdTime: Type.Integer(),
  tenantId: EntityId('TENANT'),
  customerId: Nullable(EntityId('CUSTOMER')),
  name: Type.String({ description: 'The type' }),
  type: Type.String(),
  originator: AnyEntityId,
  severity: AlarmSeverity,
  acknowledged: Type.Boolean(),
  cleared: Type.Boolean(),
  assigneeId: Nullable(EntityId('USER')),
  startTs: Type.Integer(),
  endTs: Type.Integer({ description: 'Last time the alarm was raised again' }),
  ackTs: Type.Integer(),
  clearTs: Type.Integer(),
  assignTs: Type.Integer(),
  details: Type.Unknown({ description: 'JSON object with alarm details' }),
  propagate: Type.Boolean({
    description: 'Also shown on the entities the originator is related to (upward)',
  }),
  propagateToOwner: Type.Boolean(),
  propagateToTenant: Type.Boolean(),
  propagateRelationTypes: Type.Array(Type.String()),
  status: AlarmStatus,
});
export type Alarm = Static<typeof Alarm>;

export const AlarmAssignee = Type.Object({
  id: EntityId('USER'),
  firstName: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  email: Type.String(),
});
export type AlarmAssignee = Static<typeof AlarmAssignee>;

export const AlarmInfo = Type.Object({
  ...Alarm.properties,
  originatorName: Nullable(Type.String()),
  originatorLabel: Nullable(Type.String()),
  originatorDisplayName: Nullable(Type.String()),
  assignee: Nullable(AlarmAssignee),
});
export type AlarmInfo = Static<typeof AlarmInfo>;

const Ts = EpochMs();

export const SaveAlarmRequest = Type.Object({
  id: Type.Optional(
    Nullable(
      Type.Object({ entityType: Type.Optional(Type.Literal('ALARM')), id: Type.String({ format: 'uuid' }) }),
    ),
  ),
  tenantId: Type.Optional(Type.Unknown({ description: 'ignored: the caller’s tenant' })),
  customerId: Type.Optional(
    Nullable(Type.Object({ entityType: Type.Optional(Type.Literal('CUSTOMER')), id: Type.String() })),
  ),
  type: Type.String({ minLength: 1, maxLength: ALARM_LIMITS.typeChars }),
  originator: Type.Object({
    entityType: Type.String({ minLength: 1, maxLength: 32 }),
    id: Type.String({ format: 'uuid' }),
  }),
  severity: AlarmSeverity,
  acknowledged: Type.Optional(Type.Boolean()),
  cleared: Type.Optional(Type.Boolean()),
  assigneeId: Type.Optional(
    Nullable(
      Type.Object({ entityType: Type.Optional(Type.Literal('USER')), id: Type.String({ format: 'uuid' }) }),
    ),
  ),
  startTs: Type.Optional(Ts),
  endTs: Type.Optional(Ts),
  ackTs: Type.Optional(Ts),
  clearTs: Type.Optional(Ts),
  assignTs: Type.Optional(Ts),
  details: Type.Optional(Type.Unknown()),
  propagate: Type.Optional(Type.Boolean()),
  propagateToOwner: Type.Optional(Type.Boolean()),
  propagateToTenant: Type.Optional(Type.Boolean()),
  propagateRelationTypes: Type.Optional(
    Nullable(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
        maxItems: ALARM_LIMITS.propagateRelationTypes,
      }),
    ),
  ),
});
export type SaveAlarmRequest = Static<typeof SaveAlarmRequest>;

const pagingQuery = {
  pageSize: PageSize(),
  page: PageNumber(),
  textSearch: Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'Case-insensitive substring of the type, severity or status',
    }),
  ),
  sortProperty: Type.Optional(StringEnum(ALARM_SORT_PROPERTIES)),
  sortOrder: Type.Optional(StringEnum(['ASC', 'DESC'] as const)),
  startTime: Type.Optional(EpochMs('createdTime from (epoch ms, inclusive)')),
  endTime: Type.Optional(EpochMs('createdTime up to (epoch ms, inclusive)')),
  assigneeId: Type.Optional(Type.String({ format: 'uuid' })),
};

/** GET /api/alarms and /api/alarm/{entityType}/{entityId}. */
export const AlarmListQuery = Type.Object({
  ...pagingQuery,
  searchStatus: Type.Optional(AlarmSearchStatus),
  status: Type.Optional(AlarmStatus),
  fetchOriginator: Type.Optional(Type.Boolean()),
});
export type AlarmListQuery = Static<typeof AlarmListQuery>;

const commaList = (description: string) => Type.Optional(Type.String({ maxLength: 4096, description }));

/** GET /api/v2/alarms and /api/v2/alarm/{entityType}/{entityId}. */
export const AlarmListQueryV2 = Type.Object({
  ...pagingQuery,
  statusList: commaList('Comma-separated ANY, ACTIVE, CLEARED, ACK, UNACK'),
  severityList: commaList('Comma-separated CRITICAL, MAJOR, MINOR, WARNING, INDETERMINATE'),
  typeList: commaList('Comma-separated alarm types'),
});
export type AlarmListQueryV2 = Static<typeof AlarmListQueryV2>;

export const HighestSeverityQuery = Type.Object({
  searchStatus: Type.Optional(AlarmSearchStatus),
  status: Type.Optional(AlarmStatus),
  assigneeId: Type.Optional(Type.String({ format: 'uuid' })),
});
export type HighestSeverityQuery = Static<typeof HighestSeverityQuery>;
