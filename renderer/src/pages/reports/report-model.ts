/**
 * The view builder's model: a new definition, the checks the server would make (so the preview only runs
 * what it accepts), the column labels a definition produces, how date columns read, CSV, and the curl
 * command of the report API.
 */
import type {
  DateGrouping,
  Dimension,
  MeasureAggregation,
  ReportResponse,
  TableViewConfig,
  ViewFilter,
  ViewReportRequest,
} from '../../api/reports-api.ts';

export const GROUPING_LABELS: Record<DateGrouping, string> = {
  RAW: 'Raw (each point)',
  MINUTE: 'Minute',
  HOUR: 'Hour of day (0–23)',
  FULL_HOUR: 'Hour',
  DAY: 'Day of week (1–7)',
  DATE: 'Day of month (1–31)',
  FULL_DATE: 'Date',
  START_OF_WEEK: 'Week (starting Monday)',
  WEEK_OF_YEAR: 'Week of year (1–53)',
  MONTH: 'Month of year (1–12)',
  QUARTER: 'Quarter (1–4)',
  YEAR: 'Year',
  YEARMONTH: 'Month',
};

export const AGGREGATION_LABELS: Record<MeasureAggregation, string> = {
  AVG: 'Average',
  SUM: 'Total (sum)',
  MIN: 'Smallest',
  MAX: 'Largest',
  LATEST: 'Last value',
  COUNT: 'Number of points',
  UNIQ: 'Distinct values',
  DELTA: 'Change (last − first)',
};

export const FIELD_LABELS: Record<Dimension['field'], string> = {
  DEVICE_NAME: 'Device name',
  DEVICE_PROFILE: 'Device profile',
  ATTRIBUTE: 'Attribute',
  ASSET: 'Asset (relations)',
};

export const RELATIVE_UNIT_LABELS = {
  MINUTES: 'minutes',
  HOURS: 'hours',
  DAYS: 'days',
  WEEKS: 'weeks',
  MONTHS: 'months',
  YEARS: 'years',
} as const;

/** Groupings whose values are epoch milliseconds (the start of the bucket). */
const INSTANT_GROUPINGS = new Set<DateGrouping>([
  'RAW',
  'MINUTE',
  'FULL_HOUR',
  'FULL_DATE',
  'START_OF_WEEK',
  'YEARMONTH',
]);

export function newViewConfig(): TableViewConfig {
  return {
    entities: {},
    dimensions: [{ field: 'DEVICE_NAME' }],
    date: { grouping: 'FULL_DATE' },
    measures: [],
    filters: [],
    timeRange: { type: 'RELATIVE', last: 7, unit: 'DAYS' },
  };
}

const DEFAULT_DIMENSION_LABEL: Record<Dimension['field'], string> = {
  DEVICE_NAME: 'Device',
  DEVICE_PROFILE: 'Profile',
  ATTRIBUTE: '',
  ASSET: 'Asset',
};

/** A dimension's label when it has none of its own (as the server names it). */
export function defaultDimensionLabel(d: Dimension): string {
  if (d.field === 'ATTRIBUTE') return d.key ?? '';
  if (d.field === 'ASSET') return d.assetType ?? DEFAULT_DIMENSION_LABEL.ASSET;
  return DEFAULT_DIMENSION_LABEL[d.field];
}

/** The report's columns, as the server names them: dimensions, then the date, then the measures. */
export function columnLabelsOf(config: TableViewConfig): string[] {
  const labels = config.dimensions.map((d) => d.label ?? defaultDimensionLabel(d));
  if (config.date) labels.push(config.date.label ?? 'Date');
  const perKey = new Map<string, number>();
  for (const m of config.measures) perKey.set(m.key, (perKey.get(m.key) ?? 0) + 1);
  for (const m of config.measures)
    labels.push(m.label ?? ((perKey.get(m.key) ?? 0) > 1 ? `${m.key} (${m.aggregation})` : m.key));
  return labels;
}

export interface ConfigIssue {
  path: string;
  message: string;
}

/** What the server would refuse, found here first (so the live preview sends nothing it refuses). */
export function configIssues(config: TableViewConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (config.measures.length === 0)
    issues.push({ path: 'measures', message: 'Add a measure (a telemetry key)' });
  config.measures.forEach((m, i) => {
    if (!m.key.trim()) issues.push({ path: `measures[${i}].key`, message: 'Choose a telemetry key' });
  });
  const field = (f: Dimension | ViewFilter, path: string) => {
    if (f.field === 'ATTRIBUTE' && !f.key?.trim())
      issues.push({ path: `${path}.key`, message: 'Choose an attribute key' });
  };
  config.dimensions.forEach((d, i) => field(d, `dimensions[${i}]`));
  const names = new Set<string>();
  (config.filters ?? []).forEach((f, i) => {
    field(f, `filters[${i}]`);
    if (!f.name.trim()) issues.push({ path: `filters[${i}].name`, message: 'Name the filter' });
    else if (names.has(f.name))
      issues.push({ path: `filters[${i}].name`, message: `Another filter is named '${f.name}'` });
    names.add(f.name);
  });
  const r = config.timeRange;
  if (r.type === 'FIXED') {
    if (r.startTs === undefined || r.endTs === undefined)
      issues.push({ path: 'timeRange', message: 'Choose the start and the end of the range' });
    else if (r.startTs >= r.endTs)
      issues.push({ path: 'timeRange', message: 'The start must be before the end' });
  } else if (!r.last || r.last < 1) issues.push({ path: 'timeRange.last', message: 'At least 1' });
  const seen = new Map<string, number>();
  columnLabelsOf(config).forEach((label, i) => {
    if (!label) return;
    if (seen.has(label))
      issues.push({ path: 'labels', message: `Two columns are labelled '${label}': give one another label` });
    seen.set(label, i);
  });
  return issues;
}

/** The definition as the server takes it: empty optional parts left out, labels trimmed. */
export function cleanConfig(config: TableViewConfig): TableViewConfig {
  const label = (l: string | undefined) => (l?.trim() ? l.trim() : undefined);
  const field = <T extends Dimension | ViewFilter>(f: T): T => {
    const out = { ...f };
    if (out.field !== 'ATTRIBUTE') {
      delete out.key;
      delete out.scope;
    } else if (!out.scope) delete out.scope;
    if (out.field !== 'ASSET' || !out.assetType?.trim()) delete out.assetType;
    if (out.field !== 'ASSET' || !out.relationType?.trim()) delete out.relationType;
    return out;
  };
  const entities: TableViewConfig['entities'] = {};
  if (config.entities.deviceProfileIds?.length) entities.deviceProfileIds = config.entities.deviceProfileIds;
  if (config.entities.deviceIds?.length) entities.deviceIds = config.entities.deviceIds;
  const r = config.timeRange;
  return {
    entities,
    dimensions: config.dimensions.map((d) => {
      const out = field(d);
      const l = label(d.label);
      if (l) out.label = l;
      else delete out.label;
      return out;
    }),
    date: config.date
      ? {
          grouping: config.date.grouping,
          ...(label(config.date.label) ? { label: label(config.date.label) } : {}),
        }
      : null,
    measures: config.measures.map((m) => ({
      key: m.key.trim(),
      aggregation: m.aggregation,
      ...(label(m.label) ? { label: label(m.label) } : {}),
    })),
    filters: (config.filters ?? []).map((f) => ({ ...field(f), name: f.name.trim() })),
    timeRange:
      r.type === 'FIXED'
        ? { type: 'FIXED', startTs: r.startTs, endTs: r.endTs }
        : { type: 'RELATIVE', last: r.last, unit: r.unit ?? 'DAYS' },
    ...(config.timezoneOffsetMinutes ? { timezoneOffsetMinutes: config.timezoneOffsetMinutes } : {}),
  };
}

export type ColumnKind = 'dimension' | 'date' | 'measure';

/** What each column of a result is (by position: dimensions, date, measures). */
export function columnKinds(config: TableViewConfig, labels: string[]): ColumnKind[] {
  const dims = config.dimensions.length;
  const date = config.date ? 1 : 0;
  return labels.map((_, i) => (i < dims ? 'dimension' : i < dims + date ? 'date' : 'measure'));
}

const pad = (n: number) => String(n).padStart(2, '0');
const DAYS = ['', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const MONTHS = ['', 'Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A date column's value as a person reads it (in the view's time zone offset). */
export function formatDateValue(value: unknown, grouping: DateGrouping, offsetMinutes = 0): string {
  if (value === null || value === undefined) return '—';
  const n = Number(value);
  if (!Number.isFinite(n)) return String(value);
  if (INSTANT_GROUPINGS.has(grouping)) {
    const d = new Date(n + offsetMinutes * 60_000);
    const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
    const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
    switch (grouping) {
      case 'RAW':
        return `${date} ${time}:${pad(d.getUTCSeconds())}`;
      case 'MINUTE':
      case 'FULL_HOUR':
        return `${date} ${time}`;
      case 'YEARMONTH':
        return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}`;
      case 'START_OF_WEEK':
        return `week of ${date}`;
      default:
        return date;
    }
  }
  switch (grouping) {
    case 'HOUR':
      return `${pad(n)}:00`;
    case 'DAY':
      return DAYS[n] ?? String(n);
    case 'MONTH':
      return MONTHS[n] ?? String(n);
    case 'QUARTER':
      return `Q${n}`;
    case 'WEEK_OF_YEAR':
      return `W${pad(n)}`;
    default:
      return String(n);
  }
}

export function formatMeasure(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number')
    return Number.isInteger(value)
      ? value.toLocaleString()
      : value.toLocaleString(undefined, { maximumFractionDigits: 3 });
  return String(value);
}

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The result as CSV: a header of the column labels, values as the report API returns them. */
export function toCsv(result: ReportResponse): string {
  const lines = [result.columnLabels.map(csvCell).join(',')];
  for (const row of result.dataTable) lines.push(result.columnLabels.map((l) => csvCell(row[l])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** The request body of buildReport for a saved view and the current overrides. */
export function buildReportBody(viewId: string, overrides: ViewReportRequest): Record<string, unknown> {
  return {
    viewConfigId: viewId,
    ...(overrides.rangeStartTs !== undefined && overrides.rangeStartTs !== null
      ? { rangeStartTs: overrides.rangeStartTs }
      : {}),
    ...(overrides.rangeEndTs !== undefined && overrides.rangeEndTs !== null
      ? { rangeEndTs: overrides.rangeEndTs }
      : {}),
    ...(overrides.filters && Object.keys(overrides.filters).length ? { filters: overrides.filters } : {}),
  };
}

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export const REPORT_PATHS = [
  '/apiTrendz/publicApi/buildReport',
  '/apiAnalytics/publicApi/buildReport',
] as const;

/** The curl command of the report API (POSIX shell quoting). */
export function buildReportCurl(
  analyticsUrl: string,
  path: string,
  jwt: string,
  body: Record<string, unknown>,
): string {
  // the JWT in a header, not the URL (URLs end up in shell histories and logs); ?jwt= stays for Trendz clients
  const url = `${analyticsUrl.replace(/\/+$/, '')}${path}`;
  return [
    `curl -X POST ${shellQuote(url)}`,
    `  -H ${shellQuote(`jwt: ${jwt}`)}`,
    `  -H 'Content-Type: application/json'`,
    `  -d ${shellQuote(JSON.stringify(body))}`,
  ].join(' \\\n');
}

/** A datetime-local input's value ("2026-11-20T13:00") for epoch ms, in the browser's time zone. */
export function toLocalInput(ts: number | undefined | null): string {
  if (ts === undefined || ts === null) return '';
  const d = new Date(ts);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function fromLocalInput(value: string): number | undefined {
  if (!value) return undefined;
  const t = new Date(value).getTime();
  return Number.isFinite(t) ? t : undefined;
}
