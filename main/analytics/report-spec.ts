/**
 * From a table view (saved or previewed) and a report request's overrides to a ReportSpec: the plain,
 * JSON-serializable description of one report that the query compiler turns into SQL (in a worker).
 */
import type {
  DateGrouping,
  FieldType,
  MeasureAggregation,
  TableViewConfig,
  TimeRange,
} from '../../shared/schemas/table-view.ts';
import type { AttributeScope } from '../../shared/schemas/telemetry.ts';
import { invalidArgument } from '../platform/errors.ts';

export interface ReportField {
  field: FieldType;
  key?: string;
  scope?: AttributeScope;
  /** ASSET: the asset's type and the relation down to the device */
  assetType?: string;
  relationType?: string;
}

export interface ReportSpec {
  /** devices of these profiles, plus these devices; both empty: every device */
  profileIds: string[];
  deviceIds: string[];
  /** a customer user sees its customer's devices only */
  customerId: string | null;
  dimensions: ReportField[];
  date: DateGrouping | null;
  measures: { key: string; aggregation: MeasureAggregation }[];
  /** active filters only (at least one value each) */
  filters: (ReportField & { values: string[] })[];
  /** [startTs, endTs) */
  startTs: number;
  endTs: number;
  tzOffsetMinutes: number;
  columnLabels: string[];
  maxRows: number;
  /** past maxRows: refuse the report (report API) or cut it (preview) */
  overflow: 'error' | 'truncate';
  /** tests only: force a query plan instead of the cost-based choice */
  plan?: 'bucket' | 'scan';
}

export interface ReportOverrides {
  rangeStartTs?: number | null;
  rangeEndTs?: number | null;
  filters?: Record<string, (string | number | boolean)[]>;
}

const DEFAULT_DIMENSION_LABEL: Record<FieldType, string> = {
  DEVICE_NAME: 'Device',
  DEVICE_PROFILE: 'Profile',
  ATTRIBUTE: '',
  ASSET: 'Asset',
};

/** A dimension's label when it has none of its own. */
export function defaultDimensionLabel(d: ReportField): string {
  if (d.field === 'ATTRIBUTE') return d.key ?? '';
  if (d.field === 'ASSET') return d.assetType ?? DEFAULT_DIMENSION_LABEL.ASSET;
  return DEFAULT_DIMENSION_LABEL[d.field];
}

/** The labels of a view's columns: dimensions, then the date, then the measures. 400 on a duplicate. */
export function columnLabels(config: TableViewConfig, path = 'config'): string[] {
  const labels: string[] = [];
  const seen = new Map<string, string>();
  const add = (label: string, where: string) => {
    const earlier = seen.get(label);
    if (earlier !== undefined)
      throw invalidArgument(
        `'${where}' has the column label '${label}' that '${earlier}' already uses: give one of them another label`,
      );
    seen.set(label, where);
    labels.push(label);
  };
  config.dimensions.forEach((d, i) => add(d.label ?? defaultDimensionLabel(d), `${path}.dimensions[${i}]`));
  if (config.date) add(config.date.label ?? 'Date', `${path}.date`);
  const perKey = new Map<string, number>();
  for (const m of config.measures) perKey.set(m.key, (perKey.get(m.key) ?? 0) + 1);
  config.measures.forEach((m, i) =>
    add(
      m.label ?? ((perKey.get(m.key) ?? 0) > 1 ? `${m.key} (${m.aggregation})` : m.key),
      `${path}.measures[${i}]`,
    ),
  );
  return labels;
}

function checkField(f: ReportField, where: string): void {
  if (f.field === 'ATTRIBUTE') {
    if (!f.key) throw invalidArgument(`'${where}.key' is required when field is ATTRIBUTE`);
  } else {
    if (f.key !== undefined) throw invalidArgument(`'${where}.key' is only for ATTRIBUTE fields`);
    if (f.scope !== undefined) throw invalidArgument(`'${where}.scope' is only for ATTRIBUTE fields`);
  }
  if (f.field !== 'ASSET') {
    for (const k of ['assetType', 'relationType'] as const)
      if (f[k] !== undefined) throw invalidArgument(`'${where}.${k}' is only for ASSET fields`);
  }
}

const fieldOf = (f: ReportField): ReportField => ({
  field: f.field,
  key: f.key,
  scope: f.scope,
  assetType: f.assetType,
  relationType: f.relationType,
});

/** Checks what the schema cannot: attribute keys, unique filter names and labels, a non-empty fixed range. */
export function validateConfig(config: TableViewConfig, path = 'config'): void {
  config.dimensions.forEach((d, i) => checkField(d, `${path}.dimensions[${i}]`));
  const names = new Set<string>();
  (config.filters ?? []).forEach((f, i) => {
    checkField(f, `${path}.filters[${i}]`);
    if (names.has(f.name))
      throw invalidArgument(`'${path}.filters[${i}].name': another filter is already named '${f.name}'`);
    names.add(f.name);
  });
  const range = config.timeRange;
  const [own, other] =
    range.type === 'FIXED'
      ? [
          ['startTs', 'endTs'],
          ['last', 'unit'],
        ]
      : [
          ['last', 'unit'],
          ['startTs', 'endTs'],
        ];
  for (const key of own)
    if (range[key as keyof TimeRange] === undefined)
      throw invalidArgument(`'${path}.timeRange.${key}' is required for a ${range.type} range`);
  for (const key of other)
    if (range[key as keyof TimeRange] !== undefined)
      throw invalidArgument(
        `'${path}.timeRange.${key}' is only for ${range.type === 'FIXED' ? 'RELATIVE' : 'FIXED'} ranges`,
      );
  if (range.type === 'FIXED' && range.startTs! >= range.endTs!)
    throw invalidArgument(`'${path}.timeRange': startTs must be before endTs`);
  columnLabels(config, path);
}

const UNIT_MS: Record<string, number> = {
  MINUTES: 60_000,
  HOURS: 3_600_000,
  DAYS: 86_400_000,
  WEEKS: 604_800_000,
};

/** [startTs, endTs) of a view's time range at `now`. */
export function resolveTimeRange(range: TimeRange, now: number): { startTs: number; endTs: number } {
  if (range.type === 'FIXED') return { startTs: range.startTs ?? 0, endTs: range.endTs ?? now };
  const last = range.last ?? 1;
  const unit = UNIT_MS[range.unit ?? 'DAYS'];
  if (unit !== undefined) return { startTs: Math.max(0, now - last * unit), endTs: now };
  const d = new Date(now);
  if (range.unit === 'MONTHS') d.setUTCMonth(d.getUTCMonth() - last);
  else d.setUTCFullYear(d.getUTCFullYear() - last);
  return { startTs: Math.max(0, d.getTime()), endTs: now };
}

/** The spec of one report: the view with the request's range and filters laid over it. */
export function buildReportSpec(
  config: TableViewConfig,
  overrides: ReportOverrides,
  options: { now: number; customerId: string | null; maxRows: number; overflow: 'error' | 'truncate' },
): ReportSpec {
  const viewRange = resolveTimeRange(config.timeRange, options.now);
  const startTs = overrides.rangeStartTs ?? viewRange.startTs;
  const endTs = overrides.rangeEndTs ?? viewRange.endTs;
  if (startTs >= endTs)
    throw invalidArgument(
      `The range is empty: rangeStartTs (${startTs}) must be before rangeEndTs (${endTs}); a blank one takes the view's`,
    );
  const viewFilters = config.filters ?? [];
  const byName = new Map(viewFilters.map((f) => [f.name, f]));
  for (const name of Object.keys(overrides.filters ?? {})) {
    if (!byName.has(name)) {
      const known = viewFilters.map((f) => `'${f.name}'`).join(', ');
      throw invalidArgument(
        `Unknown filter '${name}': ${known ? `the view's filters are ${known}` : 'the view has no filters'}`,
      );
    }
  }
  const filters: ReportSpec['filters'] = [];
  for (const f of viewFilters) {
    const override = overrides.filters?.[f.name];
    const values = override ? override.map((v) => String(v)) : f.values;
    if (values.length > 0) filters.push({ ...fieldOf(f), values });
  }
  return {
    profileIds: config.entities.deviceProfileIds ?? [],
    deviceIds: config.entities.deviceIds ?? [],
    customerId: options.customerId,
    dimensions: config.dimensions.map(fieldOf),
    date: config.date?.grouping ?? null,
    measures: config.measures.map((m) => ({ key: m.key, aggregation: m.aggregation })),
    filters,
    startTs,
    endTs,
    tzOffsetMinutes: config.timezoneOffsetMinutes ?? 0,
    columnLabels: columnLabels(config),
    maxRows: options.maxRows,
    overflow: options.overflow,
  };
}
