/**
 * ThingsBoard's WebSocket API (/api/ws, and the deprecated /api/ws/plugins/telemetry): the commands a
 * client sends and the updates it gets, in ThingsBoard 4.x's shapes (WsCommandsWrapper, WsCmdType,
 * TelemetrySubscriptionUpdate, CmdUpdate). The dashboard page and any script use these; docs in
 * docs/websocket-api.md.
 */
import { Type, type Static } from 'typebox';
import { AlarmSeverity } from './alarms.ts';
import { AnyEntityId, Nullable, StringEnum } from './common.ts';
import {
  AlarmCountQuery,
  AlarmDataQuery,
  EntityCountQuery,
  EntityDataQuery,
  EntityKey,
  type AlarmData,
  type EntityData,
  type TsValue,
} from './entity-query.ts';

export const TB_WS_PATH = '/api/ws';
export const TB_WS_TELEMETRY_PATH = '/api/ws/plugins/telemetry';

/** ThingsBoard's `server.ws` settings, at their defaults (thingsboard.yml). */
export const TB_WS_LIMITS = {
  /** updates waiting to be written to one session; one more closes it (1008) */
  maxQueueMessagesPerSession: 1000,
  /** entities one ENTITY_DATA subscription follows (its page size is cut to this) */
  maxEntitiesPerDataSubscription: 10_000,
  maxEntitiesPerAlarmSubscription: 10_000,
  /** bytes of one incoming text message; a larger one closes the session (1009) */
  maxTextMessageBytes: 32_768,
  /** a session with no authCmd within this is closed (1008) */
  authTimeoutMs: 10_000,
  /** a ping every third of it; no pong for all of it closes the session (4500) */
  pingTimeoutMs: 30_000,
  /** Sandboard's bound (ThingsBoard's is a tenant profile setting): subscriptions of one session */
  maxSubscriptionsPerSession: 1000,
  /** Sandboard's bound: commands in one message */
  maxCmdsPerMessage: 100,
  /** the page size of v1 commands without a limit (DefaultWebSocketService.DEFAULT_LIMIT) */
  defaultLimit: 100,
} as const;

/** ThingsBoard's SubscriptionErrorCode. */
export const SubscriptionErrorCode = {
  NO_ERROR: 0,
  INTERNAL_ERROR: 1,
  BAD_REQUEST: 2,
  UNAUTHORIZED: 3,
} as const;

/** Close codes ThingsBoard's TbWebSocketHandler uses. */
export const TbWsCloseCode = {
  /** auth timeout, missing authCmd, too many queued updates */
  POLICY_VIOLATION: 1008,
  /** a bad token in authCmd, a message that does not parse before authentication */
  BAD_DATA: 1007,
  /** a message larger than max_text_message_buffer_size */
  TOO_BIG_TO_PROCESS: 1009,
  /** a bad or expired ?token= */
  SERVER_ERROR: 1011,
  /** no pong within the ping timeout */
  SESSION_NOT_RELIABLE: 4500,
  GOING_AWAY: 1001,
} as const;

export const WS_CMD_TYPES = [
  'ATTRIBUTES',
  'TIMESERIES',
  'TIMESERIES_HISTORY',
  'ENTITY_DATA',
  'ENTITY_COUNT',
  'ALARM_DATA',
  'ALARM_COUNT',
  'ALARM_STATUS',
  'ENTITY_DATA_UNSUBSCRIBE',
  'ENTITY_COUNT_UNSUBSCRIBE',
  'ALARM_DATA_UNSUBSCRIBE',
  'ALARM_COUNT_UNSUBSCRIBE',
  'ALARM_STATUS_UNSUBSCRIBE',
] as const;
export type WsCmdType = (typeof WS_CMD_TYPES)[number];

export const CMD_UPDATE_TYPES = [
  'ENTITY_DATA',
  'ALARM_DATA',
  'ALARM_COUNT_DATA',
  'ALARM_STATUS',
  'COUNT_DATA',
] as const;
export type CmdUpdateType = (typeof CMD_UPDATE_TYPES)[number];

const CmdId = Type.Integer({ description: 'the client numbers its commands; updates carry it back' });
const Ts = Type.Number();
const TbAggregation = StringEnum(['NONE', 'AVG', 'MIN', 'MAX', 'SUM', 'COUNT'] as const);
const Keys = Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 100 });

export const AuthCmd = Type.Object({
  cmdId: Type.Optional(Type.Integer()),
  token: Type.Optional(Nullable(Type.String({ maxLength: 8192 }))),
  apiKey: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
});
export type AuthCmd = Static<typeof AuthCmd>;

/** v1 (AttributesSubscriptionCmd, TimeseriesSubscriptionCmd, GetHistoryCmd): one entity, keys comma-separated. */
const v1Entity = {
  cmdId: CmdId,
  entityType: Type.Optional(Nullable(Type.String({ maxLength: 32 }))),
  entityId: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  keys: Type.Optional(Nullable(Type.String({ maxLength: 16_384 }))),
};
const v1Target = { ...v1Entity, unsubscribe: Type.Optional(Type.Boolean()) };
/** a v1 time series read: a range, its aggregation and the points it returns at most */
const v1Range = {
  startTs: Type.Optional(Ts),
  interval: Type.Optional(Ts),
  limit: Type.Optional(Type.Integer()),
  agg: Type.Optional(Nullable(TbAggregation)),
};
export const AttributesSubscriptionCmd = Type.Object({
  ...v1Target,
  scope: Type.Optional(Nullable(StringEnum(['CLIENT_SCOPE', 'SERVER_SCOPE', 'SHARED_SCOPE'] as const))),
});
export type AttributesSubscriptionCmd = Static<typeof AttributesSubscriptionCmd>;
export const TimeseriesSubscriptionCmd = Type.Object({
  ...v1Target,
  ...v1Range,
  timeWindow: Type.Optional(Ts),
});
export type TimeseriesSubscriptionCmd = Static<typeof TimeseriesSubscriptionCmd>;
export const GetHistoryCmd = Type.Object({ ...v1Entity, ...v1Range, endTs: Type.Optional(Ts) });
export type GetHistoryCmd = Static<typeof GetHistoryCmd>;

const tsCmdProperties = {
  keys: Keys,
  interval: Type.Optional(Ts),
  intervalType: Type.Optional(Nullable(Type.String({ maxLength: 16 }))),
  timeZoneId: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  limit: Type.Optional(Type.Integer()),
  agg: Type.Optional(Nullable(TbAggregation)),
  fetchLatestPreviousPoint: Type.Optional(Type.Boolean()),
};
export const LatestValueCmd = Type.Object({ keys: Type.Array(EntityKey, { maxItems: 100 }) });
export const TimeSeriesCmd = Type.Object({ ...tsCmdProperties, startTs: Ts, timeWindow: Ts });
export const EntityHistoryCmd = Type.Object({ ...tsCmdProperties, startTs: Ts, endTs: Ts });
export const AggKey = Type.Object({
  id: Type.Integer(),
  key: Type.String({ minLength: 1, maxLength: 255 }),
  agg: TbAggregation,
  previousStartTs: Type.Optional(Nullable(Ts)),
  previousEndTs: Type.Optional(Nullable(Ts)),
  previousValueOnly: Type.Optional(Nullable(Type.Boolean())),
});
export const AggHistoryCmd = Type.Object({
  keys: Type.Array(AggKey, { maxItems: 100 }),
  startTs: Ts,
  endTs: Ts,
});
export const AggTimeSeriesCmd = Type.Object({
  keys: Type.Array(AggKey, { maxItems: 100 }),
  startTs: Ts,
  timeWindow: Ts,
});

export const EntityDataCmd = Type.Object({
  cmdId: CmdId,
  query: Type.Optional(Nullable(EntityDataQuery)),
  latestCmd: Type.Optional(Nullable(LatestValueCmd)),
  tsCmd: Type.Optional(Nullable(TimeSeriesCmd)),
  historyCmd: Type.Optional(Nullable(EntityHistoryCmd)),
  aggHistoryCmd: Type.Optional(Nullable(AggHistoryCmd)),
  aggTsCmd: Type.Optional(Nullable(AggTimeSeriesCmd)),
});
export type EntityDataCmd = Static<typeof EntityDataCmd>;
export const EntityCountCmd = Type.Object({ cmdId: CmdId, query: Type.Optional(Nullable(EntityCountQuery)) });
export type EntityCountCmd = Static<typeof EntityCountCmd>;
export const AlarmDataCmd = Type.Object({ cmdId: CmdId, query: Type.Optional(Nullable(AlarmDataQuery)) });
export type AlarmDataCmd = Static<typeof AlarmDataCmd>;
export const AlarmCountCmd = Type.Object({ cmdId: CmdId, query: Type.Optional(Nullable(AlarmCountQuery)) });
export type AlarmCountCmd = Static<typeof AlarmCountCmd>;
export const AlarmStatusCmd = Type.Object({
  cmdId: CmdId,
  originatorId: Type.Optional(Nullable(AnyEntityId)),
  typeList: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 }))),
  severityList: Type.Optional(Nullable(Type.Array(AlarmSeverity, { maxItems: 5 }))),
});
export type AlarmStatusCmd = Static<typeof AlarmStatusCmd>;
export const UnsubscribeCmd = Type.Object({ cmdId: CmdId });

/** Each `type` of WsCommandsWrapper.cmds and the shape its command has. */
export const WS_CMD_SCHEMAS = {
  ATTRIBUTES: AttributesSubscriptionCmd,
  TIMESERIES: TimeseriesSubscriptionCmd,
  TIMESERIES_HISTORY: GetHistoryCmd,
  ENTITY_DATA: EntityDataCmd,
  ENTITY_COUNT: EntityCountCmd,
  ALARM_DATA: AlarmDataCmd,
  ALARM_COUNT: AlarmCountCmd,
  ALARM_STATUS: AlarmStatusCmd,
  ENTITY_DATA_UNSUBSCRIBE: UnsubscribeCmd,
  ENTITY_COUNT_UNSUBSCRIBE: UnsubscribeCmd,
  ALARM_DATA_UNSUBSCRIBE: UnsubscribeCmd,
  ALARM_COUNT_UNSUBSCRIBE: UnsubscribeCmd,
  ALARM_STATUS_UNSUBSCRIBE: UnsubscribeCmd,
} as const satisfies Record<WsCmdType, unknown>;

/** A command of the cmds array: its type and the fields of that type. */
export type WsCmd = { [T in WsCmdType]: { type: T } & Static<(typeof WS_CMD_SCHEMAS)[T]> }[WsCmdType];

/** What a client sends on /api/ws: authCmd first (or ?token= in the URL), then commands. */
export interface WsCommandsWrapper {
  authCmd?: AuthCmd | null;
  cmds?: WsCmd[] | null;
}

/** The legacy /api/ws/plugins/telemetry message (TelemetryCmdsWrapper): one list per command type. */
export const LEGACY_CMD_LISTS = {
  attrSubCmds: 'ATTRIBUTES',
  tsSubCmds: 'TIMESERIES',
  historyCmds: 'TIMESERIES_HISTORY',
  entityDataCmds: 'ENTITY_DATA',
  entityDataUnsubscribeCmds: 'ENTITY_DATA_UNSUBSCRIBE',
  alarmDataCmds: 'ALARM_DATA',
  alarmDataUnsubscribeCmds: 'ALARM_DATA_UNSUBSCRIBE',
  entityCountCmds: 'ENTITY_COUNT',
  entityCountUnsubscribeCmds: 'ENTITY_COUNT_UNSUBSCRIBE',
  alarmCountCmds: 'ALARM_COUNT',
  alarmCountUnsubscribeCmds: 'ALARM_COUNT_UNSUBSCRIBE',
} as const satisfies Record<string, WsCmdType>;
export type TelemetryCmdsWrapper = {
  [L in keyof typeof LEGACY_CMD_LISTS]?: Omit<
    Extract<WsCmd, { type: (typeof LEGACY_CMD_LISTS)[L] }>,
    'type'
  >[];
};

// --- updates -------------------------------------------------------------------------------------------

/**
 * The answer to ATTRIBUTES, TIMESERIES and TIMESERIES_HISTORY (and every error of a command as a whole):
 * data is key -> [[ts, value as text], ...]; latestValues is key -> ts of its last entry.
 */
export interface TelemetrySubscriptionUpdate {
  subscriptionId: number;
  errorCode: number;
  errorMsg: string | null;
  data: Record<string, [number, string][]> | null;
  latestValues: Record<string, number>;
}

interface CmdUpdateBase {
  cmdId: number;
  errorCode: number;
  errorMsg: string | null;
}
export interface PageDataOf<T> {
  data: T[];
  totalPages: number;
  totalElements: number;
  hasNext: boolean;
}
/** An entity of an ENTITY_DATA update; aggLatest holds the aggHistoryCmd / aggTsCmd values by AggKey id. */
export type WsEntityData = Omit<EntityData, 'latest' | 'timeseries'> & {
  latest: EntityData['latest'] | null;
  timeseries: Record<string, TsValue[]> | null;
  aggLatest?: Record<number, { current: TsValue; previous: TsValue }>;
};
/** data: the first answer (a whole page); update: entities whose values changed since. */
export interface EntityDataUpdate extends CmdUpdateBase {
  cmdUpdateType: 'ENTITY_DATA';
  data: PageDataOf<WsEntityData> | null;
  update: WsEntityData[] | null;
  allowedEntities: number;
}
export interface AlarmDataUpdate extends CmdUpdateBase {
  cmdUpdateType: 'ALARM_DATA';
  data: PageDataOf<AlarmData> | null;
  update: AlarmData[] | null;
  allowedEntities: number;
  totalEntities: number;
}
export interface EntityCountUpdate extends CmdUpdateBase {
  cmdUpdateType: 'COUNT_DATA';
  count: number;
}
export interface AlarmCountUpdate extends CmdUpdateBase {
  cmdUpdateType: 'ALARM_COUNT_DATA';
  count: number;
}
export interface AlarmStatusUpdate extends CmdUpdateBase {
  cmdUpdateType: 'ALARM_STATUS';
  active: boolean;
}
export type CmdUpdate =
  EntityDataUpdate | AlarmDataUpdate | EntityCountUpdate | AlarmCountUpdate | AlarmStatusUpdate;
/** Every message the server sends on /api/ws. */
export type WsUpdate = TelemetrySubscriptionUpdate | CmdUpdate;
