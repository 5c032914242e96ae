/**
 * The report query compiler: a ReportSpec becomes one SQL statement over devices, device_profiles,
 * attributes, relations and assets (the ASSET dimension), ts_key and ts_kv, with the date groupings computed in SQL (UTC shifted by a fixed offset).
 *
 * Shape of the statement (CTEs):
 *   devs   the selected devices (profiles / device list, customer, filters) with their dimension values
 *   part   partial aggregates per (device, bucket): sum, count, min, max, first / last timestamps, ...
 *          - "bucket" plan: the time buckets of the grouping are listed (recursive CTE) and each
 *            (device, bucket, key) is one primary-key range seek whose aggregates come back as a JSON
 *            array (SQLite has no LATERAL join). No sort of the raw points: fast for coarse groupings.
 *          - "scan" plan: the points are read per device and key and grouped by the truncated
 *            timestamp (a sort of the points): better for fine groupings (RAW, MINUTE) and sparse data.
 *   dg     per (device, row of the report): the partials merged, the label of the date column computed
 *   dgv    values at the first / last timestamps (DELTA, LATEST) by primary-key lookup
 *   dgw    LATEST's pick per row (window function)
 *   grp    the report rows: dimensions, date label, measures
 *   uqN    UNIQ needs distinct values over the raw points of a row: one grouped CTE per UNIQ key
 * A small statistics query (bounds of the data in range and a density estimate) runs first and picks
 * the plan by estimated cost; both plans return the same rows.
 */
import {
  ASSET_FIELD_LEVELS,
  type DateGrouping,
  type MeasureAggregation,
} from '../../shared/schemas/table-view.ts';
import type { ReportField, ReportSpec } from './report-spec.ts';

export type ReportPlan = 'bucket' | 'scan';

export interface CompiledQuery {
  sql: string;
  /** named parameters (:p0, :p1, ...): always text */
  params: Record<string, string>;
}

export interface PlanStats {
  /** selected devices */
  devices: number;
  /** (device, key) pairs */
  pairs: number;
  /** first and last timestamp of the selected points in [startTs, endTs), null when none */
  lo: number | null;
  hi: number | null;
  /** estimated number of points in range */
  estRows: number;
}

class Params {
  readonly values: Record<string, string> = {};
  private n = 0;
  add(value: string): string {
    const name = `:p${this.n++}`;
    this.values[name] = value;
    return name;
  }
  list(values: string[]): string {
    return `(SELECT value FROM json_each(${this.add(JSON.stringify(values))}))`;
  }
}

/** An integer literal; everything numeric is inlined (sql.js would bind large numbers as REAL). */
function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  return String(n);
}

const NUMERIC = "k.t <> 's' AND k.t <> 'j'";

// ---------------------------------------------------------------------------------------------------
// Date groupings

type BucketKind = 'raw' | 'fixed' | 'week' | 'month' | 'year';

const BUCKETS: Record<DateGrouping, { kind: BucketKind; ms: number }> = {
  RAW: { kind: 'raw', ms: 1 },
  MINUTE: { kind: 'fixed', ms: 60_000 },
  HOUR: { kind: 'fixed', ms: 3_600_000 },
  FULL_HOUR: { kind: 'fixed', ms: 3_600_000 },
  DAY: { kind: 'fixed', ms: 86_400_000 },
  DATE: { kind: 'fixed', ms: 86_400_000 },
  FULL_DATE: { kind: 'fixed', ms: 86_400_000 },
  START_OF_WEEK: { kind: 'week', ms: 604_800_000 },
  WEEK_OF_YEAR: { kind: 'week', ms: 604_800_000 },
  MONTH: { kind: 'month', ms: 2_629_746_000 },
  QUARTER: { kind: 'month', ms: 2_629_746_000 },
  YEARMONTH: { kind: 'month', ms: 2_629_746_000 },
  YEAR: { kind: 'year', ms: 31_556_952_000 },
};

class DateSql {
  private readonly grouping: DateGrouping;
  private readonly offsetMs: number;
  constructor(grouping: DateGrouping, tzOffsetMinutes: number) {
    this.grouping = grouping;
    this.offsetMs = tzOffsetMinutes * 60_000;
  }

  private local(x: string): string {
    return this.offsetMs === 0 ? `(${x})` : `(${x} + ${int(this.offsetMs)})`;
  }
  private utc(x: string): string {
    return this.offsetMs === 0 ? `(${x})` : `(${x} - ${int(this.offsetMs)})`;
  }
  private calendar(x: string, modifier: string): string {
    return this.utc(
      `CAST(strftime('%s', ${this.local(x)} / 1000, 'unixepoch', '${modifier}') AS INTEGER) * 1000`,
    );
  }
  private part(x: string, format: string): string {
    return `CAST(strftime('${format}', ${this.local(x)} / 1000, 'unixepoch') AS INTEGER)`;
  }

  /** The start (epoch ms) of the bucket holding timestamp x. */
  trunc(x: string): string {
    const { kind, ms } = BUCKETS[this.grouping];
    const l = this.local(x);
    switch (kind) {
      case 'raw':
        return x;
      case 'fixed':
        return this.utc(`${l} / ${int(ms)} * ${int(ms)}`);
      case 'week': // ISO weeks start on Monday; day 0 (1970-01-01) was a Thursday
        return this.utc(`(${l} / 86400000 - (${l} / 86400000 + 3) % 7) * 86400000`);
      case 'month':
        return this.calendar(x, 'start of month');
      case 'year':
        return this.calendar(x, 'start of year');
    }
  }

  /** The start of the bucket after the one starting at s. */
  next(s: string): string {
    const { kind, ms } = BUCKETS[this.grouping];
    if (kind === 'month') return this.calendar(s, '+1 month');
    if (kind === 'year') return this.calendar(s, '+1 year');
    return `(${s} + ${int(ms)})`;
  }

  /** The value of the date column for the bucket starting at g. */
  label(g: string): string {
    const l = this.local(g);
    switch (this.grouping) {
      case 'RAW':
      case 'MINUTE':
      case 'FULL_HOUR':
      case 'FULL_DATE':
      case 'START_OF_WEEK':
      case 'YEARMONTH':
        return g;
      case 'HOUR':
        return `(${l} / 3600000 % 24)`;
      case 'DAY':
        return `((${l} / 86400000 + 3) % 7 + 1)`;
      case 'DATE':
        return this.part(g, '%d');
      case 'WEEK_OF_YEAR': // the ISO week is the week of its Thursday's year: (day of year of Thursday - 1) / 7 + 1
        return `((CAST(strftime('%j', (${l} / 86400000 + 3) * 86400, 'unixepoch') AS INTEGER) - 1) / 7 + 1)`;
      case 'MONTH':
        return this.part(g, '%m');
      case 'QUARTER':
        return `((${this.part(g, '%m')} + 2) / 3)`;
      case 'YEAR':
        return this.part(g, '%Y');
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Devices and dimensions

const SCOPE_ORDER = "CASE a.scope WHEN 'SERVER_SCOPE' THEN 0 WHEN 'SHARED_SCOPE' THEN 1 ELSE 2 END";

function fieldSql(f: ReportField, p: Params): string {
  switch (f.field) {
    case 'DEVICE_NAME':
      return 'd.name';
    case 'DEVICE_PROFILE':
      return 'COALESCE((SELECT dp.name FROM device_profiles dp WHERE dp.id = d.device_profile_id), d.type)';
    case 'ASSET': {
      // the nearest asset above the device (each level up through the relation type), bounded in depth
      const relation = p.add(f.relationType ?? 'Contains');
      const type = f.assetType ? ` AND a.type = ${p.add(f.assetType)}` : '';
      return (
        `(WITH RECURSIVE up(id, type, lvl) AS (` +
        `SELECT r.from_id, r.from_type, 1 FROM relations r WHERE r.to_id = d.id AND r.to_type = 'DEVICE' AND r.type_group = 'COMMON' AND r.type = ${relation} ` +
        `UNION SELECT r.from_id, r.from_type, up.lvl + 1 FROM relations r JOIN up ON r.to_id = up.id AND r.to_type = up.type ` +
        `WHERE up.lvl < ${int(ASSET_FIELD_LEVELS)} AND r.type_group = 'COMMON' AND r.type = ${relation}) ` +
        `SELECT a.name FROM up JOIN assets a ON a.id = up.id WHERE up.type = 'ASSET'${type} ORDER BY up.lvl, a.name LIMIT 1)`
      );
    }
    case 'ATTRIBUTE': {
      const scope = f.scope ? ` AND a.scope = ${p.add(f.scope)}` : '';
      return (
        `(SELECT CASE a.t WHEN 'b' THEN CASE WHEN a.v THEN 'true' ELSE 'false' END ELSE CAST(a.v AS TEXT) END ` +
        `FROM attributes a WHERE a.entity_id = d.id AND a.key = ${p.add(f.key ?? '')}${scope} ORDER BY ${SCOPE_ORDER} LIMIT 1)`
      );
    }
  }
}

function devicesCte(spec: ReportSpec, p: Params): string {
  const cols = ['d.num AS num', ...spec.dimensions.map((f, i) => `${fieldSql(f, p)} AS c${i}`)];
  const where: string[] = [];
  const selection: string[] = [];
  if (spec.profileIds.length > 0) selection.push(`d.device_profile_id IN ${p.list(spec.profileIds)}`);
  if (spec.deviceIds.length > 0) selection.push(`d.id IN ${p.list(spec.deviceIds)}`);
  if (selection.length > 0) where.push(`(${selection.join(' OR ')})`);
  if (spec.customerId !== null) where.push(`d.customer_id = ${p.add(spec.customerId)}`);
  for (const f of spec.filters) where.push(`${fieldSql(f, p)} IN ${p.list(f.values)}`);
  return `devs AS MATERIALIZED (SELECT ${cols.join(', ')} FROM devices d${where.length ? ` WHERE ${where.join(' AND ')}` : ''})`;
}

// ---------------------------------------------------------------------------------------------------
// Measures and their partial aggregates

type Partial = 's' | 'nn' | 'mn' | 'mx' | 't0' | 't1' | 'n' | 'tl';
const NUMERIC_PARTIALS: Partial[] = ['s', 'nn', 'mn', 'mx', 't0', 't1'];
const ANY_PARTIALS: Partial[] = ['n', 'tl'];
const PARTIAL_SQL: Record<Partial, string> = {
  s: 'TOTAL(k.v)',
  nn: 'COUNT(*)',
  mn: 'MIN(k.v)',
  mx: 'MAX(k.v)',
  t0: 'MIN(k.ts)',
  t1: 'MAX(k.ts)',
  n: 'COUNT(*)',
  tl: 'MAX(k.ts)',
};
const PARTIAL_MERGE: Record<Partial, string> = {
  s: 'SUM',
  nn: 'SUM',
  mn: 'MIN',
  mx: 'MAX',
  t0: 'MIN',
  t1: 'MAX',
  n: 'SUM',
  tl: 'MAX',
};
const NEEDS: Record<MeasureAggregation, Partial[]> = {
  AVG: ['s', 'nn'],
  SUM: ['s', 'nn'],
  MIN: ['mn'],
  MAX: ['mx'],
  COUNT: ['n'],
  UNIQ: ['n'],
  DELTA: ['t0', 't1'],
  LATEST: ['tl'],
};

interface KeyPlan {
  key: string;
  /** the key has never held text: no type filter, one read for every partial */
  numericOnly: boolean;
  /** the key's id, as a constant subquery */
  kid: string;
  partials: Partial[];
  delta: boolean;
  latest: boolean;
  uniq: boolean;
}

interface Branch {
  key: number;
  /** only numeric points (the numeric partials of a key that may hold text) */
  typeFilter: boolean;
  partials: Partial[];
}

function keyPlans(spec: ReportSpec, p: Params, textKeys: ReadonlySet<string> | null): KeyPlan[] {
  const plans = new Map<string, KeyPlan>();
  for (const m of spec.measures) {
    let plan = plans.get(m.key);
    if (!plan) {
      plan = {
        key: m.key,
        numericOnly: textKeys !== null && !textKeys.has(m.key),
        kid: `(SELECT key_id FROM ts_key WHERE key = ${p.add(m.key)})`,
        partials: [],
        delta: false,
        latest: false,
        uniq: false,
      };
      plans.set(m.key, plan);
    }
    for (const need of NEEDS[m.aggregation]) if (!plan.partials.includes(need)) plan.partials.push(need);
    if (m.aggregation === 'DELTA') plan.delta = true;
    if (m.aggregation === 'LATEST') plan.latest = true;
    if (m.aggregation === 'UNIQ') plan.uniq = true;
  }
  return [...plans.values()];
}

function branches(keys: KeyPlan[]): Branch[] {
  const out: Branch[] = [];
  keys.forEach((k, key) => {
    if (k.numericOnly) {
      out.push({ key, typeFilter: false, partials: k.partials });
      return;
    }
    const numeric = NUMERIC_PARTIALS.filter((x) => k.partials.includes(x));
    const any = ANY_PARTIALS.filter((x) => k.partials.includes(x));
    if (numeric.length > 0) out.push({ key, typeFilter: true, partials: numeric });
    if (any.length > 0) out.push({ key, typeFilter: false, partials: any });
  });
  return out;
}

const col = (key: number, partial: string) => `p${key}_${partial}`;

function allPartialColumns(keys: KeyPlan[]): string[] {
  return keys.flatMap((k, i) => k.partials.map((x) => col(i, x)));
}

// ---------------------------------------------------------------------------------------------------
// Statements

/** Bounds of the selected data in range and a density estimate (the 64th point of each series), for the plan. */
/** history: the table of time series, or the view adding packed rows (telemetry-packs.ts) when there are some */
export function compileStatsQuery(spec: ReportSpec, history: HistoryTable = 'ts_kv'): CompiledQuery {
  const p = new Params();
  const keys = [...new Set(spec.measures.map((m) => m.key))];
  const range = `k.ts >= ${int(spec.startTs)} AND k.ts < ${int(spec.endTs)}`;
  const series = `FROM ${history} k WHERE k.entity_num = devs.num AND k.key_id = ks.kid AND ${range}`;
  const sql = `WITH ${devicesCte(spec, p)},
ks(kid) AS (SELECT key_id FROM ts_key WHERE key IN ${p.list(keys)}),
st AS (SELECT (SELECT MIN(k.ts) ${series}) AS lo, (SELECT MAX(k.ts) ${series}) AS hi,
  (SELECT k.ts ${series} ORDER BY k.ts LIMIT 1 OFFSET 63) AS t64
  FROM devs CROSS JOIN ks)
SELECT (SELECT COUNT(*) FROM devs) AS devices, COUNT(*) AS pairs, MIN(lo) AS lo, MAX(hi) AS hi,
  TOTAL(CASE WHEN lo IS NULL THEN 0 WHEN t64 IS NULL THEN 32 ELSE 64.0 * (hi - lo + 1) / (t64 - lo + 1) END) AS est
FROM st`;
  return { sql, params: p.values };
}

/** Relative costs measured on sql.js: reading a point ~1, a point through the sort ~4, a range seek ~20. */
const COST = { read: 1.3, sorted: 4, seek: 20 };

/** The cheaper plan for this spec and data; forced by spec.plan in tests. */
export function choosePlan(spec: ReportSpec, stats: PlanStats): ReportPlan {
  if (spec.date === 'RAW') return 'scan';
  if (spec.plan) return spec.plan;
  if (stats.lo === null || stats.hi === null) return 'bucket';
  const span = stats.hi - stats.lo + 1;
  const buckets = spec.date ? Math.ceil(span / BUCKETS[spec.date].ms) + 1 : 1;
  const bucketCost = stats.estRows * COST.read + stats.pairs * buckets * COST.seek;
  const scanCost = stats.estRows * COST.sorted;
  return bucketCost <= scanCost ? 'bucket' : 'scan';
}

/**
 * The report statement. Columns: c0.. (dimensions), lbl (date, when the spec has one), m0.. (measures).
 * textKeys: the keys that may hold text values (null: unknown, any may); the others skip the type filter.
 */
export type HistoryTable = 'ts_kv' | 'ts_kv_all';

export function compileReportQuery(
  spec: ReportSpec,
  plan: ReportPlan,
  bounds: { lo: number; hi: number },
  limit: number,
  textKeys: ReadonlySet<string> | null = null,
  history: HistoryTable = 'ts_kv',
): CompiledQuery {
  const p = new Params();
  const keys = keyPlans(spec, p, textKeys);
  const date = spec.date ? new DateSql(spec.date, spec.tzOffsetMinutes) : null;
  const dims = spec.dimensions.map((_, i) => `c${i}`);
  const LO = int(bounds.lo);
  const HI = int(bounds.hi + 1);
  const ctes = [devicesCte(spec, p)];
  const partCols = allPartialColumns(keys);
  const effectivePlan: ReportPlan = spec.date === 'RAW' ? 'scan' : plan;

  if (effectivePlan === 'bucket') {
    if (date) {
      const start = date.trunc(LO);
      ctes.push(
        `b0(s, e) AS (SELECT ${start}, ${date.next(start)} UNION ALL SELECT e, ${date.next('e')} FROM b0 WHERE e < ${HI})`,
        `b AS MATERIALIZED (SELECT s, MAX(s, ${LO}) AS lo, MIN(e, ${HI}) AS hi FROM b0)`,
      );
    } else {
      ctes.push(`b(s, lo, hi) AS (SELECT NULL, ${LO}, ${HI})`);
    }
    const bs = branches(keys);
    const seeks = bs.map((br, j) => {
      const values = br.partials.map((x) => PARTIAL_SQL[x]).join(', ');
      const filter = br.typeFilter ? ` AND ${NUMERIC}` : '';
      return (
        `(SELECT CASE WHEN COUNT(*) > 0 THEN json_array(${values}) END FROM ${history} k ` +
        `WHERE k.entity_num = devs.num AND k.key_id = ${keys[br.key]!.kid} AND k.ts >= b.lo AND k.ts < b.hi${filter}) AS j${j}`
      );
    });
    // MATERIALIZED: flattened into part, each JSON unpacking would run the seek again.
    ctes.push(
      `raw1 AS MATERIALIZED (SELECT devs.num AS e, b.s AS g, ${seeks.join(', ')} FROM devs CROSS JOIN b)`,
    );
    const unpack = bs.flatMap((br, j) => br.partials.map((x, i) => `j${j} ->> ${i} AS ${col(br.key, x)}`));
    ctes.push(
      `part AS (SELECT e, g, ${unpack.join(', ')} FROM raw1 WHERE ${bs.map((_, j) => `j${j} IS NOT NULL`).join(' OR ')})`,
    );
  } else {
    const g = date ? date.trunc('k.ts') : 'NULL';
    const selects = branches(keys).map((br) => {
      const values = partCols.map((c) => {
        const own = br.partials.find((x) => col(br.key, x) === c);
        return `${own ? PARTIAL_SQL[own] : 'NULL'} AS ${c}`;
      });
      const filter = br.typeFilter ? ` AND ${NUMERIC}` : '';
      return (
        `SELECT k.entity_num AS e, ${g} AS g, ${values.join(', ')} FROM devs CROSS JOIN ${history} k ON k.entity_num = devs.num ` +
        `WHERE k.key_id = ${keys[br.key]!.kid} AND k.ts >= ${LO} AND k.ts < ${HI}${filter} GROUP BY k.entity_num, g`
      );
    });
    if (selects.length === 1) ctes.push(`part AS (${selects[0]})`);
    else
      ctes.push(
        `part AS (SELECT e, g, ${partCols.map((c) => `MAX(${c}) AS ${c}`).join(', ')} FROM (${selects.join(' UNION ALL ')}) GROUP BY e, g)`,
      );
  }

  const lbl = date ? date.label('part.g') : 'NULL';
  const merged = keys.flatMap((k, i) =>
    k.partials.map((x) => `${PARTIAL_MERGE[x]}(${col(i, x)}) AS ${col(i, x)}`),
  );
  ctes.push(
    `dg AS (SELECT part.e AS e, ${dims.map((c) => `devs.${c} AS ${c}, `).join('')}${lbl} AS lbl, ${merged.join(', ')} ` +
      `FROM part JOIN devs ON devs.num = part.e GROUP BY part.e, lbl)`,
  );
  let source = 'dg';
  const lookups: string[] = [];
  const at = (i: number, ts: string, name: string) =>
    `(SELECT k.v FROM ${history} k WHERE k.entity_num = dg.e AND k.key_id = ${keys[i]!.kid} AND k.ts = dg.${col(i, ts)}) AS ${col(i, name)}`;
  keys.forEach((k, i) => {
    if (k.delta) lookups.push(at(i, 't0', 'v0'), at(i, 't1', 'v1'));
    if (k.latest) lookups.push(at(i, 'tl', 'vl'));
  });
  if (lookups.length > 0) {
    ctes.push(`dgv AS MATERIALIZED (SELECT dg.*, ${lookups.join(', ')} FROM dg)`);
    source = 'dgv';
  }
  const partition = [...dims, 'lbl'].join(', ');
  const windows = keys.flatMap((k, i) =>
    k.latest
      ? [
          `ROW_NUMBER() OVER (PARTITION BY ${partition} ORDER BY ${col(i, 'tl')} DESC, ${col(i, 'vl')} DESC) AS ${col(i, 'rn')}`,
        ]
      : [],
  );
  if (windows.length > 0) {
    ctes.push(`dgw AS (SELECT ${source}.*, ${windows.join(', ')} FROM ${source})`);
    source = 'dgw';
  }

  const keyIndex = new Map(keys.map((k, i) => [k.key, i]));
  const uniq: string[] = [];
  const measures = spec.measures.map((m, j) => {
    const i = keyIndex.get(m.key)!;
    const c = (x: string) => col(i, x);
    switch (m.aggregation) {
      case 'AVG':
        return `SUM(${c('s')}) / SUM(${c('nn')}) AS m${j}`;
      case 'SUM':
        return `CASE WHEN SUM(${c('nn')}) > 0 THEN SUM(${c('s')}) END AS m${j}`;
      case 'MIN':
        return `MIN(${c('mn')}) AS m${j}`;
      case 'MAX':
        return `MAX(${c('mx')}) AS m${j}`;
      case 'COUNT':
        return `SUM(${c('n')}) AS m${j}`;
      case 'DELTA':
        return `SUM(${c('v1')} - ${c('v0')}) AS m${j}`;
      case 'LATEST':
        return `MAX(CASE WHEN ${c('rn')} = 1 THEN ${c('vl')} END) AS m${j}`;
      case 'UNIQ': {
        const u = `uq${uniq.length}`;
        const rowLabel = date ? date.label(date.trunc('k.ts')) : 'NULL';
        ctes.push(
          `${u} AS (SELECT ${dims.map((d) => `devs.${d} AS ${d}, `).join('')}${rowLabel} AS lbl, COUNT(DISTINCT k.v) AS u ` +
            `FROM devs CROSS JOIN ${history} k ON k.entity_num = devs.num WHERE k.key_id = ${keys[i]!.kid} AND k.ts >= ${LO} AND k.ts < ${HI} ` +
            `GROUP BY ${[...dims, 'lbl'].join(', ')})`,
        );
        uniq.push(u);
        return `NULL AS m${j}`;
      }
    }
  });
  ctes.push(
    `grp AS (SELECT ${[...dims, 'lbl', ...measures].join(', ')} FROM ${source} GROUP BY ${partition})`,
  );

  const joins = uniq
    .map((u) => {
      const on = [...dims, 'lbl'].map((d) => `${u}.${d} IS grp.${d}`).join(' AND ');
      return ` LEFT JOIN ${u} ON ${on}`;
    })
    .join('');
  let u = 0;
  const outMeasures = spec.measures.map((m, j) =>
    m.aggregation === 'UNIQ' ? `${uniq[u++]}.u` : `grp.m${j}`,
  );
  const out = [...dims.map((d) => `grp.${d}`), ...(date ? ['grp.lbl'] : []), ...outMeasures];
  const order = [...dims.map((d) => `grp.${d}`), 'grp.lbl'].join(', ');
  const sql = `WITH RECURSIVE ${ctes.join(',\n')}\nSELECT ${out.join(', ')} FROM grp${joins} ORDER BY ${order} LIMIT ${int(limit)}`;
  return { sql, params: p.values };
}

/** The statement with its parameters written in as SQL literals (for the sqlite3 command and EXPLAIN). */
export function inlineParams(query: CompiledQuery): string {
  return query.sql.replace(/:p\d+\b/g, (name) => {
    const value = query.params[name];
    if (value === undefined) throw new Error(`no value for ${name}`);
    return `'${value.replace(/'/g, "''")}'`;
  });
}
