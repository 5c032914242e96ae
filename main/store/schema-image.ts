import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { listJournalFiles } from './journal.ts';
import { SNAPSHOT_FILE, SQLJS_SETTINGS } from './snapshot-file.ts';

/**
 * A schema image: the database a new store has once a sorted prefix of its migrations ran (their
 * _migrations rows and _journal_state at 0 included). A new data directory starts from it instead of
 * running those migrations one by one (most of an empty store's start).
 */
export type SchemaImageSource = () => Uint8Array | null;

/** what the image is checked against: the store's migrations (their version and name) */
interface MigrationId {
  version: number;
  name: string;
}

/** True when dir holds no store yet: no snapshot and no journal. */
export function isNewStore(dir: string): boolean {
  return !existsSync(join(dir, SNAPSHOT_FILE)) && listJournalFiles(dir).length === 0;
}

/**
 * The image opened as a database, or null (with the reason) when it cannot stand for running the
 * migrations: unreadable, at a journal position other than 0, or recording migrations other than the first
 * of `migrations` in version order (the image is stale; the caller runs the migrations instead).
 */
export function openSchemaImage(
  SQL: SqlJsStatic,
  image: Uint8Array,
  migrations: MigrationId[],
): { db: Database } | { db: null; reason: string } {
  let db: Database;
  try {
    db = new SQL.Database(image);
    db.exec(SQLJS_SETTINGS);
  } catch (err) {
    return { db: null, reason: `unreadable (${(err as Error).message})` };
  }
  const reason = staleness(db, migrations);
  if (reason === null) return { db };
  db.close();
  return { db: null, reason };
}

function staleness(db: Database, migrations: MigrationId[]): string | null {
  try {
    const seq = db.exec('SELECT seq FROM _journal_state WHERE id = 1')[0]?.values[0]?.[0];
    if (seq !== 0) return `its journal position is ${String(seq)}, not 0`;
    const rows = db.exec('SELECT version, name FROM _migrations ORDER BY version')[0]?.values ?? [];
    const sorted = [...migrations].sort((a, b) => a.version - b.version);
    if (rows.length === 0 || rows.length > sorted.length) return `it records ${rows.length} migrations`;
    for (const [i, [version, name]] of rows.entries()) {
      const m = sorted[i]!;
      if (m.version !== version || m.name !== name)
        return `it records migration ${String(version)} '${String(name)}' where ${m.version} '${m.name}' runs`;
    }
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * The image of db (a store's raw database just after its migrations ran, before any other write). Its
 * migrations are recorded as applied at time 0 (they were applied when the image was built), so building
 * it twice gives the same bytes (vacuumed: no freed pages holding what the migrations dropped).
 */
export function exportSchemaImage(db: Database): Uint8Array {
  db.exec('UPDATE _journal_state SET seq = 0 WHERE id = 1; UPDATE _migrations SET applied_at = 0; VACUUM');
  return db.export();
}
