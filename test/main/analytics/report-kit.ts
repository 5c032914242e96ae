/**
 * Test kit for reports: a seeded dataset written into a real platform, the report API called over
 * HTTP, and an independent computation of the expected report in plain JavaScript over the raw points
 * the test generated (JavaScript Date for the calendar, no SQL).
 */
import { expect } from 'vitest';
import type {
  DateGrouping,
  MeasureAggregation,
  ReportResponse,
  TableView,
  TableViewConfig,
} from '../../../shared/schemas/table-view.ts';
import type { TsEntry } from '../../../main/platform/telemetry-repository.ts';
import { okJson, type ApiPlatform } from '../api/api-kit.ts';

export type Value = number | string | boolean;
export interface Point {
  device: string;
  key: string;
  ts: number;
  value: Value;
}
type Scope = 'SERVER_SCOPE' | 'SHARED_SCOPE' | 'CLIENT_SCOPE';
export interface TestDevice {
  name: string;
  id: string;
  profile: string;
  profileId: string;
  customerId: string | null;
  attributes: { scope: Scope; key: string; value: Value }[];
}
export interface Dataset {
  devices: TestDevice[];
  points: Point[];
  profileIds: Record<string, string>;
  /** [first point, last point + 1) */
  startTs: number;
  endTs: number;
}

export const DAY = 86_400_000;
/** Monday 2023-12-18 00:00 UTC: the data crosses a year end, month ends and 2024-02-29. */
export const DATA_START = Date.UTC(2023, 11, 18);
export const DATA_DAYS = 82;

/** mulberry32 */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DEVICES: Omit<TestDevice, 'id' | 'profileId' | 'customerId'>[] = [
  {
    name: 'Meter 1',
    profile: 'Meter A',
    attributes: [
      { scope: 'SERVER_SCOPE', key: 'building', value: 'B1' },
      { scope: 'SHARED_SCOPE', key: 'floor', value: 1 },
      { scope: 'SERVER_SCOPE', key: 'active', value: true },
    ],
  },
  {
    name: 'Meter 2',
    profile: 'Meter A',
    attributes: [
      { scope: 'SERVER_SCOPE', key: 'building', value: 'B1' },
      { scope: 'SHARED_SCOPE', key: 'floor', value: 2 },
      { scope: 'SERVER_SCOPE', key: 'active', value: false },
    ],
  },
  {
    name: 'Meter 3',
    profile: 'Meter A',
    attributes: [
      { scope: 'SERVER_SCOPE', key: 'building', value: 'B2' },
      { scope: 'SHARED_SCOPE', key: 'floor', value: 1 },
    ],
  },
  {
    name: 'Meter 4',
    profile: 'Meter B',
    attributes: [
      // two scopes: without a scope the dimension takes SERVER_SCOPE
      { scope: 'CLIENT_SCOPE', key: 'building', value: 'B9' },
      { scope: 'SERVER_SCOPE', key: 'building', value: 'B2' },
      { scope: 'SHARED_SCOPE', key: 'floor', value: 3 },
    ],
  },
  {
    name: 'Meter 5',
    profile: 'Meter B',
    // no building: a null dimension
    attributes: [{ scope: 'SHARED_SCOPE', key: 'floor', value: 2 }],
  },
  {
    name: 'Other 6',
    profile: 'Other',
    attributes: [
      { scope: 'SERVER_SCOPE', key: 'building', value: 'B1' },
      { scope: 'SHARED_SCOPE', key: 'floor', value: 3 },
    ],
  },
];

/** The points of one device: irregular energy readings, a cumulative counter, a status with text values, a boolean. */
function generate(device: string, index: number): Point[] {
  const rnd = seeded(1000 + index);
  const points: Point[] = [];
  const end = DATA_START + DATA_DAYS * DAY;
  let counter = 100 * index;
  for (
    let ts = DATA_START + Math.floor(rnd() * 3_600_000);
    ts < end;
    ts += 1_200_000 + Math.floor(rnd() * 7_800_000)
  ) {
    // Every device reports at 23:59:00.000 itself: no other point lands in a day's last minute.
    if (ts % DAY >= DAY - 60_000) continue;
    points.push({ device, key: 'energy', ts, value: Math.round(rnd() * 100_000) / 1000 });
    if (rnd() < 0.5) {
      counter += Math.round(rnd() * 5000) / 100;
      points.push({ device, key: 'counter', ts, value: counter });
    }
    if (rnd() < 0.35) {
      const r = rnd();
      points.push({
        device,
        key: 'status',
        ts,
        value: r < 0.1 ? 'fault' : r < 0.15 ? 'ok' : Math.floor(r * 5),
      });
    }
    if (rnd() < 0.2) points.push({ device, key: 'open', ts, value: rnd() < 0.4 });
  }
  // The same instant on every device each day: LATEST ties between devices, broken by the largest value.
  for (let day = 0; day < DATA_DAYS; day++) {
    const ts = DATA_START + day * DAY + DAY - 60_000;
    points.push({ device, key: 'energy', ts, value: Math.round(rnd() * 100_000) / 1000 });
    if (day % 3 === 0) points.push({ device, key: 'status', ts, value: day % 2 === 0 ? 'ok' : 7 });
  }
  return points;
}

/** Creates the devices (REST), their attributes and their points (through the platform's services). */
export async function loadDataset(p: ApiPlatform, token: string): Promise<Dataset> {
  const devices: TestDevice[] = [];
  const points: Point[] = [];
  const profileIds: Record<string, string> = {};
  for (const [i, d] of DEVICES.entries()) {
    const created = await okJson<{ id: { id: string }; deviceProfileId: { id: string } }>(
      p.http('/api/device', { method: 'POST', token, json: { name: d.name, type: d.profile } }),
    );
    profileIds[d.profile] = created.deviceProfileId.id;
    const device: TestDevice = {
      ...d,
      id: created.id.id,
      profileId: created.deviceProfileId.id,
      customerId: null,
    };
    devices.push(device);
    for (const scope of ['SERVER_SCOPE', 'SHARED_SCOPE', 'CLIENT_SCOPE'] as const) {
      const values = Object.fromEntries(
        d.attributes.filter((a) => a.scope === scope).map((a) => [a.key, a.value]),
      );
      if (Object.keys(values).length > 0) await p.services.telemetry.saveAttributes(device.id, scope, values);
    }
    const own = generate(d.name, i);
    points.push(...own);
    const byTs = new Map<number, TsEntry>();
    for (const pt of own) {
      let entry = byTs.get(pt.ts);
      if (!entry) byTs.set(pt.ts, (entry = { ts: pt.ts, values: {} }));
      entry.values[pt.key] = pt.value;
    }
    await p.services.telemetry.saveTimeseries(p.services.devices.findRow(device.id)!, [...byTs.values()]);
  }
  const all = points.map((pt) => pt.ts);
  return { devices, points, profileIds, startTs: Math.min(...all), endTs: Math.max(...all) + 1 };
}

// ---------------------------------------------------------------------------------------------------
// The independent computation

/** ISO 8601 week number of a UTC date (the week of its Thursday). */
function isoWeek(d: Date): number {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const dayNum = (t.getUTCDay() + 6) % 7;
  t.setUTCDate(t.getUTCDate() - dayNum + 3);
  const yearStart = Date.UTC(t.getUTCFullYear(), 0, 1);
  return Math.floor((t.getTime() - yearStart) / DAY / 7) + 1;
}

/** The date column's value for a point, by JavaScript's calendar on the time shifted by the offset. */
export function dateLabel(ts: number, grouping: DateGrouping, tzMinutes: number): number {
  const off = tzMinutes * 60_000;
  const d = new Date(ts + off);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const dayStart = Date.UTC(y, m, d.getUTCDate());
  const weekday = (d.getUTCDay() + 6) % 7; // Monday 0
  switch (grouping) {
    case 'RAW':
      return ts;
    case 'MINUTE':
      return Date.UTC(y, m, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()) - off;
    case 'FULL_HOUR':
      return Date.UTC(y, m, d.getUTCDate(), d.getUTCHours()) - off;
    case 'HOUR':
      return d.getUTCHours();
    case 'DAY':
      return weekday + 1;
    case 'DATE':
      return d.getUTCDate();
    case 'FULL_DATE':
      return dayStart - off;
    case 'START_OF_WEEK':
      return Date.UTC(y, m, d.getUTCDate() - weekday) - off;
    case 'WEEK_OF_YEAR':
      return isoWeek(d);
    case 'MONTH':
      return m + 1;
    case 'QUARTER':
      return Math.floor(m / 3) + 1;
    case 'YEAR':
      return y;
    case 'YEARMONTH':
      return Date.UTC(y, m, 1) - off;
  }
}

const asText = (v: Value): string => (typeof v === 'boolean' ? String(v) : String(v));

function fieldValue(device: TestDevice, f: { field: string; key?: string; scope?: string }): string | null {
  if (f.field === 'DEVICE_NAME') return device.name;
  if (f.field === 'DEVICE_PROFILE') return device.profile;
  const order: Scope[] = f.scope ? [f.scope as Scope] : ['SERVER_SCOPE', 'SHARED_SCOPE', 'CLIENT_SCOPE'];
  for (const scope of order) {
    const a = device.attributes.find((x) => x.scope === scope && x.key === f.key);
    if (a) return asText(a.value);
  }
  return null;
}

/** SQLite's order: NULL, then numbers, then text (binary). */
function compareValues(a: Value | null, b: Value | null): number {
  const rank = (v: Value | null) => (v === null ? 0 : typeof v === 'string' ? 2 : 1);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (a === null || b === null) return 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return Number(a) - Number(b);
}

const numeric = (v: Value): number | null =>
  typeof v === 'number' ? v : typeof v === 'boolean' ? (v ? 1 : 0) : null;

function aggregate(points: Point[], aggregation: MeasureAggregation): number | string | null {
  if (points.length === 0) return null;
  const nums = points.map((p) => numeric(p.value)).filter((v): v is number => v !== null);
  switch (aggregation) {
    case 'AVG':
      return nums.length ? nums.reduce((s, v) => s + v, 0) / nums.length : null;
    case 'SUM':
      return nums.length ? nums.reduce((s, v) => s + v, 0) : null;
    case 'MIN':
      return nums.length ? Math.min(...nums) : null;
    case 'MAX':
      return nums.length ? Math.max(...nums) : null;
    case 'COUNT':
      return points.length;
    case 'UNIQ':
      return new Set(
        points.map((p) => (typeof p.value === 'string' ? `s:${p.value}` : `n:${numeric(p.value)}`)),
      ).size;
    case 'LATEST': {
      // each device's last point, then the latest of those; a tie between devices: the largest value
      const last = new Map<string, Point>();
      for (const p of points) {
        const l = last.get(p.device);
        if (!l || p.ts > l.ts) last.set(p.device, p);
      }
      let best: Point | null = null;
      for (const p of last.values()) {
        if (!best || p.ts > best.ts || (p.ts === best.ts && compareValues(p.value, best.value) > 0)) best = p;
      }
      return typeof best!.value === 'string' ? best!.value : numeric(best!.value);
    }
    case 'DELTA': {
      const perDevice = new Map<string, Point[]>();
      for (const p of points) {
        if (numeric(p.value) === null) continue;
        perDevice.set(p.device, [...(perDevice.get(p.device) ?? []), p]);
      }
      if (perDevice.size === 0) return null;
      let sum = 0;
      for (const list of perDevice.values()) {
        list.sort((a, b) => a.ts - b.ts);
        sum += numeric(list.at(-1)!.value)! - numeric(list[0]!.value)!;
      }
      return sum;
    }
  }
}

export interface ExpectOptions {
  startTs: number;
  endTs: number;
  /** filter values in force (the view's with the request's overrides laid over) */
  filters?: { field: string; key?: string; scope?: string; values: string[] }[];
  customerId?: string | null;
}

/** The rows a report must return, as arrays: dimensions, date, measures. */
export function expectedRows(
  ds: Dataset,
  config: TableViewConfig,
  opt: ExpectOptions,
): (string | number | null)[][] {
  const profiles = new Set(config.entities.deviceProfileIds ?? []);
  const ids = new Set(config.entities.deviceIds ?? []);
  const selected = ds.devices.filter((d) => {
    if ((profiles.size > 0 || ids.size > 0) && !profiles.has(d.profileId) && !ids.has(d.id)) return false;
    if (opt.customerId !== undefined && opt.customerId !== null && d.customerId !== opt.customerId)
      return false;
    for (const f of opt.filters ?? []) {
      if (f.values.length === 0) continue;
      const v = fieldValue(d, f);
      if (v === null || !f.values.includes(v)) return false;
    }
    return true;
  });
  const byName = new Map(selected.map((d) => [d.name, d]));
  const keys = new Set(config.measures.map((m) => m.key));
  // A point makes a row when a measure counts it: numeric measures count numeric points only.
  const anyType = new Set(
    config.measures.filter((m) => ['COUNT', 'UNIQ', 'LATEST'].includes(m.aggregation)).map((m) => m.key),
  );
  const tz = config.timezoneOffsetMinutes ?? 0;
  const groups = new Map<string, { dims: (string | null)[]; label: number | null; points: Point[] }>();
  for (const p of ds.points) {
    const device = byName.get(p.device);
    if (!device || !keys.has(p.key) || p.ts < opt.startTs || p.ts >= opt.endTs) continue;
    if (!anyType.has(p.key) && numeric(p.value) === null) continue;
    const dims = config.dimensions.map((f) => fieldValue(device, f));
    const label = config.date ? dateLabel(p.ts, config.date.grouping, tz) : null;
    const id = JSON.stringify([dims, label]);
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { dims, label, points: [] }));
    g.points.push(p);
  }
  const rows = [...groups.values()].sort((a, b) => {
    for (let i = 0; i < a.dims.length; i++) {
      const c = compareValues(a.dims[i]!, b.dims[i]!);
      if (c !== 0) return c;
    }
    return (a.label ?? 0) - (b.label ?? 0);
  });
  return rows.map((g) => [
    ...g.dims,
    ...(config.date ? [String(g.label)] : []),
    ...config.measures.map((m) =>
      aggregate(
        g.points.filter((p) => p.key === m.key),
        m.aggregation,
      ),
    ),
  ]);
}

/** Compares a report with the expected rows (numbers to 1e-9 relative); fails naming the first difference. */
export function expectRows(
  actual: ReportResponse,
  expected: (string | number | null)[][],
  context = '',
): void {
  const rows = actual.dataTable.map((r) => actual.columnLabels.map((l) => r[l] ?? null));
  expect(rows.length, `${context}: number of rows`).toBe(expected.length);
  for (let i = 0; i < rows.length; i++) {
    const a = rows[i]!;
    const e = expected[i]!;
    expect(a.length, `${context}: row ${i} columns`).toBe(e.length);
    for (let j = 0; j < e.length; j++) {
      const av = a[j];
      const ev = e[j];
      const same =
        typeof ev === 'number' && typeof av === 'number'
          ? Math.abs(av - ev) <= 1e-9 * Math.max(1, Math.abs(ev))
          : av === ev;
      if (!same)
        expect(
          av,
          `${context}: row ${i} ${JSON.stringify(e)} column '${actual.columnLabels[j]}'`,
        ).toStrictEqual(ev);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// HTTP

export async function saveView(
  p: Pick<ApiPlatform, 'http'>,
  token: string,
  name: string,
  config: TableViewConfig,
): Promise<TableView> {
  return okJson<TableView>(p.http('/api/tableView', { method: 'POST', token, json: { name, config } }));
}

/** POST {analytics}/apiAnalytics/publicApi/buildReport with the JWT in the query (or the jwt header). */
export function buildReport(
  p: { urls: { analytics: string } },
  jwt: string | null,
  body: unknown,
  options: { via?: 'query' | 'header'; path?: string; contentType?: string | null } = {},
): Promise<Response> {
  const via = options.via ?? 'query';
  const headers: Record<string, string> = {};
  if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
  if (jwt !== null && via === 'header') headers.jwt = jwt;
  const query = jwt !== null && via === 'query' ? `?jwt=${encodeURIComponent(jwt)}` : '';
  return fetch(`${p.urls.analytics}${options.path ?? '/apiAnalytics/publicApi/buildReport'}${query}`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export async function report(
  p: { urls: { analytics: string } },
  jwt: string,
  body: unknown,
): Promise<ReportResponse> {
  return okJson<ReportResponse>(buildReport(p, jwt, body));
}
