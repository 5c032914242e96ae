/**
 * Table views (saved report definitions), the report API's request and response, the UI's preview, and
 * the demo-data loader's status. Pure TypeBox: the server validates with these and the UI types with them.
 */
import { EpochMs, MAX_EPOCH_MS } from '../limits.ts';
import { Type, type Static } from 'typebox';
import { EntityId, Uuid } from './common.ts';
import { AttributeScope } from './telemetry.ts';

export const TABLE_VIEW_LIMITS = {
  dimensions: 10,
  measures: 20,
  filters: 20,
  filterValues: 1_000,
  deviceIds: 10_000,
  deviceProfileIds: 100,
  labelChars: 255,
  /** rows a report may return; a larger report is refused with a 400 saying how to narrow it */
  reportRows: 100_000,
  previewRows: 10_000,
} as const;

/** A string enum (one `enum` keyword: clear validation messages and OpenAPI). */
const lit = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });

export const DATE_GROUPINGS = [
  'RAW',
  'MINUTE',
  'HOUR',
  'FULL_HOUR',
  'DAY',
  'DATE',
  'FULL_DATE',
  'START_OF_WEEK',
  'WEEK_OF_YEAR',
  'MONTH',
  'QUARTER',
  'YEAR',
  'YEARMONTH',
] as const;
export type DateGrouping = (typeof DATE_GROUPINGS)[number];
export const DateGrouping = lit(DATE_GROUPINGS);
export const DATE_GROUPING_DESCRIPTION =
  "RAW: each point's own timestamp; MINUTE, FULL_HOUR, FULL_DATE, START_OF_WEEK (Monday), YEARMONTH: the start of that minute / hour / day / week / month as epoch ms; HOUR: hour of day 0-23; DAY: ISO day of week 1 (Monday) - 7 (Sunday); DATE: day of month 1-31; WEEK_OF_YEAR: ISO week 1-53; MONTH: 1-12; QUARTER: 1-4; YEAR: e.g. 2024. Computed in UTC shifted by the view's timezoneOffsetMinutes.";

export const MEASURE_AGGREGATIONS = ['AVG', 'SUM', 'MIN', 'MAX', 'LATEST', 'COUNT', 'UNIQ', 'DELTA'] as const;
export type MeasureAggregation = (typeof MEASURE_AGGREGATIONS)[number];
export const MeasureAggregation = lit(MEASURE_AGGREGATIONS);

export const FIELD_TYPES = ['DEVICE_NAME', 'DEVICE_PROFILE', 'ATTRIBUTE', 'ASSET'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export const FieldType = lit(FIELD_TYPES);

const Label = Type.String({ minLength: 1, maxLength: TABLE_VIEW_LIMITS.labelChars });
const Key = Type.String({ minLength: 1, maxLength: 255 });

/** How far up an ASSET field looks for the device's asset. */
export const ASSET_FIELD_LEVELS = 5;

const fieldProperties = {
  field: FieldType,
  key: Type.Optional(Key),
  scope: Type.Optional(AttributeScope),
  assetType: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'ASSET: the type (profile) of the asset, e.g. building',
    }),
  ),
  relationType: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'ASSET: the relation from the asset down to the device (default Contains)',
    }),
  ),
};
const FIELD_DESCRIPTION = `DEVICE_NAME, DEVICE_PROFILE (its name), ATTRIBUTE with key (and optionally scope; without it SERVER_SCOPE, then SHARED_SCOPE, then CLIENT_SCOPE), or ASSET: the name of the asset the device belongs to, the nearest one above it through COMMON relations of relationType (default Contains, up to ${ASSET_FIELD_LEVELS} levels), of assetType when given (the one with the smallest name when several are as near; none: null). Attribute values are compared and shown as text (booleans as true / false).`;

export const Dimension = Type.Object(
  { ...fieldProperties, label: Type.Optional(Label) },
  {
    additionalProperties: false,
    description: `${FIELD_DESCRIPTION} Default labels: Device, Profile, the attribute key, the asset type (else Asset).`,
  },
);
export type Dimension = Static<typeof Dimension>;

export const DateField = Type.Object(
  {
    grouping: DateGrouping,
    label: Type.Optional(Label),
  },
  { additionalProperties: false, description: `${DATE_GROUPING_DESCRIPTION} Default label: Date.` },
);
export type DateField = Static<typeof DateField>;

export const Measure = Type.Object(
  {
    key: Key,
    aggregation: MeasureAggregation,
    label: Type.Optional(Label),
  },
  {
    additionalProperties: false,
    description:
      'A telemetry key and its aggregation per row. AVG, SUM, MIN, MAX and DELTA use numeric points only (booleans as 1/0); COUNT counts every point; UNIQ counts distinct values; LATEST is the value with the greatest timestamp (ties between devices: the largest value); DELTA is, per device, its last minus its first value of the row (by timestamp), summed over the devices of the row. Default label: the key, or "key (AGG)" when the key has several measures.',
  },
);
export type Measure = Static<typeof Measure>;

export const ViewFilter = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, description: 'what the report API names it' }),
    ...fieldProperties,
    values: Type.Array(Type.String({ maxLength: 1024 }), {
      maxItems: TABLE_VIEW_LIMITS.filterValues,
      description: 'the values the filter keeps; an empty list keeps everything',
    }),
  },
  { additionalProperties: false, description: FIELD_DESCRIPTION },
);
export type ViewFilter = Static<typeof ViewFilter>;

export const RELATIVE_UNITS = ['MINUTES', 'HOURS', 'DAYS', 'WEEKS', 'MONTHS', 'YEARS'] as const;
export type RelativeUnit = (typeof RELATIVE_UNITS)[number];

export const TimeRange = Type.Object(
  {
    type: lit(['FIXED', 'RELATIVE'] as const),
    startTs: Type.Optional(EpochMs('FIXED: inclusive, epoch ms')),
    endTs: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_EPOCH_MS, description: 'FIXED: exclusive, epoch ms' }),
    ),
    last: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100_000, description: 'RELATIVE: how many units' }),
    ),
    unit: Type.Optional(lit(RELATIVE_UNITS)),
  },
  {
    additionalProperties: false,
    description:
      'FIXED: [startTs, endTs). RELATIVE: the last `last` units up to the moment the report runs (MONTHS and YEARS are calendar months and years, UTC).',
  },
);
export type TimeRange = Static<typeof TimeRange>;

export const EntitySelection = Type.Object(
  {
    deviceProfileIds: Type.Optional(
      Type.Array(Uuid, {
        maxItems: TABLE_VIEW_LIMITS.deviceProfileIds,
        description: 'devices of these profiles',
      }),
    ),
    deviceIds: Type.Optional(
      Type.Array(Uuid, { maxItems: TABLE_VIEW_LIMITS.deviceIds, description: 'and these devices' }),
    ),
  },
  {
    additionalProperties: false,
    description: 'The devices the view covers: the union of both lists; both empty = every device',
  },
);
export type EntitySelection = Static<typeof EntitySelection>;

export const TableViewConfig = Type.Object(
  {
    entities: EntitySelection,
    dimensions: Type.Array(Dimension, { maxItems: TABLE_VIEW_LIMITS.dimensions }),
    date: Type.Optional(Type.Union([DateField, Type.Null()])),
    measures: Type.Array(Measure, { minItems: 1, maxItems: TABLE_VIEW_LIMITS.measures }),
    filters: Type.Optional(Type.Array(ViewFilter, { maxItems: TABLE_VIEW_LIMITS.filters })),
    timeRange: TimeRange,
    timezoneOffsetMinutes: Type.Optional(
      Type.Integer({
        minimum: -840,
        maximum: 840,
        description: 'fixed offset from UTC for date groupings (120 = UTC+2); default 0 (UTC)',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Columns: the dimensions in order, then the date (if any), then the measures',
  },
);
export type TableViewConfig = Static<typeof TableViewConfig>;

export const TableView = Type.Object({
  id: EntityId('TABLE_VIEW'),
  createdTime: Type.Integer(),
  name: Type.String(),
  config: TableViewConfig,
  columnLabels: Type.Array(Type.String(), { description: 'the labels of the report columns, in order' }),
});
export type TableView = Static<typeof TableView>;

export const SaveTableViewRequest = Type.Object(
  {
    id: Type.Optional(
      Type.Object(
        { entityType: Type.Optional(Type.Literal('TABLE_VIEW')), id: Uuid },
        { description: 'update' },
      ),
    ),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    config: TableViewConfig,
  },
  { additionalProperties: false },
);
export type SaveTableViewRequest = Static<typeof SaveTableViewRequest>;

const FilterValue = Type.Union([Type.String({ maxLength: 1024 }), Type.Number(), Type.Boolean()]);
const RangeTs = Type.Optional(
  Type.Union([EpochMs(), Type.Null()], { description: "epoch ms; blank: the view's" }),
);
const ReportOverrides = {
  rangeStartTs: RangeTs,
  rangeEndTs: RangeTs,
  filters: Type.Optional(
    Type.Record(Type.String(), Type.Array(FilterValue, { maxItems: TABLE_VIEW_LIMITS.filterValues }), {
      description:
        "filter name of the view -> the values it keeps (replacing the view's; an empty list keeps everything)",
    }),
  ),
};

/** POST {analytics}/apiAnalytics/publicApi/buildReport (also /apiTrendz/...). */
export const ReportRequest = Type.Object(
  {
    viewConfigId: Type.String({
      format: 'uuid',
      description: 'the table view id (the last part of its link)',
    }),
    ...ReportOverrides,
  },
  { description: "Range end is exclusive; start and end override the view's range independently" },
);
export type ReportRequest = Static<typeof ReportRequest>;

/** POST /api/tableView/{id}/report: the same, for a view named in the path. */
export const ViewReportRequest = Type.Object(ReportOverrides);
export type ViewReportRequest = Static<typeof ViewReportRequest>;

export const ReportCell = Type.Union([Type.String(), Type.Number(), Type.Null()]);
export type ReportCell = Static<typeof ReportCell>;
export const ReportResponse = Type.Object({
  columnLabels: Type.Array(Type.String()),
  dataTable: Type.Array(Type.Record(Type.String(), ReportCell), {
    description:
      'one object per row keyed by column label: dimensions and dates as strings (a date is epoch ms as a string, cyclic groupings a number as a string; a missing attribute is null), measures as numbers (null when the row has no points for it; LATEST of a text key is its text)',
  }),
});
export type ReportResponse = Static<typeof ReportResponse>;

/** POST /api/tableView/preview: runs an unsaved definition (the UI's live preview). */
export const PreviewRequest = Type.Object({
  config: TableViewConfig,
  ...ReportOverrides,
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: TABLE_VIEW_LIMITS.previewRows,
      description: 'rows returned, default 1000',
    }),
  ),
});
export type PreviewRequest = Static<typeof PreviewRequest>;

export const PreviewResponse = Type.Object({
  ...ReportResponse.properties,
  truncated: Type.Boolean({ description: 'true when the report has more rows than limit' }),
  elapsedMs: Type.Number({ description: 'time the report took, queueing included' }),
});
export type PreviewResponse = Static<typeof PreviewResponse>;

export const DEMO_STATES = ['NOT_LOADED', 'RUNNING', 'DONE', 'FAILED'] as const;
export const DemoStatus = Type.Object({
  state: lit(DEMO_STATES),
  percent: Type.Number({ minimum: 0, maximum: 100 }),
  rowsWritten: Type.Integer({ description: 'telemetry datapoints written so far' }),
  totalRows: Type.Integer(),
  devices: Type.Integer({ description: 'devices created or found so far' }),
  totalDevices: Type.Integer(),
  startedTs: Type.Union([Type.Integer(), Type.Null()]),
  finishedTs: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  viewIds: Type.Array(Type.String(), { description: 'the table views the demo saved' }),
});
export type DemoStatus = Static<typeof DemoStatus>;
