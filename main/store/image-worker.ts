/**
 * Makes a saved database image the store's snapshot off the network thread (worker_threads): it opens the
 * image, records the journal position `seq` in it, exports it (SQLite's export is a long, blocking copy:
 * over 100 ms for a class-sized image) and replaces the snapshot file atomically. It hands the bytes back
 * (transferred, not copied) for the store to open as its database.
 *
 * workerData: ImageJob. Messages out: ImageOutcome.
 */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { imageAsSnapshot, writeSnapshotFile } from './snapshot-file.ts';
import { loadSqlJs } from './sqljs.ts';

export interface ImageJob {
  dir: string;
  imagePath: string;
  seq: number;
}

export type ImageOutcome = { ok: true; bytes: Uint8Array } | { ok: false; message: string };

const port = parentPort;
if (!port) throw new Error('image-worker.ts runs as a worker thread');
const job = workerData as ImageJob;
try {
  const SQL = await loadSqlJs();
  const bytes = imageAsSnapshot(SQL, readFileSync(job.imagePath), job.seq);
  await writeSnapshotFile(job.dir, bytes);
  const outcome: ImageOutcome = { ok: true, bytes };
  port.postMessage(outcome, [bytes.buffer as ArrayBuffer]);
} catch (err) {
  const outcome: ImageOutcome = { ok: false, message: err instanceof Error ? err.message : String(err) };
  port.postMessage(outcome);
}
