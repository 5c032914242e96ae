/**
 * ThingsBoard's entity data query and alarm data query (POST /api/entitiesQuery/*, /api/alarmsQuery/*):
 * an entity filter picks entities, key filters narrow them, the page link sorts and pages, and the
 * answer carries the entity fields and latest values asked for.
 */
import { Type, type Static } from 'typebox';
import { AlarmInfo, AlarmSearchStatus, AlarmSeverity } from './alarms.ts';
import { EpochMs, MAX_EPOCH_MS, PageNumber, PageSize } from '../limits.ts';
import { AnyEntityId, Nullable, StringEnum } from './common.ts';
import { RelationEntityTypeFilter, RelationTypeGroup, SEARCH_DIRECTIONS } from './relations.ts';

export const ENTITY_FILTER_TYPES = [
  'singleEntity',
  'entityList',
  'entityName',
  'entityType',
  'deviceType',
  'assetType',
  'edgeType',
  'relationsQuery',
] as const;
export type EntityFilterType = (typeof ENTITY_FILTER_TYPES)[number];

export const ENTITY_KEY_TYPES = [
  'ATTRIBUTE',
  'CLIENT_ATTRIBUTE',
  'SHARED_ATTRIBUTE',
  'SERVER_ATTRIBUTE',
  'TIME_SERIES',
  'ENTITY_FIELD',
  'ALARM_FIELD',
] as const;
export type EntityKeyType = (typeof ENTITY_KEY_TYPES)[number];

export const ENTITY_QUERY_LIMITS = {
  keys: 100,
  keyFilters: 50,
  entityList: 10_000,
  /** entities a filter may select before paging; a larger selection is refused with a 400 */
  selected: 100_000,
  /** entities find/keys looks at (ThingsBoard caps the page at 100) */
  keysPageSize: 100,
} as const;

const Str = Type.String({ maxLength: 1024 });
const TypeName = Type.String({ minLength: 1, maxLength: 32 });

export const EntityKey = Type.Object({
  type: StringEnum(ENTITY_KEY_TYPES),
  key: Type.String({ minLength: 1, maxLength: 255 }),
});
export type EntityKey = Static<typeof EntityKey>;

const AliasEntityId = Type.Object({ entityType: TypeName, id: Type.String({ format: 'uuid' }) });

export const EntityFilter = Type.Object(
  {
    type: StringEnum(ENTITY_FILTER_TYPES, {
      description: 'apiUsageState, the search query filters and entityViewType are not served',
    }),
    singleEntity: Type.Optional(AliasEntityId),
    entityType: Type.Optional(TypeName),
    entityList: Type.Optional(
      Type.Array(Type.String({ format: 'uuid' }), { maxItems: ENTITY_QUERY_LIMITS.entityList }),
    ),
    entityNameFilter: Type.Optional(Nullable(Str)),
    deviceType: Type.Optional(Nullable(Str)),
    deviceTypes: Type.Optional(Nullable(Type.Array(Str, { maxItems: 100 }))),
    deviceNameFilter: Type.Optional(Nullable(Str)),
    assetType: Type.Optional(Nullable(Str)),
    assetTypes: Type.Optional(Nullable(Type.Array(Str, { maxItems: 100 }))),
    assetNameFilter: Type.Optional(Nullable(Str)),
    edgeType: Type.Optional(Nullable(Str)),
    edgeTypes: Type.Optional(Nullable(Type.Array(Str, { maxItems: 100 }))),
    edgeNameFilter: Type.Optional(Nullable(Str)),
    rootEntity: Type.Optional(AliasEntityId),
    direction: Type.Optional(StringEnum(SEARCH_DIRECTIONS)),
    relationTypeGroup: Type.Optional(Nullable(RelationTypeGroup)),
    filters: Type.Optional(Nullable(Type.Array(RelationEntityTypeFilter, { maxItems: 100 }))),
    maxLevel: Type.Optional(Type.Integer()),
    fetchLastLevelOnly: Type.Optional(Type.Boolean()),
    negate: Type.Optional(Type.Boolean()),
  },
  {
    description:
      'singleEntity {singleEntity}, entityList {entityType, entityList}, entityName {entityType, entityNameFilter (prefix)}, entityType {entityType}, deviceType / assetType / edgeType {deviceTypes | deviceType, deviceNameFilter}, relationsQuery {rootEntity, direction, filters, maxLevel, fetchLastLevelOnly}',
  },
);
export type EntityFilter = Static<typeof EntityFilter>;

export const KeyFilter = Type.Object({
  key: EntityKey,
  valueType: Type.Optional(StringEnum(['STRING', 'NUMERIC', 'BOOLEAN', 'DATE_TIME'] as const)),
  predicate: Type.Unknown({
    description:
      '{type: STRING|NUMERIC|BOOLEAN, operation, value: {defaultValue}, ignoreCase} or {type: COMPLEX, operation: AND|OR, predicates: [...]}',
  }),
});
export type KeyFilter = Static<typeof KeyFilter>;

const pageLinkProperties = {
  pageSize: PageSize(),
  page: PageNumber(),
  textSearch: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  sortOrder: Type.Optional(
    Nullable(Type.Object({ key: EntityKey, direction: Type.Optional(StringEnum(['ASC', 'DESC'] as const)) })),
  ),
  dynamic: Type.Optional(Type.Boolean()),
};

const keyLists = {
  entityFields: Type.Optional(Nullable(Type.Array(EntityKey, { maxItems: ENTITY_QUERY_LIMITS.keys }))),
  latestValues: Type.Optional(Nullable(Type.Array(EntityKey, { maxItems: ENTITY_QUERY_LIMITS.keys }))),
  keyFilters: Type.Optional(Nullable(Type.Array(KeyFilter, { maxItems: ENTITY_QUERY_LIMITS.keyFilters }))),
  keyFiltersOperation: Type.Optional(Nullable(StringEnum(['AND', 'OR'] as const))),
};

export const EntityCountQuery = Type.Object({
  entityFilter: EntityFilter,
  keyFilters: keyLists.keyFilters,
  keyFiltersOperation: keyLists.keyFiltersOperation,
});
export type EntityCountQuery = Static<typeof EntityCountQuery>;

export const EntityDataQuery = Type.Object({
  entityFilter: EntityFilter,
  pageLink: Type.Object(pageLinkProperties),
  ...keyLists,
});
export type EntityDataQuery = Static<typeof EntityDataQuery>;

const alarmSelection = {
  startTs: Type.Optional(EpochMs()),
  endTs: Type.Optional(EpochMs()),
  timeWindow: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_EPOCH_MS, description: 'ms before now; used when startTs is 0' }),
  ),
  typeList: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 }))),
  statusList: Type.Optional(Nullable(Type.Array(AlarmSearchStatus, { maxItems: 5 }))),
  severityList: Type.Optional(Nullable(Type.Array(AlarmSeverity, { maxItems: 5 }))),
  searchPropagatedAlarms: Type.Optional(Type.Boolean()),
  assigneeId: Type.Optional(
    Nullable(
      Type.Object({ entityType: Type.Optional(Type.Literal('USER')), id: Type.String({ format: 'uuid' }) }),
    ),
  ),
};

export const AlarmDataQuery = Type.Object({
  entityFilter: Type.Optional(Nullable(EntityFilter)),
  pageLink: Type.Object({ ...pageLinkProperties, ...alarmSelection }),
  alarmFields: Type.Optional(Nullable(Type.Array(EntityKey, { maxItems: ENTITY_QUERY_LIMITS.keys }))),
  ...keyLists,
});
export type AlarmDataQuery = Static<typeof AlarmDataQuery>;

export const AlarmCountQuery = Type.Object({
  entityFilter: Type.Optional(Nullable(EntityFilter)),
  keyFilters: keyLists.keyFilters,
  keyFiltersOperation: keyLists.keyFiltersOperation,
  ...alarmSelection,
});
export type AlarmCountQuery = Static<typeof AlarmCountQuery>;

export const TsValue = Type.Object({ ts: Type.Integer(), value: Type.String() });
export type TsValue = Static<typeof TsValue>;
const Latest = Type.Record(Type.String(), Type.Record(Type.String(), TsValue), {
  description: 'key type (ENTITY_FIELD, TIME_SERIES, ATTRIBUTE, ...) -> key -> {ts, value as text}',
});

export const EntityData = Type.Object({
  entityId: AnyEntityId,
  latest: Latest,
  timeseries: Type.Record(Type.String(), Type.Array(TsValue)),
});
export type EntityData = Static<typeof EntityData>;

export const AlarmData = Type.Object({
  ...AlarmInfo.properties,
  entityId: AnyEntityId,
  latest: Latest,
});
export type AlarmData = Static<typeof AlarmData>;

export const AvailableEntityKeys = Type.Object({
  entityTypes: Type.Array(Type.String()),
  timeseries: Type.Array(Type.String()),
  attribute: Type.Array(Type.String()),
});
export type AvailableEntityKeys = Static<typeof AvailableEntityKeys>;

export const FindKeysQuery = Type.Object({
  timeseries: Type.Boolean(),
  attributes: Type.Boolean(),
  scope: Type.Optional(StringEnum(['SERVER_SCOPE', 'SHARED_SCOPE', 'CLIENT_SCOPE'] as const)),
});
