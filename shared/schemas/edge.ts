import { Type, type Static } from 'typebox';
import { EntityId } from './common.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const Edge = Type.Object({
  id: EntityId('EDGE'),
  createdTime: Type.Integer(),
  tenantId: EntityId('TENANT'),
  customerId: EntityId('CUSTOMER'),
  name: Type.String(),
  type: Type.String(),
  label: Nullable(Type.String()),
  routingKey: Type.String(),
  secret: Nullable(
    Type.String({
      description: 'Returned only when the edge is created or its secret is regenerated; stored as a hash',
    }),
  ),
  additionalInfo: Type.Record(Type.String(), Type.Unknown()),
});
export type Edge = Static<typeof Edge>;

export const SaveEdgeRequest = Type.Object({
  id: Type.Optional(Type.Object({ entityType: Type.Optional(Type.Literal('EDGE')), id: Type.String() })),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  label: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  routingKey: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  secret: Type.Optional(Nullable(Type.String({ minLength: 8, maxLength: 255 }))),
  additionalInfo: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
});
export type SaveEdgeRequest = Static<typeof SaveEdgeRequest>;

export const EdgeEventStatus = Type.Union([
  Type.Literal('PENDING'),
  Type.Literal('RETRIEVED'),
  Type.Literal('DELIVERED'),
]);
export type EdgeEventStatus = Static<typeof EdgeEventStatus>;

export const EdgeEvent = Type.Object({
  id: Type.Object({ id: Type.String() }),
  createdTime: Type.Integer(),
  seqId: Type.Integer({ description: 'Monotonic; an edge receives its events in seqId order' }),
  edgeSeq: Type.Integer({
    description:
      "This edge's own event number: 1, 2, 3, ... with no gap (seqId is shared by every edge); an edge checks with it that nothing is missing",
  }),
  tenantId: EntityId('TENANT'),
  edgeId: EntityId('EDGE'),
  type: Type.String({ description: 'Entity type of the event (DEVICE, EDGE, ...)' }),
  action: Type.String({
    description: 'TIMESERIES_UPDATED, ATTRIBUTES_UPDATED, POST_ATTRIBUTES, ATTRIBUTES_DELETED, ...',
  }),
  entityId: Type.String(),
  uid: Type.String({ description: 'Stable across redeliveries: an edge drops events whose uid it has seen' }),
  body: Type.Unknown(),
  status: EdgeEventStatus,
  retrievedTime: Nullable(Type.Integer()),
  deliveredTime: Nullable(Type.Integer()),
});
export type EdgeEvent = Static<typeof EdgeEvent>;

export const PullRequest = Type.Object({
  maxEvents: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 500 })),
  waitMs: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 60_000,
      default: 0,
      description: 'Long poll: wait up to this long for an event',
    }),
  ),
});

export const PullResponse = Type.Object({
  events: Type.Array(EdgeEvent),
  ackTimeoutMs: Type.Integer({ description: 'Events not acknowledged within this time go back to PENDING' }),
  lastEdgeSeq: Type.Integer({
    description:
      'The last edgeSeq given to an event of this edge so far; an empty pull means every event up to it was acknowledged',
  }),
});

export const AckRequest = Type.Object({
  seqIds: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 100_000 })),
  upToSeqId: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Acknowledge every retrieved event up to this seqId' }),
  ),
});

export const QueueCounts = Type.Object({
  PENDING: Type.Integer(),
  RETRIEVED: Type.Integer(),
  DELIVERED: Type.Integer(),
});

export const PushToEdgeConfiguration = Type.Object(
  {
    scope: Type.Union([
      Type.Literal('SERVER_SCOPE'),
      Type.Literal('CLIENT_SCOPE'),
      Type.Literal('SHARED_SCOPE'),
    ]),
  },
  { additionalProperties: false },
);
