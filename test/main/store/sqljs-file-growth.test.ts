import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Database } from 'sql.js';
import { describe, expect, it } from 'vitest';
import { SQLJS_SETTINGS } from '../../../main/store/durable-db.ts';
import { loadSqlJs } from '../../../main/store/sqljs.ts';

const ROWS_PER_BATCH = 2_000;

/** Inserts batches of rows (about 100 bytes each) as the store does: one transaction per batch. */
function grow(db: Database, batches: number, from = 0): number {
  const insert = db.prepare('INSERT INTO t (id, payload) VALUES (?, ?)');
  let id = from;
  try {
    for (let b = 0; b < batches; b++) {
      db.exec('BEGIN');
      for (let i = 0; i < ROWS_PER_BATCH; i++, id++) insert.run([id, `row ${id} `.padEnd(96, 'x')]);
      db.exec('COMMIT');
    }
  } finally {
    insert.free();
  }
  return id;
}

function contents(db: Database): { rows: number; ids: number; sample: string } {
  const [[rows, ids]] = db.exec('SELECT count(*), sum(id) FROM t')[0]!.values as [[number, number]];
  const [[sample]] = db.exec('SELECT payload FROM t WHERE id = 12345')[0]!.values as [[string]];
  return { rows, ids, sample };
}

/** A new database with the store's settings and the test's table. */
async function newDatabase(): Promise<Database> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.exec(SQLJS_SETTINGS);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)');
  return db;
}

/** What the table holds after `rows` rows numbered from 0. */
function expectedContents(rows: number): ReturnType<typeof contents> {
  return { rows, ids: (rows * (rows - 1)) / 2, sample: 'row 12345 '.padEnd(96, 'x') };
}

describe("sql.js's in-memory database file (grown in place by patches/sql.js+1.16.0.patch)", () => {
  it('keeps every row of a database grown past many file extensions, and exports the same database', async () => {
    const SQL = await loadSqlJs();
    const db = await newDatabase();
    // ~4 MB: from 1 MiB on, the file is extended by an eighth at a time, so this crosses about a dozen
    const rows = grow(db, 20);
    const expected = expectedContents(rows);
    expect(contents(db)).toEqual(expected);
    expect(db.exec('PRAGMA integrity_check')[0]!.values).toEqual([['ok']]);

    const image = db.export();
    db.close();
    const reopened = new SQL.Database(image);
    expect(contents(reopened)).toEqual(expected);
    reopened.close();
  });

  it('grows a database opened from an image (the snapshot a restart loads) and keeps both parts', async () => {
    const SQL = await loadSqlJs();
    const first = await newDatabase();
    const half = grow(first, 10);
    const image = first.export();
    first.close();

    const db = new SQL.Database(image);
    db.exec(SQLJS_SETTINGS);
    const rows = grow(db, 10, half);
    expect(contents(db)).toEqual(expectedContents(rows));
    expect(db.exec('PRAGMA integrity_check')[0]!.values).toEqual([['ok']]);
    db.close();
  });

  it('is the patched build: a growing file is extended in place, not copied into a new buffer', () => {
    // Without the patch each extension of a database file of n MB allocates and copies n MB on the network
    // thread (tens of ms per extension on a machine with costly page faults); npm install applies it.
    const source = readFileSync(createRequire(import.meta.url).resolve('sql.js'), 'utf8');
    expect(source, 'patches/sql.js+1.16.0.patch is not applied: run npm install').toContain(
      'maxByteLength:Math.max(k,2147483648)',
    );
  });
});
