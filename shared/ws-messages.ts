/**
 * The UI's live WebSocket at /api/sandboard/ws (/api/ws is ThingsBoard's, see tb-ws.ts): one
 * definition of every message for the server and the UI.
 *
 * The client authenticates with its JWT, either as the `token` query parameter or as the first message
 * ({type:'auth', token}); it sends {type:'auth'} again after each refresh. Until authenticated it gets
 * nothing; a wrong or missing token closes the socket with 4401. Cookies are never read.
 */
import { Type, type Static } from 'typebox';
import { ALARM_CHANGE_KINDS, AlarmInfo } from './schemas/alarms.ts';
import { StringEnum } from './schemas/common.ts';
import { InspectedMessage, MessageFilter } from './schemas/mqtt-inspector.ts';
import { PlatformStats } from './schemas/sandboard.ts';
import { AttributeScope } from './schemas/telemetry.ts';

export { WS_AUTH_TIMEOUT_MS, WS_MAX_SUBSCRIPTIONS, WS_PATH, WsCloseCode } from './ws-protocol.ts';

const DeviceId = Type.String({ minLength: 1, maxLength: 64 });

export const WsAuthMessage = Type.Object({
  type: Type.Literal('auth'),
  token: Type.String({ minLength: 1, maxLength: 8192, description: 'JWT access token' }),
});
export const WsSubscribeMessage = Type.Object({ type: Type.Literal('subscribe'), deviceId: DeviceId });
export const WsUnsubscribeMessage = Type.Object({ type: Type.Literal('unsubscribe'), deviceId: DeviceId });

/** follow the MQTT inspector's traffic (the user's devices only), filtered; sent again to change the filter */
export const WsMqttWatchMessage = Type.Object({ type: Type.Literal('mqttWatch'), filter: MessageFilter });
export const WsMqttUnwatchMessage = Type.Object({ type: Type.Literal('mqttUnwatch') });

export const WsClientMessage = Type.Union([
  WsAuthMessage,
  WsSubscribeMessage,
  WsUnsubscribeMessage,
  WsMqttWatchMessage,
  WsMqttUnwatchMessage,
]);
export type WsClientMessage = Static<typeof WsClientMessage>;

const TelemetryEntries = Type.Array(
  Type.Object({ ts: Type.Integer(), values: Type.Record(Type.String(), Type.Unknown()) }),
);

export const WsServerMessage = Type.Union([
  /** authenticated (again): expiresAt is when the token stops being accepted */
  Type.Object({
    type: Type.Literal('ready'),
    userId: Type.String(),
    authority: Type.String(),
    expiresAt: Type.Integer(),
  }),
  /** the counters of the overview, pushed when they change (at most once a second) */
  Type.Object({ type: Type.Literal('stats'), stats: PlatformStats }),
  /** time series of a subscribed device, as stored (values keep their JSON types) */
  Type.Object({ type: Type.Literal('telemetry'), deviceId: Type.String(), entries: TelemetryEntries }),
  Type.Object({
    type: Type.Literal('attributes'),
    deviceId: Type.String(),
    scope: AttributeScope,
    values: Type.Record(Type.String(), Type.Unknown()),
    ts: Type.Integer(),
  }),
  Type.Object({
    type: Type.Literal('attributesDeleted'),
    deviceId: Type.String(),
    scope: AttributeScope,
    keys: Type.Array(Type.String()),
  }),
  /** a device the user may see was created, changed or deleted */
  Type.Object({
    type: Type.Literal('device'),
    deviceId: Type.String(),
    change: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted')]),
  }),
  /** an alarm the user may see changed (every connection gets these, no subscription needed) */
  Type.Object({ type: Type.Literal('alarm'), kind: StringEnum(ALARM_CHANGE_KINDS), alarm: AlarmInfo }),
  Type.Object({ type: Type.Literal('subscribed'), deviceId: Type.String() }),
  /**
   * MQTT traffic for a connection that sent mqttWatch, oldest first, at most a few times a second;
   * skipped: matching messages left out to keep up (they are in GET /api/sandboard/mqtt/messages)
   */
  Type.Object({
    type: Type.Literal('mqttMessages'),
    messages: Type.Array(InspectedMessage),
    skipped: Type.Integer(),
  }),
  /** messages were dropped (the client was too slow): refetch what is shown */
  Type.Object({ type: Type.Literal('resync') }),
  Type.Object({ type: Type.Literal('error'), code: Type.Integer(), message: Type.String() }),
]);
export type WsServerMessage = Static<typeof WsServerMessage>;
export type WsServerMessageOf<T extends WsServerMessage['type']> = Extract<WsServerMessage, { type: T }>;
