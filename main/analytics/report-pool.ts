/**
 * The report workers: each is a worker thread with its own read replica of the store (built by the
 * worker itself from the store's snapshot and journal files, DurableDb.replicateFromFiles(), then fed
 * every committed record in order), so neither a report nor its replica's seeding runs on the network
 * thread, and no report blocks writes. Jobs wait here for a free worker. Workers start on demand,
 * up to `workers`, and all stop after `idleMs` without reports (their replicas' memory goes back).
 */
import { Worker } from 'node:worker_threads';
import { ErrorCode, PlatformError } from '../platform/errors.ts';
import type { DurableDb } from '../store/durable-db.ts';
import type { JournalRecord } from '../store/journal.ts';
import type { ReportResult } from './report-runner.ts';
import type { ReportSpec } from './report-spec.ts';
import type { FromWorker, ReportWorkerData, ToWorker } from './report-worker.ts';

export interface ReportPoolOptions {
  /** worker threads (each holds a replica) */
  workers: number;
  /** tests only: every report first blocks its worker this long */
  testDelayMs: number;
  /** stop the workers after this long without reports */
  idleMs: number;
}

interface Job {
  spec: ReportSpec;
  resolve: (result: ReportResult) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker | null;
  /** records sealed before the worker existed */
  backlog: string[];
  stopReplication: () => void;
  /** lets the store remove the journal files the replica was seeded from */
  releaseFiles: () => void;
  job: Job | null;
  jobId: number;
  dead: boolean;
}

// Compiled to .js by build:core; run as .ts from the sources.
const WORKER_URL = new URL(
  `./report-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

export class ReportPool {
  private readonly db: DurableDb;
  private readonly options: ReportPoolOptions;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private starting = 0;
  private nextJobId = 1;
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** one JSON text per record, whatever the number of workers */
  private lastRecord: { record: JournalRecord; json: string } | null = null;

  constructor(db: DurableDb, options: ReportPoolOptions) {
    this.db = db;
    this.options = { ...options, workers: Math.max(1, options.workers) };
  }

  /** Runs a report on the next free worker. */
  run(spec: ReportSpec): Promise<ReportResult> {
    if (this.closed)
      return Promise.reject(new PlatformError(503, ErrorCode.GENERAL, 'The platform is stopping'));
    return new Promise<ReportResult>((resolve, reject) => {
      this.queue.push({ spec, resolve, reject });
      this.pump();
    });
  }

  /** Workers alive and reports waiting for one (for tests and stats). */
  stats(): { workers: number; busy: number; waiting: number } {
    return {
      workers: this.slots.length,
      busy: this.slots.filter((s) => s.job).length,
      waiting: this.queue.length,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.clearIdle();
    const stopping = new PlatformError(503, ErrorCode.GENERAL, 'The platform is stopping');
    for (const job of this.queue.splice(0)) job.reject(stopping);
    await Promise.all([...this.slots].map((slot) => this.kill(slot, stopping)));
  }

  private pump(): void {
    if (this.closed) return;
    this.clearIdle();
    for (const slot of this.slots) {
      if (!slot.worker || slot.job || slot.dead) continue;
      const job = this.queue.shift();
      if (!job) break;
      slot.job = job;
      slot.jobId = this.nextJobId++;
      slot.worker.postMessage({ type: 'report', id: slot.jobId, spec: job.spec } satisfies ToWorker);
    }
    const idleSlots = this.slots.filter((s) => !s.job && !s.dead).length;
    if (
      this.queue.length > idleSlots + this.starting &&
      this.slots.length + this.starting < this.options.workers
    ) {
      this.starting++;
      this.startWorker()
        .catch((err: unknown) => {
          const failure = new PlatformError(
            500,
            ErrorCode.GENERAL,
            `Report worker failed to start: ${(err as Error).message}`,
          );
          // With no worker at all nothing would ever take the waiting reports.
          if (this.slots.length === 0) for (const job of this.queue.splice(0)) job.reject(failure);
        })
        .finally(() => {
          this.starting--;
          this.pump();
        });
    }
    if (this.queue.length === 0 && this.slots.every((s) => !s.job) && this.slots.length > 0) this.armIdle();
  }

  private recordJson(record: JournalRecord): string {
    if (this.lastRecord?.record !== record) this.lastRecord = { record, json: JSON.stringify(record) };
    return this.lastRecord.json;
  }

  private async startWorker(): Promise<void> {
    const slot: Slot = {
      worker: null,
      backlog: [],
      stopReplication: () => {},
      releaseFiles: () => {},
      job: null,
      jobId: 0,
      dead: false,
    };
    const { seed, stop, release } = await this.db.replicateFromFiles(
      (record) => {
        const json = this.recordJson(record);
        if (slot.worker) slot.worker.postMessage({ type: 'record', json } satisfies ToWorker);
        else slot.backlog.push(json);
      },
      () => void this.kill(slot, this.workerFailure('the database was replaced')),
    );
    slot.stopReplication = stop;
    slot.releaseFiles = release;
    if (this.closed) {
      stop();
      release();
      return;
    }
    const workerData: ReportWorkerData = { seed, testDelayMs: this.options.testDelayMs };
    const worker = new Worker(WORKER_URL, { workerData });
    slot.worker = worker;
    for (const json of slot.backlog.splice(0))
      worker.postMessage({ type: 'record', json } satisfies ToWorker);
    worker.on('message', (message: FromWorker) => this.onMessage(slot, message));
    worker.on('error', (err) => void this.kill(slot, this.workerFailure(err.message)));
    worker.on('exit', (code) => {
      if (!slot.dead) void this.kill(slot, this.workerFailure(`it exited with code ${code}`));
    });
    this.slots.push(slot);
  }

  private workerFailure(reason: string): PlatformError {
    return new PlatformError(
      500,
      ErrorCode.GENERAL,
      `The report worker failed (${reason}); run the report again`,
    );
  }

  private onMessage(slot: Slot, message: FromWorker): void {
    if (message.type === 'ready') {
      slot.releaseFiles();
      return;
    }
    if (message.type === 'fatal') {
      void this.kill(slot, this.workerFailure(message.message));
      return;
    }
    const job = slot.job;
    if (!job || message.id !== slot.jobId) return;
    slot.job = null;
    if (message.type === 'result') job.resolve(message.result);
    else job.reject(new PlatformError(message.error.status, message.error.errorCode, message.error.message));
    this.pump();
  }

  /** Takes a worker out: its replica stops following the store, its report (if any) fails with err. */
  private async kill(slot: Slot, err: Error): Promise<void> {
    if (slot.dead) return;
    slot.dead = true;
    slot.stopReplication();
    slot.releaseFiles();
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    const job = slot.job;
    slot.job = null;
    job?.reject(err);
    await slot.worker?.terminate();
    this.pump();
  }

  private armIdle(): void {
    if (this.idleTimer || this.options.idleMs <= 0) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.queue.length > 0 || this.slots.some((s) => s.job)) return;
      const idle = new PlatformError(503, ErrorCode.GENERAL, 'The report workers stopped');
      for (const slot of [...this.slots]) void this.kill(slot, idle);
    }, this.options.idleMs);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}
