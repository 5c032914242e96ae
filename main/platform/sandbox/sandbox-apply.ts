import {
  SandboxFormatError,
  type SandboxConflictMode,
  type SandboxImportResult,
  type SandboxIssue,
  type SandboxPlan,
  type SandboxPlanItem,
  type SandboxRow,
} from '../../../shared/schemas/sandbox.ts';
import type { DurableDb, Writer } from '../../store/durable-db.ts';
import type { ParsedSandbox } from './sandbox-read.ts';
import { TELEMETRY_TABLES } from '../telemetry-packs.ts';
import {
  carriedTables,
  DEPENDENT_ROWS,
  ENTITY_TYPES,
  LIST_TABLES,
  NAME_COLUMNS,
  PASSWORD_TABLES,
  tableInfo,
  type CarriedTable,
} from './sandbox-tables.ts';

export interface ApplyOptions {
  /** empty every carried table first (trainer reset, `--replace-all`): the instance becomes the file */
  replaceAll: boolean;
  /** what to do with an entity whose name another entity already has (merge only) */
  onConflict: SandboxConflictMode;
  /** the store's key id of a telemetry key, inside the write (TelemetryRepository.keyId keeps its cache right) */
  keyId: (w: Writer, key: string) => number;
  tenantId: string;
  /** recorded in the same write, so a restart knows whether this import's store part is in */
  importId?: string;
}

/** settings key holding the id of the last import whose store write committed */
export const LAST_IMPORT_KEY = 'sandbox.lastImportId';

const PLAN_ITEMS = 200;

/** The file's tables this store has, with the file's columns checked against the store's. */
function knownTables(db: DurableDb, parsed: ParsedSandbox): { tables: CarriedTable[]; unknown: string[] } {
  const carried = new Map(carriedTables(db, true).map((t) => [t.name, t]));
  const issues: SandboxIssue[] = [];
  const unknown: string[] = [];
  const tables: CarriedTable[] = [];
  for (const t of carried.values()) {
    const chunks = parsed.tables.get(t.name);
    if (!chunks) continue;
    const all = new Set(tableInfo(db, t.name, true).columns);
    for (const chunk of chunks)
      chunk.rows.forEach((row, i) => {
        for (const col of Object.keys(row))
          if (!all.has(col) && col !== 'num')
            issues.push({
              path: `line ${chunk.line}: rows[${i}].${col}`,
              message: `${t.name} has no such column`,
            });
      });
    tables.push(t);
  }
  for (const name of parsed.tables.keys()) if (!carried.has(name)) unknown.push(name);
  if (issues.length) throw new SandboxFormatError(issues.slice(0, 20));
  return { tables, unknown };
}

function rowsOf(parsed: ParsedSandbox, table: string): SandboxRow[] {
  return (parsed.tables.get(table) ?? []).flatMap((c) => c.rows);
}

/** The positions of a list table's rows by their names (rows without a name are not matched). */
function listNames(db: Pick<DurableDb, 'all'>, table: string): Map<string, number> {
  const list = LIST_TABLES[table]!;
  const names = new Map<string, number>();
  for (const row of db.all<SandboxRow>(`SELECT * FROM "${table}"`)) {
    const name = list.name(row);
    if (name !== undefined) names.set(name, Number(row[list.position]));
  }
  return names;
}

/**
 * Merges a list table's rows into the instance's list: a row of a name the list has replaces it in its
 * place, others are appended in the file's order, as long as the list has room. Counts merged and kept out.
 */
function mergeList(w: Writer, table: string, rows: SandboxRow[]): { merged: number; kept: number } {
  const list = LIST_TABLES[table]!;
  const names = listNames(w, table);
  let next =
    (w.get<{ n: number | null }>(`SELECT MAX("${list.position}") AS n FROM "${table}"`)?.n ?? -1) + 1;
  let size = w.get<{ n: number }>(`SELECT COUNT(*) AS n FROM "${table}"`)!.n;
  let merged = 0;
  let kept = 0;
  for (const source of rows) {
    const name = list.name(source);
    let at = name === undefined ? undefined : names.get(name);
    if (at === undefined) {
      if (size >= list.max) {
        kept++;
        continue;
      }
      at = next++;
      size++;
      if (name !== undefined) names.set(name, at);
    }
    const row = { ...source, [list.position]: at };
    const cols = Object.keys(row);
    w.run(
      `INSERT OR REPLACE INTO "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
      cols.map((c) => row[c] ?? null),
    );
    merged++;
  }
  return { merged, kept };
}

/** What importing the file would do: per entity, new, replaced (same id) or conflicting (same name, other id). */
export function planSandbox(db: DurableDb, parsed: ParsedSandbox): SandboxPlan {
  const { tables, unknown } = knownTables(db, parsed);
  const plan: SandboxPlan = {
    header: parsed.header,
    tables: {},
    items: [],
    telemetryRows: parsed.history.length,
    latestRows: parsed.latest.length,
    unknownTables: unknown,
  };
  for (const t of tables) {
    const counts = { new: 0, replace: 0, conflict: 0 };
    const nameCol = NAME_COLUMNS[t.name];
    const hasId = t.key.length === 1 && t.key[0] === 'id';
    const listed = LIST_TABLES[t.name] ? listNames(db, t.name) : undefined;
    for (const row of rowsOf(parsed, t.name)) {
      if (listed) {
        const name = LIST_TABLES[t.name]!.name(row);
        counts[name !== undefined && listed.has(name) ? 'replace' : 'new']++;
        continue;
      }
      let item: SandboxPlanItem | undefined;
      const id = String(row.id ?? '');
      const name = nameCol ? String(row[nameCol] ?? '') : id;
      if (hasId && db.get(`SELECT 1 FROM "${t.name}" WHERE id = ?`, [id]))
        item = { table: t.name, id, name, action: 'replace' };
      else if (nameCol) {
        const other = db.get<{ id: string }>(`SELECT id FROM "${t.name}" WHERE "${nameCol}" = ?`, [
          row[nameCol] ?? null,
        ]);
        item = other
          ? { table: t.name, id, name, action: 'conflict', otherId: other.id }
          : { table: t.name, id, name, action: 'new' };
      } else item = { table: t.name, id, name, action: 'new' };
      counts[item.action]++;
      if (
        hasId &&
        plan.items.length < PLAN_ITEMS &&
        (item.action !== 'new' || plan.items.length < PLAN_ITEMS / 2)
      )
        plan.items.push(item);
    }
    plan.tables[t.name] = counts;
  }
  return plan;
}

const FREE_NAME_TRIES = 1000;
const HISTORY_BATCH = 100;
const valuesCache = new Map<number, string>();
/** "(?, ?, ?, ?, ?), ..." for n rows */
const TS_VALUES = (n: number) => {
  let text = valuesCache.get(n);
  if (!text) valuesCache.set(n, (text = Array.from({ length: n }, () => '(?, ?, ?, ?, ?)').join(', ')));
  return text;
};

/** Work done in one event-loop turn before the import lets other work run (ms). */
const TURN_BUDGET_MS = 8;

/**
 * Applies a read sandbox in ONE write of the store, over many event-loop turns: it is journaled as one
 * record, so a crash at any point leaves either the old state or the whole new one, never a part. Other
 * writes made meanwhile are acknowledged with it. Throws (and changes nothing) on any constraint the
 * rows break.
 */
export async function applySandbox(
  db: DurableDb,
  parsed: ParsedSandbox,
  o: ApplyOptions,
): Promise<SandboxImportResult> {
  const { tables } = knownTables(db, parsed);
  const filePasswords = parsed.header.includes.passwords;
  return db.exclusive(async (w, turn) => {
    let turnStarted = performance.now();
    /** true when this turn's budget is spent (the caller then awaits `next()`) */
    const due = () => performance.now() - turnStarted > TURN_BUDGET_MS;
    const next = async () => {
      await turn();
      turnStarted = performance.now();
    };
    const result: SandboxImportResult = {
      tables: {},
      telemetryRows: 0,
      latestRows: 0,
      renamed: 0,
      kept: 0,
      replacedAll: o.replaceAll,
    };
    // users keep their passwords when the file carries none
    const keptHashes = new Map<string, string | null>();
    if (!filePasswords)
      for (const r of w.all<{ id: string; password_hash: string | null }>(
        'SELECT id, password_hash FROM users',
      ))
        keptHashes.set(r.id, r.password_hash);
    if (o.replaceAll) {
      for (const t of carriedTables(db, true))
        if (filePasswords || !PASSWORD_TABLES.has(t.name)) w.run(`DELETE FROM "${t.name}"`);
      for (const t of TELEMETRY_TABLES) w.run(`DELETE FROM ${t}`);
      w.run('DELETE FROM entity_nums');
    }
    const skipped = new Set<string>();
    const removeEntity = (table: string, id: string) => {
      const num =
        table === 'devices'
          ? w.get<{ num: number }>('SELECT num FROM devices WHERE id = ?', [id])?.num
          : w.get<{ num: number }>('SELECT -num AS num FROM entity_nums WHERE entity_id = ?', [id])?.num;
      if (num !== undefined) {
        for (const t of TELEMETRY_TABLES) w.run(`DELETE FROM ${t} WHERE entity_num = ?`, [num]);
        w.run('DELETE FROM entity_nums WHERE entity_id = ?', [id]);
      }
      for (const [t, col] of DEPENDENT_ROWS) w.run(`DELETE FROM "${t}" WHERE "${col}" = ?`, [id]);
      w.run(`DELETE FROM "${table}" WHERE id = ?`, [id]);
    };
    for (const t of tables) {
      if (!o.replaceAll && LIST_TABLES[t.name]) {
        const { merged, kept } = mergeList(w, t.name, rowsOf(parsed, t.name));
        result.tables[t.name] = merged;
        result.kept += kept;
        continue;
      }
      const nameCol = NAME_COLUMNS[t.name];
      const hasId = t.key.length === 1 && t.key[0] === 'id';
      let count = 0;
      for (const source of rowsOf(parsed, t.name)) {
        if (due()) await next();
        const row: SandboxRow = { ...source };
        delete row.num;
        if (t.name === 'users' && !filePasswords) {
          const hash = keptHashes.get(String(row.id));
          if (hash !== undefined) row.password_hash = hash;
        }
        if (!o.replaceAll) {
          // rows of entities kept out (conflict mode keep) stay out with them
          if (Object.values(row).some((v) => typeof v === 'string' && skipped.has(v))) continue;
          const id = String(row.id ?? '');
          const exists = hasId && w.get(`SELECT 1 FROM "${t.name}" WHERE id = ?`, [id]);
          if (!exists && nameCol) {
            const other = w.get<{ id: string }>(`SELECT id FROM "${t.name}" WHERE "${nameCol}" = ?`, [
              row[nameCol] ?? null,
            ]);
            if (other) {
              if (o.onConflict === 'keep') {
                skipped.add(id);
                result.kept++;
                continue;
              }
              if (o.onConflict === 'replace') removeEntity(t.name, other.id);
              else {
                const base = String(row[nameCol]);
                let i = 1;
                let name = `${base} (imported)`;
                while (w.get(`SELECT 1 FROM "${t.name}" WHERE "${nameCol}" = ?`, [name])) {
                  if (++i > FREE_NAME_TRIES) throw new Error(`No free name for ${t.name} ${base}`);
                  name = `${base} (imported ${i})`;
                }
                row[nameCol] = name;
                result.renamed++;
              }
            }
          }
        }
        const cols = Object.keys(row);
        const quoted = cols.map((c) => `"${c}"`).join(', ');
        const marks = cols.map(() => '?').join(', ');
        const keyed = t.key.every((k) => cols.includes(k));
        const updates = cols.filter((c) => !t.key.includes(c)).map((c) => `"${c}" = excluded."${c}"`);
        const sql =
          !o.replaceAll && keyed && updates.length
            ? `INSERT INTO "${t.name}" (${quoted}) VALUES (${marks}) ON CONFLICT (${t.key.map((k) => `"${k}"`).join(', ')}) DO UPDATE SET ${updates.join(', ')}`
            : `INSERT OR REPLACE INTO "${t.name}" (${quoted}) VALUES (${marks})`;
        w.run(
          sql,
          cols.map((c) => row[c]),
        );
        count++;
      }
      result.tables[t.name] = count;
    }

    // telemetry, by entity id: a device's num, or a number given to any other entity
    const typeOf = new Map<string, string>();
    for (const [table, type] of Object.entries(ENTITY_TYPES))
      if (tables.some((t) => t.name === table))
        for (const r of rowsOf(parsed, table)) typeOf.set(String(r.id), type);
    const nums = new Map<string, number | null>();
    const numOf = (id: string): number | null => {
      let num = nums.get(id);
      if (num !== undefined) return num;
      num = w.get<{ num: number }>('SELECT num FROM devices WHERE id = ?', [id])?.num ?? null;
      if (num === null) {
        const own = w.get<{ num: number }>('SELECT num FROM entity_nums WHERE entity_id = ?', [id]);
        let type = typeOf.get(id) ?? (id === o.tenantId ? 'TENANT' : undefined);
        if (!own && !type)
          for (const [table, t] of Object.entries(ENTITY_TYPES))
            if (table !== 'devices' && w.get(`SELECT 1 FROM "${table}" WHERE id = ?`, [id])) type = t;
        if (own) num = -own.num;
        else if (type) {
          w.run('INSERT INTO entity_nums (entity_type, entity_id) VALUES (?, ?)', [type, id]);
          num = -Number(w.get<{ n: number }>('SELECT last_insert_rowid() AS n')!.n);
        }
      }
      nums.set(id, num);
      return num;
    };
    const keys = new Map<string, number>();
    const keyOf = (key: string) => {
      let id = keys.get(key);
      if (id === undefined) keys.set(key, (id = o.keyId(w, key)));
      return id;
    };
    // Emptied first, the latest values are the file's own: the trigger that keeps them need not run per row.
    const trigger = o.replaceAll
      ? w.get<{ name: string; sql: string }>(
          "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'ts_kv'",
        )
      : undefined;
    // dropped only within the import's own turns: others' rows written between them keep their latest values
    const dropTrigger = () => trigger && w.run(`DROP TRIGGER "${trigger.name}"`);
    const restoreTrigger = () => trigger && w.run(trigger.sql);
    dropTrigger();
    // many rows a statement: one journal entry and one crossing into sql.js per HISTORY_BATCH rows
    let batch: (string | number | null)[] = [];
    const flush = () => {
      const n = batch.length / 5;
      if (n === 0) return;
      w.run(`INSERT OR REPLACE INTO ts_kv (entity_num, key_id, ts, t, v) VALUES ${TS_VALUES(n)}`, batch);
      batch = [];
    };
    for (const [id, key, ts, t, v] of parsed.history) {
      if (skipped.has(id)) continue;
      const num = numOf(id);
      if (num === null) continue;
      batch.push(num, keyOf(key), ts, t, v);
      result.telemetryRows++;
      if (batch.length === HISTORY_BATCH * 5) {
        flush();
        if (due()) {
          restoreTrigger();
          await next();
          dropTrigger();
        }
      }
    }
    flush();
    restoreTrigger();
    for (const [id, key, ts, t, v] of parsed.latest) {
      if (due()) await next();
      if (skipped.has(id)) continue;
      const num = numOf(id);
      if (num === null) continue;
      w.run(
        `INSERT INTO ts_kv_latest (entity_num, key_id, ts, t, v) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (entity_num, key_id) DO UPDATE SET ts = excluded.ts, t = excluded.t, v = excluded.v
         WHERE excluded.ts >= ts_kv_latest.ts`,
        [num, keyOf(key), ts, t, v],
      );
      result.latestRows++;
    }
    if (o.importId)
      w.run('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)', [LAST_IMPORT_KEY, o.importId]);
    return result;
  });
}
