import { Type, type Static } from 'typebox';
import { StringEnum } from './common.ts';

const Direction = StringEnum(['in', 'out'] as const);

const DeviceRef = Type.Object({ id: Type.Union([Type.String(), Type.Null()]), name: Type.String() });

const SessionRateLimits = Type.Object({
  messages: Type.Union([Type.String(), Type.Null()]),
  telemetryMessages: Type.Union([Type.String(), Type.Null()]),
  telemetryDataPoints: Type.Union([Type.String(), Type.Null()]),
});

export const MqttSessionInfo = Type.Object({
  sessionId: Type.String(),
  clientId: Type.String(),
  device: DeviceRef,
  gateway: Type.Boolean(),
  /** the devices connected through this gateway session */
  devices: Type.Array(DeviceRef),
  protocolVersion: Type.Integer({ description: '4 = MQTT 3.1.1, 5 = MQTT 5' }),
  address: Type.String(),
  connectedSince: Type.Integer(),
  subscriptions: Type.Array(Type.Object({ topic: Type.String(), qos: Type.Integer() })),
  messagesIn: Type.Integer(),
  messagesOut: Type.Integer(),
  lastReasonCode: Type.Union([Type.Integer(), Type.Null()]),
  limits: Type.Object({
    maxPayloadSize: Type.Integer(),
    maxInflightMessages: Type.Integer(),
    rateLimits: SessionRateLimits,
    gatewayRateLimits: Type.Optional(SessionRateLimits),
  }),
});
export type MqttSessionInfo = Static<typeof MqttSessionInfo>;

export const InspectedPayload = Type.Object({
  size: Type.Integer({ description: 'bytes' }),
  /** json: `json` holds the parsed value; text: UTF-8 text; binary: only `hex` */
  format: StringEnum(['json', 'text', 'binary'] as const),
  text: Type.Optional(Type.String()),
  json: Type.Optional(Type.Unknown()),
  hex: Type.String({ description: 'the first bytes in hex' }),
});
export type InspectedPayload = Static<typeof InspectedPayload>;

export const InspectedMessage = Type.Object({
  seq: Type.Integer(),
  ts: Type.Integer(),
  direction: Direction,
  sessionId: Type.String(),
  clientId: Type.String(),
  device: DeviceRef,
  gateway: Type.Boolean(),
  /** devices named in a gateway message (the devices behind the gateway it is about) */
  devices: Type.Array(DeviceRef),
  protocolVersion: Type.Integer(),
  topic: Type.String(),
  qos: Type.Integer(),
  retain: Type.Boolean(),
  properties: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  payload: InspectedPayload,
  /** the platform's answer: 0 success, else the MQTT 5 reason code (v5 PUBACK; 3.1.1 clients were disconnected) */
  reasonCode: Type.Integer(),
  reason: Type.Optional(Type.String()),
  /** rule engine message ids (debug events and traces name them) */
  msgIds: Type.Array(Type.String()),
});
export type InspectedMessage = Static<typeof InspectedMessage>;

export const MessageFilter = Type.Object({
  deviceId: Type.Optional(Type.String({ maxLength: 64 })),
  topic: Type.Optional(
    Type.String({ maxLength: 1024, description: 'an MQTT filter: + one level, # the rest' }),
  ),
  direction: Type.Optional(Direction),
  reasonCode: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
  text: Type.Optional(Type.String({ maxLength: 1024, description: 'text the payload contains (any case)' })),
  afterSeq: Type.Optional(Type.Integer({ minimum: 0, description: 'only messages after this one' })),
});
export type MessageFilter = Static<typeof MessageFilter>;

export const MessagePage = Type.Object({
  messages: Type.Array(InspectedMessage),
  /** the newest seq recorded (for afterSeq) */
  lastSeq: Type.Integer(),
  hasMore: Type.Boolean(),
});

export const TopicStats = Type.Object({
  device: DeviceRef,
  topic: Type.String(),
  count: Type.Integer(),
  lastTs: Type.Integer(),
  /** messages per second over the last 10 s */
  rate: Type.Number(),
  lastPayload: InspectedPayload,
});
export type TopicStats = Static<typeof TopicStats>;

export const InspectorSettings = Type.Object({
  enabled: Type.Boolean({ description: 'record traffic (off: the tap costs nothing)' }),
  budgetBytes: Type.Integer({
    minimum: 65_536,
    maximum: 1_073_741_824,
    description: 'the ring buffer keeps the newest messages within this many bytes',
  }),
});
export type InspectorSettings = Static<typeof InspectorSettings>;

export const InspectorStatus = Type.Intersect([
  InspectorSettings,
  Type.Object({
    messages: Type.Integer(),
    bytes: Type.Integer(),
    recorded: Type.Integer(),
    evicted: Type.Integer(),
  }),
]);
export type InspectorStatus = Static<typeof InspectorStatus>;
