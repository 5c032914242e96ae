import { Worker } from 'node:worker_threads';
import type { SnapshotJob, SnapshotResult } from './snapshot-worker.ts';

// Compiled to .js by build:core; run as .ts from the sources.
const SNAPSHOT_WORKER_URL = new URL(
  `./snapshot-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

/**
 * How long the snapshot worker waits for its next snapshot before it stops: under steady writes (a snapshot
 * every few seconds) it stays; once writes stop, its memory goes back.
 */
export const SNAPSHOT_THREAD_IDLE_MS = 10_000;

/**
 * The snapshot thread's young generation, at most (V8 takes a third of it for each of its two halves):
 * what it allocates on its V8 heap (a journal file's records, as they are applied) dies at once, and left to
 * itself V8 grows that generation to 16 MiB, resident for as long as the thread runs.
 */
const YOUNG_GENERATION_MB = 6;

/**
 * Above this store size the worker ends as soon as its snapshot is written: it keeps its own copy of the
 * store between snapshots (and more copies while it writes one: the file read, the export), and its
 * WebAssembly memory never shrinks, while its start (tens of ms) is small beside a snapshot of such a
 * store. 100,000 gateway devices: a 120 MB store, and about 250 MB less resident while writes go on.
 */
export const SNAPSHOT_THREAD_KEPT_MAX_STORE_BYTES = 32 * 2 ** 20;

/**
 * The store's snapshot worker thread, started at the first snapshot and kept for the next ones while they
 * come: a worker's start (a V8 isolate, our modules, sql.js's WebAssembly) cost about a third of a snapshot's
 * CPU when each snapshot started its own. One snapshot at a time (the store never asks for two at once).
 */
export class SnapshotThread {
  private worker: Worker | null = null;
  private pending: { resolve: () => void; reject: (err: Error) => void } | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly idleMs: number;
  /** how long the worker waits for its next snapshot once the current one is written */
  private keepMs: number;
  /** worker threads started so far (tests) */
  started = 0;

  constructor(idleMs = SNAPSHOT_THREAD_IDLE_MS) {
    this.idleMs = idleMs;
    this.keepMs = idleMs;
  }

  /** the worker thread is running (tests) */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Builds and writes a snapshot of a store of storeBytes on the worker thread (started if there is none). */
  run(job: SnapshotJob, storeBytes = 0): Promise<void> {
    if (this.pending) return Promise.reject(new Error('a snapshot is already being written'));
    this.clearIdle();
    this.keepMs = storeBytes > SNAPSHOT_THREAD_KEPT_MAX_STORE_BYTES ? 0 : this.idleMs;
    const worker = this.worker ?? this.start();
    // a snapshot under way keeps the process alive, as any pending I/O does; an idle worker does not
    worker.ref();
    return new Promise<void>((resolve, reject) => {
      this.pending = { resolve, reject };
      worker.postMessage(job);
    });
  }

  /** Stops the worker (a snapshot under way fails). */
  async stop(): Promise<void> {
    this.clearIdle();
    const worker = this.worker;
    if (!worker) return;
    this.lost(worker, new Error('the store is closing'));
    await worker.terminate();
  }

  private start(): Worker {
    const worker = new Worker(SNAPSHOT_WORKER_URL, {
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    this.started++;
    this.worker = worker;
    worker.on('message', (result: SnapshotResult) => {
      const pending = this.pending;
      this.pending = null;
      worker.unref();
      this.idleTimer = setTimeout(() => void this.stop(), this.keepMs);
      this.idleTimer.unref();
      if (result.ok) pending?.resolve();
      else pending?.reject(new Error(result.message));
    });
    worker.on('error', (err) => this.lost(worker, err));
    worker.on('exit', (code) => this.lost(worker, new Error(`snapshot worker exited with ${code}`)));
    return worker;
  }

  /** The worker is gone: the snapshot it was writing fails, the next one starts a new worker. */
  private lost(worker: Worker, err: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.clearIdle();
    const pending = this.pending;
    this.pending = null;
    pending?.reject(err);
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}
