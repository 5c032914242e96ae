/**
 * Packed time series (telemetry-packs.ts): an entry of numbers only that saveMany stores as one row reads
 * back, through every reader, exactly as the same entry stored as a row per key (save()); deletes, retention
 * and a crash before any snapshot treat both alike.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { migrations } from '../../../main/platform/migrations.ts';
import {
  TelemetryRepository,
  type HistoryQuery,
  type TsEntry,
} from '../../../main/platform/telemetry-repository.ts';
import { DurableDb } from '../../../main/store/durable-db.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const opened: DurableDb[] = [];
async function open(dir = tempDir()): Promise<DurableDb> {
  const db = await DurableDb.open({ dir, migrations });
  opened.push(db);
  return db;
}
afterEach(async () => {
  for (const db of opened.splice(0).reverse()) await db.close();
});

const ROWS = 1; // the entity stored a row per key
const PACKED = 2; // the same entries, packed
const KEYS = ['cf0', 'cf1', 'cf2', 'cf3'];

/** 50 entries of four numbers (integers, decimals, negatives, -0, 1e-7), one ts stored twice, one older last. */
function entries(): TsEntry[] {
  const out: TsEntry[] = [];
  for (let i = 0; i < 50; i++)
    out.push({
      ts: 1000 + i * 100,
      values: { cf0: i, cf1: i * 1.5 - 20, cf2: i % 7 === 0 ? -0 : -i / 3, cf3: i * 1e-7 },
    });
  out.push({ ts: 1000, values: { cf0: 99, cf1: 0.25, cf2: 7, cf3: 1 } });
  out.push({ ts: 500, values: { cf0: -1, cf1: -1.5, cf2: -2, cf3: -3 } });
  return out;
}

async function stored(db: DurableDb): Promise<TelemetryRepository> {
  const repo = new TelemetryRepository(db);
  await db.write((w) => {
    for (const e of entries()) repo.save(w, ROWS, [e]);
  });
  // entry by entry, as calculated fields' results of successive turns arrive
  for (const e of entries()) await db.write((w) => repo.saveMany(w, [{ num: PACKED, entries: [e] }]));
  return repo;
}

const query = (q: Partial<HistoryQuery>): HistoryQuery => ({
  keys: KEYS,
  startTs: 0,
  endTs: 100_000,
  limit: 1000,
  agg: 'NONE',
  interval: 0,
  orderBy: 'ASC',
  ...q,
});

const QUERIES: Partial<HistoryQuery>[] = [
  {},
  { orderBy: 'DESC', limit: 7 },
  { startTs: 1200, endTs: 3000, limit: 5 },
  ...(['AVG', 'MIN', 'MAX', 'SUM', 'COUNT'] as const).map((agg) => ({ agg, interval: 1000 })),
  { agg: 'AVG', interval: 700, orderBy: 'DESC', limit: 3 },
];

function sameAnswers(repo: TelemetryRepository): void {
  expect(repo.keys(PACKED)).toEqual(repo.keys(ROWS));
  expect(repo.latest(PACKED)).toEqual(repo.latest(ROWS));
  expect(repo.latest(PACKED, ['cf1'])).toEqual(repo.latest(ROWS, ['cf1']));
  for (const q of QUERIES)
    expect(repo.history(PACKED, query(q)), JSON.stringify(q)).toEqual(repo.history(ROWS, query(q)));
}

const rowsOf = (db: DurableDb, table: string, num: number) =>
  db.all(`SELECT key_id, ts, t, v FROM ${table} WHERE entity_num = ? ORDER BY key_id, ts`, [num]);

describe('packed time series', () => {
  it('reads back through every reader as the same entries stored a row per key', async () => {
    const db = await open();
    const repo = await stored(db);
    // packed indeed: one row an entry, no ts_kv row
    expect(db.get<{ n: number }>('SELECT COUNT(*) AS n FROM ts_pack WHERE entity_num = ?', [PACKED])!.n).toBe(
      51,
    );
    expect(rowsOf(db, 'ts_kv', PACKED)).toEqual([]);
    sameAnswers(repo);
    expect(repo.latest(PACKED).get('cf1')).toMatchObject({ ts: 5900, value: 49 * 1.5 - 20, raw: '53.5' });
    expect(repo.history(PACKED, query({ keys: ['cf0'] })).get('cf0')![1]).toMatchObject({
      ts: 1000,
      value: 99,
    });
    // the views show packed values as the tables' rows (SQL readers: reports, sandbox export, counts)
    expect(rowsOf(db, 'ts_kv_all', PACKED)).toEqual(rowsOf(db, 'ts_kv', ROWS));
    expect(rowsOf(db, 'ts_latest_all', PACKED)).toEqual(rowsOf(db, 'ts_kv_latest', ROWS));
    expect(repo.countDatapoints()).toBe(2 * 51 * KEYS.length);
  });

  it('keeps entries with text, booleans or one key as rows', async () => {
    const db = await open();
    const repo = new TelemetryRepository(db);
    await db.write((w) =>
      repo.saveMany(w, [
        { num: 3, entries: [{ ts: 1, values: { a: 1, b: 'text' } }] },
        { num: 3, entries: [{ ts: 2, values: { a: 2, b: true } }] },
        { num: 3, entries: [{ ts: 3, values: { a: 3 } }] },
        { num: 3, entries: [{ ts: 4, values: { a: 4, b: 2 ** 60 } }] },
      ]),
    );
    expect(db.get<{ n: number }>('SELECT COUNT(*) AS n FROM ts_pack')!.n).toBe(0);
    expect(repo.latest(3).get('b')).toMatchObject({ ts: 4, value: 2 ** 60 });
  });

  it('gives each list of keys its own keyset, in whatever order entries alternate them', async () => {
    const db = await open();
    const repo = new TelemetryRepository(db);
    const shapes = [
      { a: 1, b: 2 },
      { b: 3, a: 4 },
      { a: 5, b: 6, c: 7 },
      { a: 8, b: 9 },
    ];
    for (const [i, values] of shapes.entries())
      await db.write((w) => repo.saveMany(w, [{ num: 4, entries: [{ ts: 10 + i, values }] }]));
    expect(db.get<{ n: number }>('SELECT COUNT(*) AS n FROM ts_keyset')!.n).toBe(3);
    const history = repo.history(4, query({ keys: ['a', 'b', 'c'] }));
    expect(history.get('a')!.map((p) => p.value)).toEqual([1, 4, 5, 8]);
    expect(history.get('b')!.map((p) => p.value)).toEqual([2, 3, 6, 9]);
    expect(history.get('c')!.map((p) => [p.ts, p.value])).toEqual([[12, 7]]);
  });

  it('deletes a key of packed history as of rows, and the other keys stay', async () => {
    const db = await open();
    const repo = await stored(db);
    const range = { startTs: 2000, endTs: 100_000 };
    for (const num of [ROWS, PACKED])
      await db.write((w) =>
        repo.deleteHistory(w, num, ['cf1'], range, { deleteLatest: true, rewriteLatest: true }),
      );
    sameAnswers(repo);
    // the newest value left, older than the range, is still packed: it becomes the latest
    expect(repo.latest(PACKED).get('cf1')!.ts).toBe(1900);
    for (const num of [ROWS, PACKED])
      await db.write((w) =>
        repo.deleteHistory(w, num, ['cf2'], 'all', { deleteLatest: true, rewriteLatest: false }),
      );
    sameAnswers(repo);
    expect(repo.latest(PACKED).has('cf2')).toBe(false);
    expect(repo.latest(PACKED).get('cf0')!.ts).toBe(5900);
  });

  it('drops old packed history by retention, keeps latest values, and forgets a deleted entity', async () => {
    const db = await open();
    const repo = await stored(db);
    const dropped = await repo.purgeOlderThan(3000, 7);
    // the same datapoints of both entities: 21 entries of four keys each (ts 500 and 1000-2900)
    expect(dropped).toBe(2 * 21 * KEYS.length);
    sameAnswers(repo);
    expect(repo.seriesBounds().filter((s) => s.entityNum === PACKED)).toHaveLength(KEYS.length);
    await db.write((w) => repo.deleteEntity(w, PACKED));
    expect(repo.keys(PACKED)).toEqual([]);
    expect(repo.countDatapoints()).toBe(30 * KEYS.length);
  });

  it('replays packed rows from the journal after a crash before any snapshot', async () => {
    const dir = tempDir();
    const db = await open(dir);
    const repo = await stored(db);
    const before = { latest: repo.latest(PACKED), history: repo.history(PACKED, query({})) };
    // no close(): as after kill -9, only the journal holds the rows
    const reopened = new TelemetryRepository(await open(dir));
    expect(reopened.latest(PACKED)).toEqual(before.latest);
    expect(reopened.history(PACKED, query({}))).toEqual(before.history);
    sameAnswers(reopened);
  });
});
