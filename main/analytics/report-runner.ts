/**
 * Runs one report on a sql.js database (the report worker's read replica, or any copy of the store):
 * the statistics query, the plan choice, the report statement, and the rows as the report API returns
 * them (dimensions and dates as strings, measures as numbers).
 */
import type { Database, SqlValue } from 'sql.js';
import type { ReportCell } from '../../shared/schemas/table-view.ts';
import { invalidArgument } from '../platform/errors.ts';
import { ANY_PACKED } from '../platform/telemetry-packs.ts';
import {
  choosePlan,
  compileReportQuery,
  compileStatsQuery,
  type HistoryTable,
  type CompiledQuery,
  type PlanStats,
  type ReportPlan,
} from './report-compiler.ts';
import type { ReportSpec } from './report-spec.ts';

export interface ReportResult {
  columnLabels: string[];
  dataTable: Record<string, ReportCell>[];
  /** rows were cut at spec.maxRows (overflow 'truncate') */
  truncated: boolean;
  /** null when the selection holds no points in range (no statement ran) */
  plan: ReportPlan | null;
}

function query(db: Database, q: CompiledQuery): SqlValue[][] {
  const stmt = db.prepare(q.sql);
  try {
    stmt.bind(q.params);
    const rows: SqlValue[][] = [];
    while (stmt.step()) rows.push(stmt.get());
    return rows;
  } finally {
    stmt.free();
  }
}

/** The history reports read: ts_kv, or the view adding packed rows once some are (telemetry-packs.ts). */
function historyTable(db: Database): HistoryTable {
  return query(db, { sql: ANY_PACKED, params: {} }).length > 0 ? 'ts_kv_all' : 'ts_kv';
}

function planStats(db: Database, spec: ReportSpec, history: HistoryTable): PlanStats {
  const [row] = query(db, compileStatsQuery(spec, history));
  const n = (v: SqlValue | undefined) => (v === null || v === undefined ? null : Number(v));
  return {
    devices: n(row?.[0]) ?? 0,
    pairs: n(row?.[1]) ?? 0,
    lo: n(row?.[2]),
    hi: n(row?.[3]),
    estRows: n(row?.[4]) ?? 0,
  };
}

/**
 * Keeps, in the replica's temp schema (never in the store), the ids of the telemetry keys that ever
 * held a text value: the other keys' numeric measures need no per-point type test (about 20% of a
 * report's time). One scan of ts_kv, then a trigger follows every insert the replica applies.
 */
export function trackTextKeys(db: Database): void {
  db.exec(`CREATE TEMP TABLE IF NOT EXISTS text_keys (key_id INTEGER PRIMARY KEY);
    INSERT OR IGNORE INTO temp.text_keys SELECT DISTINCT key_id FROM ts_kv WHERE t = 's' OR t = 'j';
    CREATE TEMP TRIGGER IF NOT EXISTS text_keys_insert AFTER INSERT ON main.ts_kv WHEN NEW.t = 's' OR NEW.t = 'j'
      BEGIN INSERT OR IGNORE INTO temp.text_keys VALUES (NEW.key_id); END;
    CREATE TEMP TRIGGER IF NOT EXISTS text_keys_update AFTER UPDATE ON main.ts_kv WHEN NEW.t = 's' OR NEW.t = 'j'
      BEGIN INSERT OR IGNORE INTO temp.text_keys VALUES (NEW.key_id); END;`);
}

/** The keys that may hold text: from trackTextKeys' table, or null (unknown: any key may). */
export function textKeys(db: Database): Set<string> | null {
  const tracked = query(db, {
    sql: "SELECT 1 FROM sqlite_temp_master WHERE type = 'table' AND name = 'text_keys'",
    params: {},
  });
  if (tracked.length === 0) return null;
  const rows = query(db, {
    sql: 'SELECT key FROM ts_key WHERE key_id IN (SELECT key_id FROM temp.text_keys)',
    params: {},
  });
  return new Set(rows.map((r) => String(r[0])));
}

/** The plan and the report statement this spec runs on this database (null: no data, nothing runs). */
export function prepareReport(
  db: Database,
  spec: ReportSpec,
): { plan: ReportPlan; stats: PlanStats; query: CompiledQuery } | null {
  const history = historyTable(db);
  const stats = planStats(db, spec, history);
  if (stats.lo === null || stats.hi === null) return null;
  const plan = choosePlan(spec, stats);
  const bounds = { lo: stats.lo, hi: stats.hi };
  return {
    plan,
    stats,
    query: compileReportQuery(spec, plan, bounds, spec.maxRows + 1, textKeys(db), history),
  };
}

function text(v: SqlValue): string | null {
  if (v === null) return null;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  return String(v);
}

function measure(v: SqlValue): ReportCell {
  if (v === null || typeof v === 'number') return v;
  if (typeof v === 'string') return v; // LATEST of a text key
  return text(v);
}

export function runReport(db: Database, spec: ReportSpec): ReportResult {
  const { columnLabels } = spec;
  const prepared = prepareReport(db, spec);
  if (!prepared) return { columnLabels, dataTable: [], truncated: false, plan: null };
  let rows = query(db, prepared.query);
  let truncated = false;
  if (rows.length > spec.maxRows) {
    if (spec.overflow === 'error')
      throw invalidArgument(
        `The report has more than ${spec.maxRows} rows: narrow the time range, add filter values or pick a coarser date grouping`,
      );
    rows = rows.slice(0, spec.maxRows);
    truncated = true;
  }
  const dims = spec.dimensions.length + (spec.date ? 1 : 0);
  const dataTable = rows.map((row) => {
    const out: Record<string, ReportCell> = {};
    for (let i = 0; i < columnLabels.length; i++) {
      const v = row[i] ?? null;
      out[columnLabels[i]!] = i < dims ? text(v) : measure(v);
    }
    return out;
  });
  return { columnLabels, dataTable, truncated, plan: prepared.plan };
}
