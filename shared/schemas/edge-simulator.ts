/**
 * Edge simulators: simulated edges that pull their queue from the platform's HTTP edge API and acknowledge
 * it, at a chosen rate. The REST shapes of /api/sandboard/edgeSimulators. Pure TypeBox: the server and the
 * UI share it.
 */
import { Type, type Static } from 'typebox';
import { Uuid } from './common.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const EDGE_SIMULATOR_DEFAULTS = {
  ratePerSec: 100,
  batchSize: 100,
  waitMs: 1000,
  logSize: 100,
} as const;

export const EDGE_SIMULATOR_LIMITS = {
  ratePerSec: 1_000_000,
  batchSize: 10_000,
  waitMs: 10_000,
  logSize: 1000,
  simulators: 100,
} as const;

const RatePerSec = Type.Number({
  minimum: 0,
  maximum: EDGE_SIMULATOR_LIMITS.ratePerSec,
  description: `events per second at most, on average; 0 = as fast as the platform answers (default ${EDGE_SIMULATOR_DEFAULTS.ratePerSec})`,
});
const BatchSize = Type.Integer({
  minimum: 1,
  maximum: EDGE_SIMULATOR_LIMITS.batchSize,
  description: `events per pull at most (default ${EDGE_SIMULATOR_DEFAULTS.batchSize})`,
});

export const EdgeSimulatorState = Type.Union(
  [Type.Literal('running'), Type.Literal('paused'), Type.Literal('error')],
  {
    description:
      'running: pulling and acknowledging; paused: not pulling (the queue grows); error: stopped by a refusal (see lastError)',
  },
);
export type EdgeSimulatorState = Static<typeof EdgeSimulatorState>;

export const EdgeSimulatorCounters = Type.Object({
  pulled: Type.Integer({ description: 'events received, duplicates included' }),
  acknowledged: Type.Integer({ description: 'events the platform marked DELIVERED on our acknowledgements' }),
  duplicates: Type.Integer({ description: 'events received again (same uid) and dropped' }),
  lastSeqId: Nullable(Type.Integer({ description: 'highest seqId received' })),
  eventsPerSec: Type.Number({ description: 'events received per second, last 5 s' }),
  pulls: Type.Integer({ description: 'pull requests answered' }),
  errors: Type.Integer({ description: 'pull or acknowledgement requests that failed' }),
});
export type EdgeSimulatorCounters = Static<typeof EdgeSimulatorCounters>;

export const EdgeSimulatorEvent = Type.Object({
  seqId: Type.Integer(),
  uid: Type.String(),
  action: Type.String(),
  type: Type.String({ description: 'entity type of the event (DEVICE, EDGE, ...)' }),
  entityId: Type.String(),
  createdTime: Type.Integer(),
  receivedTime: Type.Integer(),
  duplicate: Type.Boolean({ description: 'true: its uid was seen before, the simulated edge dropped it' }),
  body: Type.Unknown(),
});
export type EdgeSimulatorEvent = Static<typeof EdgeSimulatorEvent>;

export const EdgeSimulatorSummary = Type.Object({
  id: Type.String(),
  edgeId: Uuid,
  edgeName: Type.String(),
  routingKey: Type.String(),
  state: EdgeSimulatorState,
  ratePerSec: Type.Number(),
  batchSize: Type.Integer(),
  waitMs: Type.Integer(),
  startedTime: Type.Integer(),
  lastError: Nullable(Type.String()),
  counters: EdgeSimulatorCounters,
});
export type EdgeSimulatorSummary = Static<typeof EdgeSimulatorSummary>;

export const EdgeSimulatorDetails = Type.Object({
  ...EdgeSimulatorSummary.properties,
  recentEvents: Type.Array(EdgeSimulatorEvent, { description: 'the last events received, newest first' }),
});
export type EdgeSimulatorDetails = Static<typeof EdgeSimulatorDetails>;

export const StartEdgeSimulatorRequest = Type.Object(
  {
    edgeId: Uuid,
    secret: Type.String({
      minLength: 1,
      maxLength: 255,
      description: "the edge's secret (shown once, when the edge is created; the platform keeps a hash)",
    }),
    ratePerSec: Type.Optional(RatePerSec),
    batchSize: Type.Optional(BatchSize),
    waitMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: EDGE_SIMULATOR_LIMITS.waitMs,
        description: `long poll of each pull (default ${EDGE_SIMULATOR_DEFAULTS.waitMs})`,
      }),
    ),
    logSize: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: EDGE_SIMULATOR_LIMITS.logSize,
        description: `events kept in the log of recent events (default ${EDGE_SIMULATOR_DEFAULTS.logSize})`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type StartEdgeSimulatorRequest = Static<typeof StartEdgeSimulatorRequest>;

export const SetEdgeSimulatorRateRequest = Type.Object(
  { ratePerSec: RatePerSec, batchSize: Type.Optional(BatchSize) },
  { additionalProperties: false },
);
export type SetEdgeSimulatorRateRequest = Static<typeof SetEdgeSimulatorRateRequest>;
