/**
 * Writes snapshots off the network thread (worker_threads; main/store/snapshot-thread.ts keeps it between
 * snapshots). For each job it builds its own copy of the database from what is already durable: the
 * current snapshot file plus the given journal files (closed, fsynced) up to `seq`, exports it and replaces
 * the snapshot file atomically. The store only rotates its journal first and removes the covered files
 * after; a kill at any moment leaves either the old snapshot with every journal file, or the new one
 * (holding `seq`) whose covered records replay skips.
 *
 * Messages in: SnapshotJob, one at a time. Messages out, one per job: {ok: true} | {ok: false, message}.
 */
import { parentPort } from 'node:worker_threads';
import { openReplica } from './replica-seed.ts';
import { writeSnapshotFile } from './snapshot-file.ts';
import { loadSqlJs } from './sqljs.ts';
import { lowerThreadPriority } from './thread-priority.ts';

/** the same fields as a replica's seed: the snapshot is that replica, exported */
export interface SnapshotJob {
  dir: string;
  /** journal files holding the records after the current snapshot, oldest first */
  files: string[];
  /** the journal position the new snapshot holds */
  seq: number;
}

export type SnapshotResult = { ok: true } | { ok: false; message: string };

const port = parentPort;
if (!port) throw new Error('snapshot-worker.ts runs as a worker thread');
lowerThreadPriority();

async function writeSnapshot(job: SnapshotJob): Promise<SnapshotResult> {
  try {
    const SQL = await loadSqlJs();
    const { db, snapshotSeq } = openReplica(SQL, job);
    try {
      if (snapshotSeq < job.seq) await writeSnapshotFile(job.dir, db.export());
    } finally {
      db.close();
    }
    return { ok: true };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

port.on('message', (job: SnapshotJob) => {
  void writeSnapshot(job).then((result) => port.postMessage(result));
});
