import type { Database, SqlValue, Statement } from 'sql.js';
import {
  listJournalFiles,
  readJournalFile,
  removeFile,
  truncateFile,
  type JournalRecord,
} from './journal.ts';

/** records applied per transaction while replaying: one COMMIT per batch, not per record */
const RECORDS_PER_TRANSACTION = 512;

/**
 * Applies journal records to a database in order, many records per transaction, each distinct SQL text
 * prepared once. A record that fails rolls back the whole open batch and throws, naming the record.
 */
export class Replayer {
  private readonly db: Database;
  private readonly statements = new Map<string, Statement>();
  private pending = 0;
  seq: number;

  constructor(db: Database, seq: number) {
    this.db = db;
    this.seq = seq;
  }

  apply(record: JournalRecord): void {
    if (this.pending === 0) this.db.exec('BEGIN');
    try {
      const prepared: Statement[] = [];
      for (const [index, ...params] of record.r) {
        const i = index as number;
        let stmt = prepared[i];
        if (!stmt) {
          const sql = record.q[i]!;
          stmt = this.statements.get(sql);
          if (!stmt) {
            // Prepared when first used: a statement may use a table that an earlier one creates.
            stmt = this.db.prepare(sql);
            this.statements.set(sql, stmt);
          }
          prepared[i] = stmt;
        }
        stmt.run(params as SqlValue[]);
      }
    } catch (err) {
      this.db.exec('ROLLBACK');
      this.pending = 0;
      throw new Error(
        `Journal record ${record.seq} could not be replayed: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
    this.seq = record.seq;
    if (++this.pending >= RECORDS_PER_TRANSACTION) this.commit();
  }

  /** Commits the open batch, with the journal position it reached. */
  commit(): void {
    if (this.pending === 0) return;
    this.db.run('UPDATE _journal_state SET seq = ? WHERE id = 1', [this.seq]);
    this.db.exec('COMMIT');
    this.pending = 0;
  }

  free(): void {
    for (const stmt of this.statements.values()) stmt.free();
    this.statements.clear();
  }
}

export interface ReplayResult {
  seq: number;
  replayedRecords: number;
  discardedTailBytes: number;
}

/**
 * Replays the journal files of dir (or the given files) onto db, which is at `seq`, up to `untilSeq`.
 * With `repair`, a torn tail is cut off its file and the files after it are removed (frames after a torn
 * one were never acknowledged: appends are sequential); without, a torn tail simply ends the replay.
 */
export function replayJournal(
  db: Database,
  seq: number,
  options: { dir: string; files?: string[]; untilSeq?: number; repair: boolean },
): ReplayResult {
  const files = options.files ?? listJournalFiles(options.dir).map((f) => f.path);
  const until = options.untilSeq ?? Number.POSITIVE_INFINITY;
  const replayer = new Replayer(db, seq);
  let replayedRecords = 0;
  let discardedTailBytes = 0;
  try {
    for (const [i, path] of files.entries()) {
      const { records, validBytes, tornBytes } = readJournalFile(path);
      for (const record of records) {
        if (record.seq <= replayer.seq || record.seq > until) continue;
        replayer.apply(record);
        replayedRecords++;
      }
      if (tornBytes > 0) {
        discardedTailBytes += tornBytes;
        if (options.repair) {
          replayer.commit();
          truncateFile(path, validBytes);
          for (const later of files.slice(i + 1)) removeFile(later);
        }
        break;
      }
    }
    replayer.commit();
  } finally {
    replayer.free();
  }
  return { seq: replayer.seq, replayedRecords, discardedTailBytes };
}
