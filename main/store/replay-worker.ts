/**
 * Replays a data dir's journal off the starting thread (worker_threads), so that a long replay after a
 * kill runs on one core while the process loads the rest of the platform on the other. It opens the
 * snapshot, replays and repairs the journal exactly as an inline open does, and hands back the database
 * as SQLite file bytes (transferred, not copied) with the journal position they hold.
 *
 * workerData: { dir }. Messages out: ReplayOutcome.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { replayJournal, type ReplayResult } from './replay.ts';
import { openSnapshot } from './snapshot-file.ts';
import { loadSqlJs } from './sqljs.ts';

export type ReplayOutcome =
  ({ ok: true; bytes: Uint8Array; snapshotSeq: number } & ReplayResult) | { ok: false; message: string };

const port = parentPort;
if (!port) throw new Error('replay-worker.ts runs as a worker thread');
const { dir } = workerData as { dir: string };
try {
  const SQL = await loadSqlJs();
  const { db, seq: snapshotSeq } = openSnapshot(SQL, dir);
  try {
    const replayed = replayJournal(db, snapshotSeq, { dir, repair: true });
    const bytes = db.export();
    const outcome: ReplayOutcome = { ok: true, bytes, snapshotSeq, ...replayed };
    port.postMessage(outcome, [bytes.buffer as ArrayBuffer]);
  } finally {
    db.close();
  }
} catch (err) {
  const outcome: ReplayOutcome = { ok: false, message: err instanceof Error ? err.message : String(err) };
  port.postMessage(outcome);
}
