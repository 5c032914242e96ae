import { Type, type Static } from 'typebox';
import { StringEnum } from './common.ts';

export const ClientConnectRequest = Type.Object({
  /** connect as this device or gateway: its credentials are filled in */
  deviceId: Type.Optional(Type.String({ maxLength: 64 })),
  /** default: Sandboard's own broker */
  url: Type.Optional(Type.String({ maxLength: 512, pattern: '^(mqtt|mqtts|ws|wss)://' })),
  clientId: Type.Optional(Type.String({ maxLength: 256 })),
  username: Type.Optional(Type.String({ maxLength: 512 })),
  password: Type.Optional(Type.String({ maxLength: 512 })),
  protocolVersion: Type.Optional(Type.Union([Type.Literal(4), Type.Literal(5)])),
  label: Type.Optional(Type.String({ maxLength: 200 })),
});
export type ClientConnectRequest = Static<typeof ClientConnectRequest>;

export const ClientConnection = Type.Object({
  id: Type.String(),
  label: Type.String(),
  url: Type.String(),
  clientId: Type.String(),
  protocolVersion: Type.Integer(),
  deviceId: Type.Union([Type.String(), Type.Null()]),
  deviceType: Type.Union([Type.String(), Type.Null()]),
  state: StringEnum(['connecting', 'connected', 'closed'] as const),
  error: Type.Union([Type.String(), Type.Null()]),
  subscriptions: Type.Array(Type.Object({ topic: Type.String(), qos: Type.Integer() })),
});
export type ClientConnection = Static<typeof ClientConnection>;

export const ClientPublishRequest = Type.Object({
  topic: Type.String({ minLength: 1, maxLength: 1024 }),
  /** a payload template: ${random(a,b)}, ${counter}, ${timestamp}, ${uuid}, ${csv(column)} */
  payload: Type.String({ maxLength: 65_536 }),
  qos: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2)])),
  retain: Type.Optional(Type.Boolean()),
  /** MQTT 5 publish properties */
  properties: Type.Optional(
    Type.Object({
      contentType: Type.Optional(Type.String({ maxLength: 256 })),
      responseTopic: Type.Optional(Type.String({ maxLength: 1024 })),
      messageExpiryInterval: Type.Optional(Type.Integer({ minimum: 0 })),
      payloadFormatIndicator: Type.Optional(Type.Boolean()),
      userProperties: Type.Optional(Type.Record(Type.String(), Type.String())),
    }),
  ),
  /** CSV text for ${csv(column)} (first row: column names) */
  csv: Type.Optional(Type.String({ maxLength: 1_048_576 })),
  /** repeat every this many ms until stopped (or `times` publishes) */
  everyMs: Type.Optional(Type.Integer({ minimum: 10, maximum: 3_600_000 })),
  times: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
});
export type ClientPublishRequest = Static<typeof ClientPublishRequest>;

export const ClientSentMessage = Type.Object({
  ts: Type.Integer(),
  topic: Type.String(),
  payload: Type.String(),
  qos: Type.Integer(),
  retain: Type.Boolean(),
  /** the PUBACK reason code (0 for QoS 0 once written); null while waiting; -1 when the connection closed */
  reasonCode: Type.Union([Type.Integer(), Type.Null()]),
  reason: Type.Optional(Type.String()),
});
export type ClientSentMessage = Static<typeof ClientSentMessage>;

export const ClientReceivedMessage = Type.Object({
  ts: Type.Integer(),
  topic: Type.String(),
  payload: Type.String(),
  qos: Type.Integer(),
  retain: Type.Boolean(),
});
export type ClientReceivedMessage = Static<typeof ClientReceivedMessage>;

export const RpcRule = Type.Object({
  method: Type.String({ minLength: 1, maxLength: 256 }),
  /** the JSON answered */
  response: Type.Unknown(),
});
export type RpcRule = Static<typeof RpcRule>;

export const ClientState = Type.Object({
  connection: ClientConnection,
  sent: Type.Array(ClientSentMessage),
  received: Type.Array(ClientReceivedMessage),
  repeats: Type.Array(
    Type.Object({ id: Type.String(), topic: Type.String(), everyMs: Type.Integer(), sent: Type.Integer() }),
  ),
  rpcRules: Type.Array(RpcRule),
});
export type ClientState = Static<typeof ClientState>;
