import { Type, type Static } from 'typebox';
import { Authority } from './auth.ts';

/** Where this platform listens, for examples and the settings page. */
export const PlatformInfo = Type.Object({
  version: Type.String(),
  http: Type.String({ description: 'REST API, UI and explorer base URL' }),
  mqtt: Type.String({ description: 'MQTT broker URL (mqtt://host:port)' }),
  analytics: Type.String({ description: 'Report API base URL' }),
  mqttBroker: Type.Boolean({
    description: 'true once the embedded MQTT broker accepts devices (until then the port is only reserved)',
  }),
  deviceHttpApi: Type.Boolean({
    description: 'true when the device HTTP API (POST /api/v1/{token}/telemetry) is served',
  }),
});
export type PlatformInfo = Static<typeof PlatformInfo>;

/** How long the platform's network thread was held up (event-loop delay) since start or the last reset. */
export const EventLoopDelay = Type.Object({
  p50Ms: Type.Number(),
  p99Ms: Type.Number(),
  maxMs: Type.Number({ description: 'the longest stall: nothing was answered meanwhile' }),
  samples: Type.Integer(),
  sinceMs: Type.Number({ description: 'the measured period, ms' }),
  gc: Type.Optional(
    Type.Object(
      {
        pauses: Type.Integer(),
        totalMs: Type.Number(),
        maxMs: Type.Number({ description: 'the longest pause' }),
        maxKind: Type.String({ description: 'its kind: minor (young generation), major, incremental, weak' }),
      },
      {
        description: "the network thread's garbage-collection pauses in the period: a stall this long is one",
      },
    ),
  ),
  memory: Type.Optional(
    Type.Object(
      {
        rssMB: Type.Number(),
        heapTotalMB: Type.Number({ description: "the network thread's V8 heap, reserved" }),
        heapUsedMB: Type.Number(),
        externalMB: Type.Number({
          description: "memory outside the V8 heap (sql.js's WebAssembly heap and buffers)",
        }),
        arrayBuffersMB: Type.Number(),
        storeMB: Type.Number({ description: "the store's database image (allocated pages)" }),
      },
      { description: 'what holds the memory now' },
    ),
  ),
});
export type EventLoopDelay = Static<typeof EventLoopDelay>;

export const EventLoopDelayQuery = Type.Object({
  reset: Type.Optional(Type.Boolean({ description: 'start a new measurement period after this answer' })),
});

/** Counters of the platform as the caller may see them (a customer user sees its own devices only). */
export const PlatformStats = Type.Object({
  devices: Type.Integer(),
  gateways: Type.Integer({ description: 'Devices with additionalInfo.gateway = true' }),
  connectedSessions: Type.Integer({ description: 'Connected MQTT sessions (0 until the broker lands)' }),
  mqttBroker: Type.Boolean(),
  messagesPerSecond: Type.Number({ description: 'Telemetry and attribute messages per second, last 5 s' }),
  datapoints: Type.Integer({ description: 'Stored time series datapoints' }),
  ts: Type.Integer({ description: 'When these counters were taken (epoch ms)' }),
  store: Type.Optional(
    Type.Object(
      {
        usedBytes: Type.Integer(),
        budgetBytes: Type.Integer({ description: 'SANDBOARD_STORE_BUDGET_MB; 0 = no budget' }),
        warning: Type.Boolean({ description: '80% of the budget or more is used' }),
        full: Type.Boolean({
          description: 'the budget is used up: telemetry, attributes and new devices are refused',
        }),
        prunedDatapoints: Type.Integer({
          description: 'oldest datapoints dropped by size-based retention since start',
        }),
        lastPrunedAt: Type.Union([Type.Integer(), Type.Null()]),
      },
      { description: "The store's size against its budget (tenant administrators only)" },
    ),
  ),
});
export type PlatformStats = Static<typeof PlatformStats>;

/** A demo account that still has its well-known password. */
export const DemoLogin = Type.Object({
  email: Type.String(),
  password: Type.String(),
  authority: Authority,
});
export type DemoLogin = Static<typeof DemoLogin>;
export const DemoLogins = Type.Array(DemoLogin);
export type DemoLogins = Static<typeof DemoLogins>;
