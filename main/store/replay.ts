import type { Database, SqlValue } from 'sql.js';
import {
  listJournalFiles,
  removeFile,
  scanJournalFile,
  truncateFile,
  type JournalRecord,
} from './journal.ts';
import { PreparedStatements } from './prepared-statements.ts';

/** records applied per transaction while replaying: one COMMIT per batch, not per record */
const RECORDS_PER_TRANSACTION = 512;

/** rows one bulk INSERT takes at most, and its bound parameters (SQLite's oldest limit is 999) */
const BULK_ROWS = 64;
const BULK_PARAMS = 999;

/**
 * A single-row INSERT with positional parameters only, `INSERT [OR x] INTO t [(cols)] VALUES (?, ...)`:
 * a run of them replays as multi-row INSERTs, which SQLite applies row by row in the same order (the same
 * conflict handling and triggers), for a fraction of sql.js's per-statement cost.
 */
const SINGLE_ROW_INSERT =
  /^\s*(INSERT(?:\s+OR\s+(?:REPLACE|IGNORE|ABORT|FAIL|ROLLBACK))?\s+INTO\s+[^\s(]+\s*(?:\([^()]*\))?)\s*VALUES\s*(\(\s*\?(?:\s*,\s*\?)*\s*\))\s*$/i;

interface BulkForm {
  /** the statement up to VALUES */
  head: string;
  /** one row's placeholders, `(?, ?)` */
  row: string;
  /** rows per bulk statement */
  rows: number;
  /** the bulk statement of n rows, by n */
  sql: string[];
}

/**
 * Applies journal records to a database in order, many records per transaction, each distinct SQL text
 * prepared once, consecutive single-row INSERTs of one SQL text applied in bulk. A record that fails rolls
 * back the whole open batch and throws, naming the record.
 */
export class Replayer {
  private readonly db: Database;
  private readonly statements: PreparedStatements;
  private readonly bulkForms = new Map<string, BulkForm | null>();
  private pending = 0;
  seq: number;

  constructor(db: Database, seq: number) {
    this.db = db;
    this.statements = new PreparedStatements(db);
    this.seq = seq;
  }

  apply(record: JournalRecord): void {
    if (this.pending === 0) this.db.exec('BEGIN');
    try {
      const rows = record.r;
      let i = 0;
      while (i < rows.length) {
        const index = rows[i]![0] as number;
        const sql = record.q[index]!;
        let end = i + 1;
        while (end < rows.length && rows[end]![0] === index) end++;
        const bulk = end - i > 1 ? this.bulkForm(sql) : null;
        if (bulk) this.runBulk(bulk, rows, i, end);
        else {
          // Prepared when first used: a statement may use a table that an earlier one creates.
          const stmt = this.statements.get(sql);
          for (let k = i; k < end; k++) stmt.run(rows[k]!.slice(1) as SqlValue[]);
        }
        i = end;
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

  get preparedCount(): number {
    return this.statements.size;
  }

  free(): void {
    this.statements.free();
  }

  private bulkForm(sql: string): BulkForm | null {
    let form = this.bulkForms.get(sql);
    if (form === undefined) {
      const m = SINGLE_ROW_INSERT.exec(sql);
      const columns = m ? m[2]!.split('?').length - 1 : 0;
      form = m
        ? { head: m[1]!, row: m[2]!, rows: Math.min(BULK_ROWS, Math.floor(BULK_PARAMS / columns)), sql: [] }
        : null;
      this.bulkForms.set(sql, form);
    }
    return form;
  }

  /** rows[from..to) (all of one single-row INSERT) as multi-row INSERTs of up to form.rows rows */
  private runBulk(form: BulkForm, rows: unknown[][], from: number, to: number): void {
    for (let start = from; start < to; start += form.rows) {
      const n = Math.min(form.rows, to - start);
      const params: SqlValue[] = [];
      for (let k = start; k < start + n; k++) {
        const row = rows[k]!;
        for (let p = 1; p < row.length; p++) params.push(row[p] as SqlValue);
      }
      const sql = (form.sql[n] ??= `${form.head} VALUES ${Array<string>(n).fill(form.row).join(', ')}`);
      this.statements.get(sql).run(params);
    }
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
      const { validBytes, tornBytes } = scanJournalFile(path, (record) => {
        if (record.seq <= replayer.seq || record.seq > until) return;
        replayer.apply(record);
        replayedRecords++;
      });
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
