/**
 * Writes snapshots off the network thread (worker_threads; main/store/snapshot-thread.ts keeps it between
 * snapshots). For each job it brings its copy of the database to `seq` from what is already durable and
 * exports it, replacing the snapshot file atomically. The copy is the one the last snapshot was exported
 * from, kept between snapshots, when the snapshot file still holds that one: the job's journal files are
 * replayed onto it. Otherwise (the first job, or a store whose snapshot was replaced meanwhile) the copy is
 * built from the current snapshot file plus the journal files. The store only rotates its journal first and
 * removes the covered files after; a kill at any moment leaves either the old snapshot with every journal
 * file, or the new one (holding `seq`) whose covered records replay skips.
 *
 * Messages in: SnapshotJob, one at a time. Messages out, one per job: {ok: true} | {ok: false, message}.
 */
import { parentPort } from 'node:worker_threads';
import type { Database, SqlJsStatic } from 'sql.js';
import { replayJournal } from './replay.ts';
import { openReplica, type ReplicaSeed } from './replica-seed.ts';
import { writeSnapshotFile } from './snapshot-file.ts';
import { loadSqlJs } from './sqljs.ts';
import { lowerThreadPriority } from './thread-priority.ts';

/** a replica's seed (the snapshot is that replica, exported), and what the snapshot file holds now */
export interface SnapshotJob extends ReplicaSeed {
  /** the journal position the current snapshot file holds */
  snapshotSeq: number;
}

export type SnapshotResult = { ok: true } | { ok: false; message: string };

const port = parentPort;
if (!port) throw new Error('snapshot-worker.ts runs as a worker thread');
lowerThreadPriority();

/** the database the last snapshot was exported from, at the journal position that snapshot holds */
let kept: { db: Database; seq: number } | null = null;

function dropKept(): void {
  kept?.db.close();
  kept = null;
}

/** The database at job.seq, and the position the snapshot file held (the file need not be rewritten). */
function databaseAt(SQL: SqlJsStatic, job: SnapshotJob): { db: Database; fileSeq: number } {
  if (kept?.seq === job.snapshotSeq) {
    const { seq } = replayJournal(kept.db, kept.seq, {
      dir: job.dir,
      files: job.files,
      untilSeq: job.seq,
      repair: false,
    });
    if (seq !== job.seq) throw new Error(`the journal ends at record ${seq}, record ${job.seq} is needed`);
    kept.seq = seq;
    return { db: kept.db, fileSeq: job.snapshotSeq };
  }
  dropKept();
  const { db, seq, snapshotSeq } = openReplica(SQL, job);
  kept = { db, seq };
  return { db, fileSeq: snapshotSeq };
}

/**
 * Frees an export's bytes now instead of at this thread's next garbage collection, which may be many
 * snapshots away: the thread allocates little on its V8 heap.
 */
function release(bytes: Uint8Array): void {
  const { buffer } = bytes;
  if (buffer instanceof ArrayBuffer && !buffer.detached && bytes.byteLength === buffer.byteLength)
    buffer.transfer(0);
}

async function writeSnapshot(job: SnapshotJob): Promise<SnapshotResult> {
  try {
    const SQL = await loadSqlJs();
    const { db, fileSeq } = databaseAt(SQL, job);
    if (fileSeq < job.seq) {
      const bytes = db.export();
      try {
        await writeSnapshotFile(job.dir, bytes);
      } finally {
        release(bytes);
      }
    }
    return { ok: true };
  } catch (err) {
    dropKept();
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

port.on('message', (job: SnapshotJob) => {
  void writeSnapshot(job).then((result) => port.postMessage(result));
});
