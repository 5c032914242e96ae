import type { DurableDb, Writer } from '../store/durable-db.ts';

/**
 * Packed time series: the numbers of one entity at one ts under one list of keys (a keyset), one row of
 * ts_pack instead of a ts_kv row per key; ts_pack_latest holds each entity's newest row of a keyset. The
 * calculated fields of a device profile (ten of them, say) cost the store one row a message instead of ten.
 * ts_pack is appended to (rowid order, which is arrival order) and found by its series index: a message's
 * row lands at the end of the table instead of amid its entity's history. The views ts_kv_all and
 * ts_latest_all show packed values as ts_kv and ts_kv_latest rows (migration 102).
 */

/** Keysets at most: beyond, entries are stored as rows (a keyset is a few bytes in memory and in the store). */
export const MAX_KEYSETS = 10_000;
/** Keys in a packed entry at least (fewer: rows) and at most (more: rows). */
export const MIN_PACKED_KEYS = 2;
export const MAX_PACKED_KEYS = 256;
/** rows per INSERT statement: sql.js costs per statement more than per row */
const PACKS_PER_INSERT = 64;
const insertPacksSql = (rows: number) =>
  `INSERT OR REPLACE INTO ts_pack (entity_num, keyset, ts, vals) VALUES ${Array<string>(rows).fill('(?, ?, ?, ?)').join(', ')}`;

/** A value a packed entry can hold: a finite number whose kind (long or double) its JSON text keeps. */
export const isPackable = (v: unknown): v is number =>
  typeof v === 'number' && Number.isFinite(v) && (Number.isSafeInteger(v) || !Number.isInteger(v));

export interface Keyset {
  id: number;
  keyIds: number[];
}

/** The keysets of the store, by their key ids and by key. */
export class KeysetRegistry {
  private readonly bySignature = new Map<string, Keyset>();
  private readonly byId = new Map<number, Keyset>();
  /** key id -> the keysets holding it and its position there */
  private readonly byKey = new Map<number, { keyset: Keyset; pos: number }[]>();
  private readonly insertSql: string[] = [];
  private readonly db: DurableDb;

  constructor(db: DurableDb) {
    this.db = db;
    this.load();
  }

  load(): void {
    this.bySignature.clear();
    this.byId.clear();
    this.byKey.clear();
    for (const r of this.db.all<{ keyset: number; key_ids: string }>('SELECT keyset, key_ids FROM ts_keyset'))
      this.add({ id: r.keyset, keyIds: r.key_ids.split(',').map(Number) }, r.key_ids);
  }

  get size(): number {
    return this.byId.size;
  }

  get(id: number): Keyset | undefined {
    return this.byId.get(id);
  }

  /** The keysets holding the key, with its position in each (none for most keys). */
  holding(keyId: number): readonly { keyset: Keyset; pos: number }[] {
    return this.byKey.get(keyId) ?? [];
  }

  /** The keyset of these key ids (signature: them joined by commas), made in the write when new; null when full. */
  ensure(w: Writer, keyIds: number[], signature: string): Keyset | null {
    const found = this.bySignature.get(signature);
    if (found) return found;
    if (this.byId.size >= MAX_KEYSETS) return null;
    let id = this.byId.size + 1;
    while (this.byId.has(id)) id++;
    const keyset = { id, keyIds: [...keyIds] };
    w.run('INSERT INTO ts_keyset (keyset, key_ids) VALUES (?, ?)', [id, signature]);
    keyIds.forEach((keyId, pos) =>
      w.run('INSERT INTO ts_keyset_key (keyset, pos, key_id, path) VALUES (?, ?, ?, ?)', [
        id,
        pos,
        keyId,
        `$[${pos}]`,
      ]),
    );
    this.add(keyset, signature);
    w.onRollback(() => this.remove(keyset, signature));
    return keyset;
  }

  /** Inserts packed rows (entity_num, keyset, ts, vals; four params a row), up to PACKS_PER_INSERT a statement. */
  insert(w: Writer, params: (number | string)[]): void {
    for (let at = 0; at < params.length; at += PACKS_PER_INSERT * 4) {
      const part =
        params.length <= PACKS_PER_INSERT * 4 ? params : params.slice(at, at + PACKS_PER_INSERT * 4);
      const rows = part.length / 4;
      w.run((this.insertSql[rows] ??= insertPacksSql(rows)), part);
    }
  }

  private add(keyset: Keyset, signature: string): void {
    this.bySignature.set(signature, keyset);
    this.byId.set(keyset.id, keyset);
    keyset.keyIds.forEach((keyId, pos) => {
      const list = this.byKey.get(keyId) ?? [];
      list.push({ keyset, pos });
      this.byKey.set(keyId, list);
    });
  }

  private remove(keyset: Keyset, signature: string): void {
    this.bySignature.delete(signature);
    this.byId.delete(keyset.id);
    for (const keyId of keyset.keyIds) {
      const left = (this.byKey.get(keyId) ?? []).filter((h) => h.keyset !== keyset);
      if (left.length > 0) this.byKey.set(keyId, left);
      else this.byKey.delete(keyId);
    }
  }
}

/** A packed row's values as ts_kv columns (t, v): expanded by the views and by the moves to rows. */
const EXPANDED = `CASE json_type(p.vals, k.path) WHEN 'integer' THEN 'l' ELSE 'd' END, json_extract(p.vals, k.path)`;

/** The packed rows of an entity's keyset (in [?3, ?4) when ranged) as ts_kv rows: before they are deleted. */
export const unpackHistorySql = (ranged: boolean) =>
  `INSERT OR REPLACE INTO ts_kv (entity_num, key_id, ts, t, v)
   SELECT p.entity_num, k.key_id, p.ts, ${EXPANDED} FROM ts_pack p JOIN ts_keyset_key k ON k.keyset = p.keyset
   WHERE p.entity_num = ?1 AND p.keyset = ?2${ranged ? ' AND p.ts >= ?3 AND p.ts < ?4' : ''}`;
export const deletePacksSql = (ranged: boolean) =>
  `DELETE FROM ts_pack WHERE entity_num = ?1 AND keyset = ?2${ranged ? ' AND ts >= ?3 AND ts < ?4' : ''}`;

/** An entity's latest packed row of a keyset as ts_kv_latest rows (where newer): before it is deleted. */
export const UNPACK_LATEST = `INSERT INTO ts_kv_latest (entity_num, key_id, ts, t, v)
   SELECT p.entity_num, k.key_id, p.ts, ${EXPANDED} FROM ts_pack_latest p JOIN ts_keyset_key k ON k.keyset = p.keyset
   WHERE p.entity_num = ?1 AND p.keyset = ?2
   ON CONFLICT (entity_num, key_id) DO UPDATE SET ts = excluded.ts, t = excluded.t, v = excluded.v
   WHERE excluded.ts >= ts_kv_latest.ts`;

/** The tables holding an entity's time series (by entity_num), packed or not. */
export const TELEMETRY_TABLES = ['ts_kv', 'ts_kv_latest', 'ts_pack', 'ts_pack_latest'] as const;

/** Migration 102's statements. */
export const PACKED_SCHEMA = [
  'CREATE TABLE ts_keyset (keyset INTEGER PRIMARY KEY, key_ids TEXT NOT NULL UNIQUE)',
  `CREATE TABLE ts_keyset_key (keyset INTEGER NOT NULL, pos INTEGER NOT NULL, key_id INTEGER NOT NULL,
     path TEXT NOT NULL, PRIMARY KEY (key_id, keyset)) WITHOUT ROWID`,
  `CREATE TABLE ts_pack (entity_num INTEGER NOT NULL, keyset INTEGER NOT NULL, ts INTEGER NOT NULL,
     vals TEXT NOT NULL)`,
  'CREATE UNIQUE INDEX ts_pack_series ON ts_pack (entity_num, keyset, ts)',
  `CREATE TABLE ts_pack_latest (entity_num INTEGER NOT NULL, keyset INTEGER NOT NULL, ts INTEGER NOT NULL,
     vals TEXT NOT NULL, PRIMARY KEY (entity_num, keyset)) WITHOUT ROWID`,
  `CREATE TRIGGER ts_pack_latest_upsert AFTER INSERT ON ts_pack BEGIN
     INSERT INTO ts_pack_latest (entity_num, keyset, ts, vals) VALUES (NEW.entity_num, NEW.keyset, NEW.ts, NEW.vals)
     ON CONFLICT (entity_num, keyset) DO UPDATE SET ts = excluded.ts, vals = excluded.vals
     WHERE excluded.ts >= ts_pack_latest.ts;
   END`,
  `CREATE VIEW ts_kv_all (entity_num, key_id, ts, t, v) AS
     SELECT entity_num, key_id, ts, t, v FROM ts_kv
     UNION ALL
     SELECT p.entity_num, k.key_id, p.ts, ${EXPANDED} FROM ts_keyset_key k JOIN ts_pack p ON p.keyset = k.keyset`,
  `CREATE VIEW ts_latest_all (entity_num, key_id, ts, t, v) AS
     SELECT entity_num, key_id, ts, t, v FROM ts_kv_latest
     UNION ALL
     SELECT p.entity_num, k.key_id, p.ts, ${EXPANDED} FROM ts_keyset_key k JOIN ts_pack_latest p ON p.keyset = k.keyset`,
];

/** A row once something has been packed (a keyset exists), none before. */
export const ANY_PACKED = 'SELECT 1 AS packed FROM ts_keyset LIMIT 1';

/** Where SQL over all history or latest values reads: the tables, or the views once something is packed. */
export function telemetryTables(db: Pick<DurableDb, 'get'>): { history: string; latest: string } {
  const packed = db.get(ANY_PACKED) !== undefined;
  return packed
    ? { history: 'ts_kv_all', latest: 'ts_latest_all' }
    : { history: 'ts_kv', latest: 'ts_kv_latest' };
}
