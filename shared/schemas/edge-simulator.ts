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
  /** a cut-off lasts at most this long */
  cutOffMs: 3_600_000,
  /** a cut-off check judges at most this many events (the rest are counted as unchecked) */
  checkWindow: 1_000_000,
  /** event numbers listed per finding (the count covers them all) */
  listedIds: 100,
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
  [Type.Literal('running'), Type.Literal('paused'), Type.Literal('cutOff'), Type.Literal('error')],
  {
    description:
      'running: pulling and acknowledging; paused: not pulling (the queue grows); cutOff: cut off until cutOff.untilTime, then it reconnects by itself; error: stopped by a refusal (see lastError)',
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
  edgeSeq: Type.Integer({ description: "the edge's own event number" }),
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

const Share = (what: string) =>
  Type.Number({
    minimum: 0,
    maximum: 1,
    description: `share of received events ${what} (0 to 1; default 0)`,
  });

/** Test hooks on the simulated edge's receiving side, so a cut-off check has something to find. */
export const EdgeReceiveFaults = Type.Object(
  {
    drop: Type.Optional(Share('the edge loses after acknowledging them (gaps)')),
    duplicate: Type.Optional(Share('the edge handles twice')),
    reorder: Type.Optional(Share('swapped with the next event of their batch')),
    seed: Type.Optional(Type.Integer({ description: 'the same seed draws the same events (default 1)' })),
  },
  { additionalProperties: false },
);
export type EdgeReceiveFaults = Static<typeof EdgeReceiveFaults>;

export const EdgeSeqList = Type.Object({
  count: Type.Integer(),
  edgeSeqs: Type.Array(Type.Integer(), {
    maxItems: EDGE_SIMULATOR_LIMITS.listedIds,
    description: `the first ${EDGE_SIMULATOR_LIMITS.listedIds} event numbers (edgeSeq), ascending`,
  }),
});
export type EdgeSeqList = Static<typeof EdgeSeqList>;

export const EdgeDeliveryVerdict = Type.Object({
  clean: Type.Boolean({ description: 'every event arrived exactly once and in order' }),
  fromEdgeSeq: Type.Integer({ description: 'first event number expected' }),
  toEdgeSeq: Type.Integer({ description: 'last event number expected (the last one queued at reconnect)' }),
  expected: Type.Integer(),
  received: Type.Integer({ description: 'arrivals of expected events, duplicates included' }),
  missing: EdgeSeqList,
  duplicated: EdgeSeqList,
  outOfOrder: EdgeSeqList,
  unchecked: Type.Integer({
    description: `events past the first ${EDGE_SIMULATOR_LIMITS.checkWindow}, not judged`,
  }),
});
export type EdgeDeliveryVerdict = Static<typeof EdgeDeliveryVerdict>;

export const EdgeCutOff = Type.Object({
  phase: Type.Union([Type.Literal('cutOff'), Type.Literal('draining'), Type.Literal('done')], {
    description:
      'cutOff: not connected; draining: reconnected, receiving what was queued; done: verdict given',
  }),
  startedTime: Type.Integer(),
  untilTime: Type.Integer({ description: 'when the edge reconnects by itself' }),
  reconnectedTime: Nullable(Type.Integer()),
  doneTime: Nullable(Type.Integer()),
  afterEdgeSeq: Type.Integer({ description: 'the last event number received before the cut-off' }),
  toEdgeSeq: Nullable(Type.Integer({ description: 'the last event number queued at reconnect' })),
  receivedSinceReconnect: Type.Integer(),
  injected: Type.Object(
    { dropped: EdgeSeqList, duplicated: EdgeSeqList, reordered: EdgeSeqList },
    { description: 'receiving-side faults injected on the checked events (what the verdict should name)' },
  ),
  verdict: Nullable(EdgeDeliveryVerdict),
});
export type EdgeCutOff = Static<typeof EdgeCutOff>;

export const CutOffEdgeRequest = Type.Object(
  {
    durationMs: Type.Integer({
      minimum: 100,
      maximum: EDGE_SIMULATOR_LIMITS.cutOffMs,
      description: 'how long the edge stays cut off; resume reconnects it earlier',
    }),
  },
  { additionalProperties: false },
);
export type CutOffEdgeRequest = Static<typeof CutOffEdgeRequest>;

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
  faults: EdgeReceiveFaults,
  cutOff: Nullable(EdgeCutOff),
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
