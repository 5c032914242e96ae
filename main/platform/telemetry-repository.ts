import type { SqlValue } from 'sql.js';
import type { DurableDb, Param, Writer } from '../store/durable-db.ts';
import { decodeKv, encodeKv, kvAsString, type KvValue } from './kv-value.ts';
import {
  deletePacksSql,
  isPackable,
  type Keyset,
  KeysetRegistry,
  MAX_PACKED_KEYS,
  MIN_PACKED_KEYS,
  TELEMETRY_TABLES,
  unpackHistorySql,
  UNPACK_LATEST,
} from './telemetry-packs.ts';

export interface TsEntry {
  ts: number;
  values: Record<string, unknown>;
}

export interface TsPoint {
  ts: number;
  value: KvValue;
}

export type Aggregation = 'NONE' | 'AVG' | 'MIN' | 'MAX' | 'SUM' | 'COUNT';

export interface HistoryQuery {
  keys: string[];
  startTs: number;
  endTs: number;
  limit: number;
  agg: Aggregation;
  interval: number;
  orderBy: 'ASC' | 'DESC';
}

/** a series of ts_kv or ts_pack (the first two columns of its key: the entity, then the key or keyset) */
interface SeriesCursor {
  entityNum: number;
  series: number;
}
const FIRST_SERIES: SeriesCursor = { entityNum: Number.MIN_SAFE_INTEGER, series: Number.MIN_SAFE_INTEGER };
/** rows a retention write drops at most (a series visited counts as one): a few ms of work */
export const PURGE_ROWS_PER_WRITE = 2000;
/** How retention walks a table of history: its series one by one, each by seeks on its key. */
interface PurgedTable {
  /** the first series at or after (?, ?) */
  next: string;
  /** the series' rows before ?3, at most ?4 + 1 of them, oldest first (the subquery bounds the range) */
  purge: string;
}
const purgedTable = (table: string, series: string): PurgedTable => ({
  next: `SELECT entity_num, ${series} AS series FROM ${table} WHERE (entity_num, ${series}) >= (?, ?) ORDER BY entity_num, ${series} LIMIT 1`,
  purge: `DELETE FROM ${table} WHERE entity_num = ?1 AND ${series} = ?2 AND ts < ?3 AND ts <= COALESCE(
  (SELECT ts FROM ${table} WHERE entity_num = ?1 AND ${series} = ?2 AND ts < ?3 ORDER BY ts LIMIT 1 OFFSET ?4), ?3)`,
});
const PURGED_ROWS = purgedTable('ts_kv', 'key_id');
const PURGED_PACKS = purgedTable('ts_pack', 'keyset');
const INSERT_TS = 'INSERT OR REPLACE INTO ts_kv (entity_num, key_id, ts, t, v) VALUES (?, ?, ?, ?, ?)';
/** saveMany's datapoints per statement: sql.js costs per statement more than per row */
const ROWS_PER_INSERT = 64;
const insertRowsSql = (rows: number) =>
  `INSERT OR REPLACE INTO ts_kv (entity_num, key_id, ts, t, v) VALUES ${Array<string>(rows).fill('(?, ?, ?, ?, ?)').join(', ')}`;

/** Time series history and latest values, keyed by the device's integer number and a key dictionary. */
export class TelemetryRepository {
  private readonly keyIds = new Map<string, number>();
  private readonly keyNames = new Map<number, string>();
  /** saveMany's statements by their number of rows */
  private readonly insertSql: string[] = [];
  private readonly db: DurableDb;
  private readonly keysets: KeysetRegistry;
  /** the keys of the last entry packed, and their keyset */
  private lastPack: { keys: string[]; keyset: Keyset } | null = null;
  private deletedEntities = 0;

  constructor(db: DurableDb) {
    this.db = db;
    this.loadKeys();
    this.keysets = new KeysetRegistry(db);
  }

  /** Forgets what it cached of the database, which was replaced as a whole (trainer reset). */
  reload(): void {
    this.keyIds.clear();
    this.keyNames.clear();
    this.deletedEntities++;
    this.loadKeys();
    this.keysets.load();
    this.lastPack = null;
  }

  private loadKeys(): void {
    for (const row of this.db.all<{ key_id: number; key: string }>('SELECT key_id, key FROM ts_key')) {
      this.keyIds.set(row.key, row.key_id);
      this.keyNames.set(row.key_id, row.key);
    }
  }

  keyId(w: Writer, key: string): number {
    let id = this.keyIds.get(key);
    if (id === undefined) {
      id = this.keyIds.size + 1;
      while (this.keyNames.has(id)) id++;
      w.run('INSERT INTO ts_key (key_id, key) VALUES (?, ?)', [id, key]);
      const newId = id;
      this.keyIds.set(key, newId);
      this.keyNames.set(newId, key);
      w.onRollback(() => {
        this.keyIds.delete(key);
        this.keyNames.delete(newId);
      });
    }
    return id;
  }

  /** Stores entries inside the caller's write; returns the number of datapoints stored. */
  save(w: Writer, entityNum: number, entries: TsEntry[]): number {
    let count = 0;
    for (const entry of entries) {
      for (const [key, value] of Object.entries(entry.values)) {
        if (value === undefined) continue;
        const { t, v } = encodeKv(value);
        const keyId = this.keyId(w, key);
        // ts_kv_latest follows through the trigger of migration 5.
        w.run(INSERT_TS, [entityNum, keyId, entry.ts, t, v]);
        count++;
      }
    }
    return count;
  }

  /**
   * Stores several entities' entries inside the caller's write, as save() would for every reader, up to
   * ROWS_PER_INSERT datapoints per statement; an entry of numbers only (calculated fields' results) is
   * packed into one row (telemetry-packs.ts). Returns the number of datapoints stored.
   */
  saveMany(w: Writer, items: { num: number; entries: TsEntry[] }[]): number {
    let params: Param[] = [];
    let rows = 0;
    let count = 0;
    const packs: (number | string)[] = [];
    const insert = () => {
      w.run((this.insertSql[rows] ??= insertRowsSql(rows)), params);
      params = [];
      rows = 0;
    };
    for (const { num, entries } of items)
      for (const entry of entries) {
        const packed = this.pack(w, entry.values);
        if (packed) {
          packs.push(num, packed.keyset, entry.ts, packed.vals);
          count += packed.count;
          continue;
        }
        for (const key in entry.values) {
          const value = entry.values[key];
          if (value === undefined) continue;
          const { t, v } = encodeKv(value);
          params.push(num, this.keyId(w, key), entry.ts, t, v);
          count++;
          if (++rows === ROWS_PER_INSERT) insert();
        }
      }
    if (rows > 0) insert();
    if (packs.length > 0) this.keysets.insert(w, packs);
    return count;
  }

  /**
   * An entry's values as a packed row (its keyset, its numbers as a JSON array), or null when not packable.
   * Successive entries mostly carry the same keys (a device's fields), whose keyset is found again at once.
   */
  private pack(
    w: Writer,
    values: Record<string, unknown>,
  ): { keyset: number; vals: string; count: number } | null {
    const last = this.lastPack;
    let same = last !== null;
    let vals = '';
    let n = 0;
    for (const key in values) {
      const v = values[key];
      if (v === undefined) continue;
      if (!isPackable(v) || n === MAX_PACKED_KEYS) return null;
      if (same && last!.keys[n] !== key) same = false;
      vals += n === 0 ? String(v + 0) : `,${v + 0}`;
      n++;
    }
    if (n < MIN_PACKED_KEYS) return null;
    if (same && n === last!.keys.length && this.keysets.get(last!.keyset.id) === last!.keyset)
      return { keyset: last!.keyset.id, vals: `[${vals}]`, count: n };
    const keys: string[] = [];
    for (const key in values) if (values[key] !== undefined) keys.push(key);
    const keyIds = keys.map((key) => this.keyId(w, key));
    const keyset = this.keysets.ensure(w, keyIds, keyIds.join(','));
    if (!keyset) return null;
    this.lastPack = { keys, keyset };
    return { keyset: keyset.id, vals: `[${vals}]`, count: n };
  }

  keys(entityNum: number): string[] {
    const ids = this.db
      .all<{ key_id: number }>('SELECT key_id FROM ts_kv_latest WHERE entity_num = ?', [entityNum])
      .map((r) => r.key_id);
    for (const p of this.packedLatest(entityNum)) ids.push(...p.keyset.keyIds);
    return [...new Set(ids.map((id) => this.keyNames.get(id) ?? ''))].filter(Boolean).sort();
  }

  /** The entity's newest packed row of each keyset (none unless calculated fields wrote some). */
  private packedLatest(entityNum: number) {
    if (this.keysets.size === 0) return [];
    return this.db
      .all<{ keyset: number; ts: number; vals: string }>(
        'SELECT keyset, ts, vals FROM ts_pack_latest WHERE entity_num = ?',
        [entityNum],
      )
      .flatMap((r) => {
        const keyset = this.keysets.get(r.keyset);
        return keyset ? [{ keyset, ts: r.ts, values: JSON.parse(r.vals) as number[] }] : [];
      });
  }

  latest(entityNum: number, keys?: string[]): Map<string, TsPoint & { raw: string }> {
    const rows = this.db.all<{ key_id: number; ts: number; t: string; v: SqlValue }>(
      'SELECT key_id, ts, t, v FROM ts_kv_latest WHERE entity_num = ?',
      [entityNum],
    );
    const wanted = keys ? new Set(keys) : null;
    const out = new Map<string, TsPoint & { raw: string }>();
    for (const row of rows) {
      const key = this.keyNames.get(row.key_id);
      if (!key || (wanted && !wanted.has(key))) continue;
      out.set(key, { ts: row.ts, value: decodeKv(row.t, row.v), raw: kvAsString(row.t, row.v) });
    }
    for (const p of this.packedLatest(entityNum))
      p.keyset.keyIds.forEach((keyId, pos) => {
        const key = this.keyNames.get(keyId);
        if (!key || (wanted && !wanted.has(key))) return;
        const had = out.get(key);
        if (had && had.ts > p.ts) return;
        const value = p.values[pos]!;
        out.set(key, { ts: p.ts, value, raw: String(value) });
      });
    return out;
  }

  history(entityNum: number, q: HistoryQuery): Map<string, { ts: number; value: KvValue; raw: string }[]> {
    const out = new Map<string, { ts: number; value: KvValue; raw: string }[]>();
    for (const key of q.keys) {
      const keyId = this.keyIds.get(key);
      if (keyId === undefined) continue;
      const points =
        q.agg === 'NONE' ? this.rawHistory(entityNum, keyId, q) : this.aggregatedHistory(entityNum, keyId, q);
      if (points.length > 0) out.set(key, points);
    }
    return out;
  }

  /** Deletes history in [startTs, endTs) (all of it when deleteAll) and recomputes latest values. */
  /**
   * ThingsBoard's time series delete: history of the keys in [startTs, endTs) (or all of it); the latest
   * value goes too when it lies in the range and deleteLatest, and is then replaced by the newest value
   * left when rewriteLatest.
   */
  deleteHistory(
    w: Writer,
    entityNum: number,
    keys: string[],
    range: { startTs: number; endTs: number } | 'all',
    latest: { deleteLatest: boolean; rewriteLatest: boolean },
  ): void {
    for (const key of keys) {
      const keyId = this.keyIds.get(key);
      if (keyId === undefined) continue;
      // packed rows holding the key become rows, so that the key's go and the others' stay
      for (const { keyset } of this.keysets.holding(keyId)) {
        const params =
          range === 'all' ? [entityNum, keyset.id] : [entityNum, keyset.id, range.startTs, range.endTs];
        w.run(unpackHistorySql(range !== 'all'), params);
        w.run(deletePacksSql(range !== 'all'), params);
        if (latest.deleteLatest) {
          w.run(UNPACK_LATEST, [entityNum, keyset.id]);
          w.run('DELETE FROM ts_pack_latest WHERE entity_num = ? AND keyset = ?', [entityNum, keyset.id]);
        }
      }
      if (range === 'all') {
        w.run('DELETE FROM ts_kv WHERE entity_num = ? AND key_id = ?', [entityNum, keyId]);
      } else {
        w.run('DELETE FROM ts_kv WHERE entity_num = ? AND key_id = ? AND ts >= ? AND ts < ?', [
          entityNum,
          keyId,
          range.startTs,
          range.endTs,
        ]);
      }
      if (!latest.deleteLatest) continue;
      const current = w.get<{ ts: number }>(
        'SELECT ts FROM ts_kv_latest WHERE entity_num = ? AND key_id = ?',
        [entityNum, keyId],
      );
      if (!current || (range !== 'all' && (current.ts < range.startTs || current.ts >= range.endTs)))
        continue;
      w.run('DELETE FROM ts_kv_latest WHERE entity_num = ? AND key_id = ?', [entityNum, keyId]);
      if (latest.rewriteLatest)
        w.run(
          `INSERT INTO ts_kv_latest (entity_num, key_id, ts, t, v)
           SELECT entity_num, key_id, ts, t, v FROM ${this.historyOf(keyId)} WHERE entity_num = ? AND key_id = ?
           ORDER BY ts DESC LIMIT 1`,
          [entityNum, keyId],
        );
    }
  }

  /**
   * Goes up, at once (inside the deleting write), whenever an entity's telemetry is deleted with it: the
   * Save Timeseries node checks its cached device rows again when it changed.
   */
  get entityDeletions(): number {
    return this.deletedEntities;
  }

  deleteEntity(w: Writer, entityNum: number): void {
    this.deletedEntities++;
    for (const t of TELEMETRY_TABLES) w.run(`DELETE FROM ${t} WHERE entity_num = ?`, [entityNum]);
  }

  /**
   * Drops history older than cutoffTs (latest values stay), in writes of at most `rowsPerWrite` datapoints
   * or series visited, so that no single write (nor the event-loop turn running it) grows with the store;
   * other writes go on between them. Returns the number of datapoints removed.
   */
  async purgeOlderThan(cutoffTs: number, rowsPerWrite = PURGE_ROWS_PER_WRITE): Promise<number> {
    let total = 0;
    for (const table of [PURGED_ROWS, PURGED_PACKS]) {
      if (table === PURGED_PACKS && this.keysets.size === 0) break;
      let next: SeriesCursor | null = FIRST_SERIES;
      while (next) {
        const from: SeriesCursor = next;
        const chunk = await this.db.write((w) => this.purgeChunk(w, table, cutoffTs, from, rowsPerWrite));
        total += chunk.deleted;
        next = chunk.next;
      }
    }
    return total;
  }

  /**
   * One bounded step of purgeOlderThan: series by series from `from` (index seeks, no scan), each deleting
   * its oldest points first. Returns where the next step starts (null: every series is done).
   */
  private purgeChunk(
    w: Writer,
    table: PurgedTable,
    cutoffTs: number,
    from: SeriesCursor,
    budget: number,
  ): { deleted: number; next: SeriesCursor | null } {
    let cursor = from;
    let deleted = 0;
    let spent = 0;
    while (spent < budget) {
      const found = w.get<{ entity_num: number; series: number }>(table.next, [
        cursor.entityNum,
        cursor.series,
      ]);
      if (!found) return { deleted, next: null };
      const left = budget - spent;
      const n = w.run(table.purge, [found.entity_num, found.series, cutoffTs, left - 1]);
      // a packed row holds a datapoint of each key of its keyset
      deleted += table === PURGED_PACKS ? n * (this.keysets.get(found.series)?.keyIds.length ?? 1) : n;
      spent += n + 1;
      // the series may hold more old points than this step may drop: the next step goes on with it
      if (n >= left) return { deleted, next: { entityNum: found.entity_num, series: found.series } };
      cursor = { entityNum: found.entity_num, series: found.series + 1 };
    }
    return { deleted, next: cursor };
  }

  /** Every series with history: its oldest and newest timestamps (index seeks, no scan). */
  seriesBounds(): { entityNum: number; keyId: number; oldest: number; newest: number }[] {
    const out = this.bounds('ts_kv', 'key_id').map(({ entityNum, series, oldest, newest }) => ({
      entityNum,
      keyId: series,
      oldest,
      newest,
    }));
    if (this.keysets.size === 0) return out;
    for (const b of this.bounds('ts_pack', 'keyset'))
      for (const keyId of this.keysets.get(b.series)?.keyIds ?? [])
        out.push({ entityNum: b.entityNum, keyId, oldest: b.oldest, newest: b.newest });
    return out;
  }

  /** The series of a history table (each has a latest row): their oldest and newest timestamps. */
  private bounds(table: 'ts_kv' | 'ts_pack', series: 'key_id' | 'keyset') {
    const out: { entityNum: number; series: number; oldest: number; newest: number }[] = [];
    for (const s of this.db.all<{ entity_num: number; series: number }>(
      `SELECT entity_num, ${series} AS series FROM ${table === 'ts_kv' ? 'ts_kv_latest' : 'ts_pack_latest'}`,
    )) {
      const end = (order: 'ASC' | 'DESC') =>
        this.db.get<{ ts: number }>(
          `SELECT ts FROM ${table} WHERE entity_num = ? AND ${series} = ? ORDER BY ts ${order} LIMIT 1`,
          [s.entity_num, s.series],
        )?.ts;
      const oldest = end('ASC');
      if (oldest !== undefined)
        out.push({ entityNum: s.entity_num, series: s.series, oldest, newest: end('DESC')! });
    }
    return out;
  }

  countDatapoints(): number {
    let n = Number(this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM ts_kv')?.n ?? 0);
    if (this.keysets.size === 0) return n;
    for (const r of this.db.all<{ keyset: number; n: number }>(
      'SELECT keyset, COUNT(*) AS n FROM ts_pack GROUP BY keyset',
    ))
      n += r.n * (this.keysets.get(r.keyset)?.keyIds.length ?? 0);
    return n;
  }

  private rawHistory(entityNum: number, keyId: number, q: HistoryQuery) {
    const order = q.orderBy === 'ASC' ? 'ASC' : 'DESC';
    const rows = this.db.all<{ ts: number; t: string; v: SqlValue }>(
      `SELECT ts, t, v FROM ts_kv WHERE entity_num = ? AND key_id = ? AND ts >= ? AND ts < ?
       ORDER BY ts ${order} LIMIT ?`,
      [entityNum, keyId, q.startTs, q.endTs, q.limit],
    );
    const points = rows.map((r) => ({ ts: r.ts, value: decodeKv(r.t, r.v), raw: kvAsString(r.t, r.v) }));
    const holding = this.keysets.holding(keyId);
    if (holding.length === 0) return points;
    // packed rows too: the newest write of a ts is the packed one (calculated fields write last)
    const seen = new Map(points.map((p, i) => [p.ts, i]));
    for (const { keyset, pos } of holding)
      for (const r of this.db.all<{ ts: number; v: number }>(
        `SELECT ts, json_extract(vals, ?) AS v FROM ts_pack WHERE entity_num = ? AND keyset = ? AND ts >= ? AND ts < ?
         ORDER BY ts ${order} LIMIT ?`,
        [`$[${pos}]`, entityNum, keyset.id, q.startTs, q.endTs, q.limit],
      )) {
        const point = { ts: r.ts, value: r.v, raw: String(r.v) };
        const at = seen.get(r.ts);
        if (at === undefined) {
          seen.set(r.ts, points.length);
          points.push(point);
        } else points[at] = point;
      }
    points.sort(order === 'ASC' ? (a, b) => a.ts - b.ts : (a, b) => b.ts - a.ts);
    return points.length > q.limit ? points.slice(0, q.limit) : points;
  }

  /** The table of a key's history: ts_kv, or the view adding packed rows when some keyset holds the key. */
  private historyOf(keyId: number): 'ts_kv' | 'ts_kv_all' {
    return this.keysets.holding(keyId).length === 0 ? 'ts_kv' : 'ts_kv_all';
  }

  /** The table of all history for SQL: ts_kv, or the view adding packed rows once some history is packed. */
  get historyTable(): 'ts_kv' | 'ts_kv_all' {
    return this.keysets.size === 0 ? 'ts_kv' : 'ts_kv_all';
  }

  private aggregatedHistory(entityNum: number, keyId: number, q: HistoryQuery) {
    const fn = { AVG: 'AVG(v)', MIN: 'MIN(v)', MAX: 'MAX(v)', SUM: 'SUM(v)', COUNT: 'COUNT(v)', NONE: 'v' }[
      q.agg
    ];
    const interval = Math.max(1, q.interval);
    // sql.js binds numbers beyond 2^31 as REAL, hence the CAST for the bucket number.
    // ThingsBoard stamps each interval's value at the interval's middle.
    const rows = this.db.all<{ bucket: number; value: number }>(
      `SELECT CAST((ts - ?) / ? AS INTEGER) AS bucket, ${fn} AS value FROM ${this.historyOf(keyId)}
       WHERE entity_num = ? AND key_id = ? AND ts >= ? AND ts < ? AND t IN ('l', 'd', 'b')
       GROUP BY bucket ORDER BY bucket ${q.orderBy === 'ASC' ? 'ASC' : 'DESC'} LIMIT ?`,
      [q.startTs, interval, entityNum, keyId, q.startTs, q.endTs, q.limit],
    );
    return rows.map((r) => {
      const bucketStart = q.startTs + r.bucket * interval;
      const ts = bucketStart + Math.floor(Math.min(interval, q.endTs - bucketStart) / 2);
      const value = q.agg === 'COUNT' ? r.value : Number(r.value);
      return { ts, value, raw: String(value) };
    });
  }
}
