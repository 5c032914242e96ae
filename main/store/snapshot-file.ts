import { existsSync, readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';

export const SNAPSHOT_FILE = 'store.sqlite';

/**
 * Settings for sql.js's in-memory database, (re)applied whenever it is opened. Durability is the journal's
 * job: SQLite's own rollback journal only serves ROLLBACK (TO SAVEPOINT), and kept in memory it no longer
 * copies every touched page into a file of the emulated file system at each transaction (about a quarter
 * of the insert cost once the tables are large). Syncs and file locks of that file system do nothing
 * useful either.
 */
export const SQLJS_SETTINGS =
  'PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE';

/** The snapshot of dir (or an empty database) and the journal position it holds. */
export function openSnapshot(SQL: SqlJsStatic, dir: string): { db: Database; seq: number } {
  const path = join(dir, SNAPSHOT_FILE);
  const db = existsSync(path) ? new SQL.Database(readFileSync(path)) : new SQL.Database();
  db.exec(SQLJS_SETTINGS);
  db.exec(
    'CREATE TABLE IF NOT EXISTS _journal_state (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL)',
  );
  db.exec('INSERT OR IGNORE INTO _journal_state (id, seq) VALUES (1, 0)');
  const stmt = db.prepare('SELECT seq FROM _journal_state WHERE id = 1');
  try {
    stmt.step();
    return { db, seq: Number(stmt.get()[0]) };
  } finally {
    stmt.free();
  }
}

/** Replaces dir's snapshot atomically: a temporary file, fsynced, renamed over it, the directory fsynced. */
export async function writeSnapshotFile(dir: string, data: Uint8Array): Promise<void> {
  const tmp = join(dir, `${SNAPSHOT_FILE}.tmp`);
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, join(dir, SNAPSHOT_FILE));
  const dirHandle = await open(dir, 'r');
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }
}

/** A saved database image as snapshot bytes holding the journal position seq (export() blocks: a long copy). */
export function imageAsSnapshot(SQL: SqlJsStatic, image: Uint8Array, seq: number): Uint8Array {
  const db = new SQL.Database(image);
  try {
    db.exec(SQLJS_SETTINGS);
    db.exec(
      'CREATE TABLE IF NOT EXISTS _journal_state (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL)',
    );
    db.run('INSERT OR REPLACE INTO _journal_state (id, seq) VALUES (1, ?)', [seq]);
    return db.export();
  } finally {
    db.close();
  }
}
