/**
 * A report worker (worker_threads): holds a read replica of the store, built from the store's snapshot
 * and journal files (openReplica) and kept current by applying every committed journal record in order, and runs reports on it, one at
 * a time, off the platform's network thread.
 *
 * Messages in:  {type: 'record', json} | {type: 'report', id, spec}
 * Messages out: {type: 'ready'} | {type: 'result', id, result} | {type: 'failed', id, error} |
 *               {type: 'fatal', message} (the replica can no longer follow the store)
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PlatformError } from '../platform/errors.ts';
import { applyRecord } from '../store/durable-db.ts';
import { openReplica, type ReplicaSeed } from '../store/replica-seed.ts';
import type { JournalRecord } from '../store/journal.ts';
import { loadSqlJs } from '../store/sqljs.ts';
import { lowerThreadPriority } from '../store/thread-priority.ts';
import { runReport, trackTextKeys } from './report-runner.ts';
import type { ReportSpec } from './report-spec.ts';

export interface ReportWorkerData {
  seed: ReplicaSeed;
  /** tests only: every report first blocks the worker this long */
  testDelayMs: number;
}

export type ToWorker = { type: 'record'; json: string } | { type: 'report'; id: number; spec: ReportSpec };
export type FromWorker =
  | { type: 'ready' }
  | { type: 'result'; id: number; result: ReturnType<typeof runReport> }
  | { type: 'failed'; id: number; error: { status: number; errorCode: number; message: string } }
  | { type: 'fatal'; message: string };

const port = parentPort;
if (!port) throw new Error('report-worker.ts runs as a worker thread');
const data = workerData as ReportWorkerData;
lowerThreadPriority();
const SQL = await loadSqlJs();
// A seed that cannot be read throws here: the pool hears of it as the worker's error.
const replica = openReplica(SQL, data.seed);
const db = replica.db;
/** the last record the replica holds: records up to it (already in a newer snapshot) are skipped */
let seq = replica.seq;
// A replica needs no durability; sorts and temporary b-trees stay in memory.
db.exec(
  'PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -65536',
);
trackTextKeys(db);
const post = (message: FromWorker) => port.postMessage(message);
let broken = false;

port.on('message', (message: ToWorker) => {
  if (broken) return;
  if (message.type === 'record') {
    try {
      const record = JSON.parse(message.json) as JournalRecord;
      if (record.seq <= seq) return;
      applyRecord(db, record);
      seq = record.seq;
    } catch (err) {
      broken = true;
      post({ type: 'fatal', message: (err as Error).message });
    }
    return;
  }
  try {
    if (data.testDelayMs > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, data.testDelayMs);
    post({ type: 'result', id: message.id, result: runReport(db, message.spec) });
  } catch (err) {
    const error =
      err instanceof PlatformError
        ? { status: err.status, errorCode: err.errorCode, message: err.message }
        : { status: 500, errorCode: 2, message: `The report failed: ${(err as Error).message}` };
    post({ type: 'failed', id: message.id, error });
  }
});
post({ type: 'ready' });
