import { EpochMs, MAX_EPOCH_MS } from '../limits.ts';
import { Type, type Static } from 'typebox';

export const AttributeScope = Type.Union([
  Type.Literal('CLIENT_SCOPE'),
  Type.Literal('SERVER_SCOPE'),
  Type.Literal('SHARED_SCOPE'),
]);
export type AttributeScope = Static<typeof AttributeScope>;
export const ATTRIBUTE_SCOPES: AttributeScope[] = ['CLIENT_SCOPE', 'SERVER_SCOPE', 'SHARED_SCOPE'];

export const AttributeData = Type.Object({
  key: Type.String(),
  value: Type.Unknown(),
  lastUpdateTs: Type.Integer(),
});
export type AttributeData = Static<typeof AttributeData>;

export const TsValue = Type.Object({ ts: Type.Integer(), value: Type.Unknown() });
export const TimeseriesData = Type.Record(Type.String(), Type.Array(TsValue), {
  description:
    'key -> [{ts, value}], newest first unless orderBy=ASC; values are strings unless useStrictDataTypes=true',
});
export type TimeseriesData = Record<string, { ts: number; value: unknown }[]>;

export const Aggregation = Type.Union(
  ['NONE', 'AVG', 'MIN', 'MAX', 'SUM', 'COUNT'].map((a) => Type.Literal(a)),
);

export const TimeseriesQuery = Type.Object({
  keys: Type.Optional(Type.String({ description: 'Comma-separated keys; all keys when absent' })),
  startTs: Type.Optional(EpochMs('Epoch ms; without startTs and endTs the latest values are returned')),
  endTs: Type.Optional(EpochMs()),
  interval: Type.Optional(Type.Integer({ minimum: 0, description: 'Aggregation interval in ms' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 100 })),
  agg: Type.Optional(Aggregation),
  orderBy: Type.Optional(Type.Union([Type.Literal('ASC'), Type.Literal('DESC')])),
  useStrictDataTypes: Type.Optional(Type.Boolean({ default: false })),
  intervalType: Type.Optional(
    Type.Union(
      ['MILLISECONDS', 'WEEK', 'WEEK_ISO', 'MONTH', 'QUARTER'].map((t) => Type.Literal(t)),
      {
        description:
          'MILLISECONDS (fixed intervals) only: Sandboard does not group by calendar weeks or months',
      },
    ),
  ),
  timeZone: Type.Optional(
    Type.String({ maxLength: 64, description: 'for calendar intervals; accepted, unused with MILLISECONDS' }),
  ),
});
export type TimeseriesQuery = Static<typeof TimeseriesQuery>;

export const TelemetryEntry = Type.Object({
  // no "type" keyword: the schema layer would coerce null to 0 (1970); parseTelemetry checks it instead
  ts: Type.Unsafe<number>({ description: `Epoch ms, 0 to ${MAX_EPOCH_MS} (a number or a string of digits)` }),
  values: Type.Record(Type.String(), Type.Unknown()),
});
export const TelemetryBody = Type.Union(
  [
    TelemetryEntry,
    Type.Array(Type.Union([TelemetryEntry, Type.Record(Type.String(), Type.Unknown())])),
    Type.Record(Type.String(), Type.Unknown()),
  ],
  { description: '{"key":value}, {"ts":ms,"values":{...}} or an array of those' },
);
