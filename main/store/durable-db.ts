import { mkdirSync, statSync } from 'node:fs';
import { copyFile, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import {
  encodeFrame,
  journalFileName,
  JournalWriter,
  listJournalFiles,
  removeFile,
  type JournalRecord,
} from './journal.ts';
import type { ImageJob, ImageOutcome } from './image-worker.ts';
import type { ReplicaSeed } from './replica-seed.ts';
import { Replayer, replayJournal, type ReplayResult } from './replay.ts';
import type { ReplayOutcome } from './replay-worker.ts';
import { PreparedStatements } from './prepared-statements.ts';
import { isNewStore, openSchemaImage, type SchemaImageSource } from './schema-image.ts';
import {
  imageAsSnapshot,
  openSnapshot,
  SNAPSHOT_FILE,
  SQLJS_SETTINGS,
  writeSnapshotFile,
} from './snapshot-file.ts';
import { SnapshotThread } from './snapshot-thread.ts';
import { loadSqlJs } from './sqljs.ts';
import { encodeFrameInTurns, FRAME_IN_TURNS_STATEMENTS, WriteBarrier } from './write-barrier.ts';

export { SQLJS_SETTINGS } from './snapshot-file.ts';

/** A bound value. No blobs: the journal is JSON. */
export type Param = string | number | null | boolean | undefined;
export type Row = Record<string, SqlValue>;

export interface Migration {
  version: number;
  name: string;
  up: (w: Writer) => void;
}

/** What a write callback may do: run SQL (journaled) and read (not journaled). */
export interface Writer {
  run(sql: string, params?: Param[]): number;
  all<T = Row>(sql: string, params?: Param[]): T[];
  get<T = Row>(sql: string, params?: Param[]): T | undefined;
  /** Runs cb if this write is rolled back, to undo in-memory caches filled during it. */
  onRollback(cb: () => void): void;
}

export interface DurableDbOptions {
  dir: string;
  migrations: Migration[];
  /** journal size after which a snapshot is taken (bytes) */
  snapshotThresholdBytes?: number;
  /**
   * For a new data directory: the database the first migrations build (schema-image.ts), written as its
   * snapshot instead of running them. Without one, or when it is stale, the migrations run.
   */
  schemaImage?: SchemaImageSource;
  /** image size from which replaceDatabase() has a worker thread make it the snapshot (bytes) */
  imageInWorkerBytes?: number;
}

export interface DurableDbStats {
  seq: number;
  journalBytes: number;
  snapshots: number;
  /** a snapshot is being written (by its worker thread) */
  snapshotting: boolean;
  lastSnapshotMs: number;
  groupsCommitted: number;
  replayedRecords: number;
  discardedTailBytes: number;
  failedSnapshots: number;
}

interface Group {
  sqls: string[];
  sqlIndex: Map<string, number>;
  statements: unknown[][];
  waiters: { resolve: () => void; reject: (err: Error) => void }[];
}

/**
 * Journal bytes after which a snapshot is taken: replaying this much on start (after kill -9) takes about
 * half a second here, mostly hidden behind the loading of the platform's modules, so that a restart answers
 * within 2 s. The snapshot is built and written by a worker thread; the network thread only rotates the
 * journal file.
 */
export const DEFAULT_SNAPSHOT_THRESHOLD = 4 * 1024 * 1024;

// Compiled to .js by build:core; run as .ts from the sources.
const IMAGE_WORKER_URL = new URL(
  `./image-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);
const REPLAY_WORKER_URL = new URL(
  `./replay-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

/**
 * Journal bytes from which an open replays in a worker thread: below, starting the worker (its own
 * sql.js) and handing the database over cost more than the replay itself.
 */
const REPLAY_IN_WORKER_BYTES = 512 * 1024;

/**
 * Image bytes from which replaceDatabase() has a worker thread make the image the snapshot: below, its
 * export on this thread takes a few ms, less than starting the worker.
 */
const IMAGE_IN_WORKER_BYTES = 1024 * 1024;

const NO_PARAMS: SqlValue[] = [];

/** The parameters as sql.js binds them: the caller's own array when nothing needs converting. */
function bindable(params: Param[] | undefined): SqlValue[] {
  if (!params) return NO_PARAMS;
  for (const p of params) {
    if (p === undefined || typeof p === 'boolean') {
      return params.map((q) => (q === undefined ? null : typeof q === 'boolean' ? (q ? 1 : 0) : q));
    }
  }
  return params as SqlValue[];
}

/**
 * sql.js with durability: every write callback runs inside the current group's transaction (under a
 * savepoint, so a failing callback leaves no trace), its statements are journaled, and its promise
 * resolves only after the group's journal frame is fsynced. Snapshots bound the journal's length.
 */
export class DurableDb {
  private statements: PreparedStatements;
  private group: Group | null = null;
  private ioBusy = false;
  private flushScheduled = false;
  private ioWaiters: (() => void)[] = [];
  private snapshotting: Promise<void> | null = null;
  /** the worker thread that writes snapshots, started at the first one */
  readonly snapshotThread = new SnapshotThread();
  private barrier: WriteBarrier | null = null;
  private fatal: Error | null = null;
  private rollbackHooks: (() => void)[] = [];
  private recordListeners: ((record: JournalRecord) => void)[] = [];
  private replacedListeners: (() => void)[] = [];
  private closed = false;
  /** replicas being seeded from the files: covered journal files are removed only when none is */
  private filePins = 0;
  private unpinnedRemovals: string[] = [];
  private seq: number;
  /** the journal position the snapshot file holds */
  private snapshotSeq: number;
  private readonly stats: DurableDbStats;
  private readonly writer: Writer;

  private readonly dir: string;
  private db: Database;
  private migrations: Migration[] = [];
  private imageInWorkerBytes = IMAGE_IN_WORKER_BYTES;
  private journal: JournalWriter;
  private readonly snapshotThreshold: number;

  private constructor(
    dir: string,
    db: Database,
    journal: JournalWriter,
    seq: number,
    snapshotSeq: number,
    stats: Omit<DurableDbStats, 'seq' | 'journalBytes' | 'snapshotting'>,
    snapshotThreshold: number,
  ) {
    this.dir = dir;
    this.snapshotSeq = snapshotSeq;
    this.db = db;
    this.statements = new PreparedStatements(db);
    this.journal = journal;
    this.snapshotThreshold = snapshotThreshold;
    this.seq = seq;
    this.stats = { seq, journalBytes: 0, snapshotting: false, ...stats };
    this.writer = {
      run: (sql, params) => this.runJournaled(sql, params),
      all: (sql, params) => this.all(sql, params),
      get: (sql, params) => this.get(sql, params),
      onRollback: (cb) => this.rollbackHooks.push(cb),
    };
  }

  static async open(options: DurableDbOptions): Promise<DurableDb> {
    const { dir } = options;
    mkdirSync(dir, { recursive: true });
    // A long journal is replayed by a worker thread, started before anything here waits: the caller
    // loads the rest of the platform meanwhile, and this thread only loads the replayed database.
    const replaying = journalBytes(dir) >= REPLAY_IN_WORKER_BYTES ? runReplayWorker(dir) : null;
    const SQL = await loadSqlJs();
    performance.mark('store: sql.js ready');
    let opened: { db: Database; snapshotSeq: number } & ReplayResult;
    const imaged =
      !replaying && options.schemaImage && isNewStore(dir) ? await startFromImage(SQL, dir, options) : null;
    if (replaying) {
      const { bytes, ...replayed } = await replaying;
      const db = openBytes(SQL, bytes);
      opened = { db, ...replayed };
    } else if (imaged) {
      opened = { db: imaged, snapshotSeq: 0, seq: 0, replayedRecords: 0, discardedTailBytes: 0 };
    } else {
      const { db, seq: snapshotSeq } = openSnapshot(SQL, dir);
      performance.mark('store: snapshot loaded');
      opened = { db, snapshotSeq, ...replayJournal(db, snapshotSeq, { dir, repair: true }) };
    }
    performance.mark('store: journal replayed');
    const { db, snapshotSeq, seq, replayedRecords, discardedTailBytes } = opened;
    const last = listJournalFiles(dir).at(-1);
    const journal = await JournalWriter.open(last ? last.path : join(dir, journalFileName(seq + 1)));
    const store = new DurableDb(
      dir,
      db,
      journal,
      seq,
      snapshotSeq,
      {
        snapshots: 0,
        failedSnapshots: 0,
        lastSnapshotMs: 0,
        groupsCommitted: 0,
        replayedRecords,
        discardedTailBytes,
      },
      options.snapshotThresholdBytes ?? DEFAULT_SNAPSHOT_THRESHOLD,
    );
    store.migrations = options.migrations;
    store.imageInWorkerBytes = options.imageInWorkerBytes ?? IMAGE_IN_WORKER_BYTES;
    await store.migrate(options.migrations);
    performance.mark('store: migrated');
    return store;
  }

  /** The raw sql.js database, for read-only work such as reports. */
  get raw(): Database {
    return this.db;
  }

  /**
   * How much of sql.js's memory the database takes, cheaply (three pragmas, no scan): allocated pages,
   * and those holding data (freed pages are reused before the file grows again).
   */
  sizeBytes(): { allocatedBytes: number; usedBytes: number } {
    const pragma = (name: string) => Number(Object.values(this.get(`PRAGMA ${name}`) ?? {})[0] ?? 0);
    const pageSize = pragma('page_size');
    const pages = pragma('page_count');
    const free = pragma('freelist_count');
    return { allocatedBytes: pages * pageSize, usedBytes: (pages - free) * pageSize };
  }

  getStats(): DurableDbStats {
    return {
      ...this.stats,
      seq: this.seq,
      journalBytes: this.journal.size,
      snapshotting: this.snapshotting !== null,
    };
  }

  all<T = Row>(sql: string, params?: Param[]): T[] {
    const stmt = this.statements.get(sql);
    try {
      stmt.bind(bindable(params));
      const rows: T[] = [];
      while (stmt.step()) rows.push(stmt.getAsObject() as T);
      return rows;
    } finally {
      stmt.reset();
    }
  }

  get<T = Row>(sql: string, params?: Param[]): T | undefined {
    const stmt = this.statements.get(sql);
    try {
      stmt.bind(bindable(params));
      return stmt.step() ? (stmt.getAsObject() as T) : undefined;
    } finally {
      stmt.reset();
    }
  }

  /**
   * Runs fn in the current write group. The returned promise resolves with fn's result once the group
   * is fsynced; it rejects at once (and nothing of fn remains) if fn throws.
   */
  write<T>(fn: (w: Writer) => T): Promise<T> {
    if (this.fatal) return Promise.reject(this.fatal);
    if (this.closed) return Promise.reject(new Error('The store is closed'));
    const group = this.openGroup();
    const mark = group.statements.length;
    this.exec('SAVEPOINT w');
    let result: T;
    this.rollbackHooks = [];
    try {
      result = fn(this.writer);
    } catch (err) {
      this.exec('ROLLBACK TO w');
      this.exec('RELEASE w');
      group.statements.length = mark;
      for (const hook of this.rollbackHooks) hook();
      this.rollbackHooks = [];
      return Promise.reject(err);
    }
    this.rollbackHooks = [];
    this.exec('RELEASE w');
    return new Promise<T>((resolve, reject) => {
      group.waiters.push({ resolve: () => resolve(result), reject });
      this.scheduleFlush();
    });
  }

  /**
   * Runs a long write over many event-loop turns (body awaits `turn()` between steps), all or nothing: it
   * is journaled as one record with the writes others made meanwhile, which run at once but are
   * acknowledged only with it. Resolves with body's result once durable; if body throws, nothing of it
   * remains. body must not await another write (that one waits for body).
   */
  async exclusive<T>(body: (w: Writer, turn: () => Promise<void>) => Promise<T>): Promise<T> {
    while (this.barrier) await this.barrier.done;
    if (this.fatal) throw this.fatal;
    if (this.closed) throw new Error('The store is closed');
    const barrier = new WriteBarrier({
      openStatements: () => this.openGroup().statements,
      exec: (sql) => this.exec(sql),
      rerun: (row) =>
        this.statements.get(this.group!.sqls[row[0] as number]!).run(row.slice(1) as SqlValue[]),
    });
    this.barrier = barrier;
    const hooks: (() => void)[] = [];
    const writer: Writer = { ...this.writer, onRollback: (cb) => hooks.push(cb) };
    const turn = async () => {
      barrier.pause();
      await new Promise((resolve) => setImmediate(resolve));
      barrier.resumed();
      if (this.fatal) throw this.fatal;
    };
    let result: T;
    try {
      result = await body(writer, turn);
    } catch (err) {
      barrier.rollback();
      this.barrier = null;
      for (const hook of hooks) hook();
      this.scheduleFlush();
      throw err;
    }
    barrier.commit();
    this.barrier = null;
    const group = this.openGroup();
    return new Promise<T>((resolve, reject) => {
      group.waiters.push({ resolve: () => resolve(result), reject });
      this.scheduleFlush();
    });
  }

  /** Resolves when every write issued so far is durable. */
  async flush(): Promise<void> {
    while (this.group || this.ioBusy) {
      if (this.barrier) await this.barrier.done;
      else if (this.ioBusy) await this.ioIdle();
      else await this.commitGroup();
    }
    if (this.fatal) throw this.fatal;
  }

  /** Resolves when every write issued so far is durable and no snapshot is under way. */
  async idle(): Promise<void> {
    await this.flush();
    await this.snapshotting?.catch(() => {});
  }

  /** Writes a snapshot of the whole database and drops the journal files it covers. */
  async snapshot(): Promise<void> {
    if (this.snapshotting) return this.snapshotting;
    this.snapshotting = this.takeSnapshot().finally(() => {
      this.snapshotting = null;
    });
    return this.snapshotting;
  }

  /**
   * Flushes, snapshots and releases the files. After a failed journal write it rejects with that failure,
   * writes no snapshot (memory holds a group that was refused) and still releases the files.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
      await this.snapshot();
      // a background snapshot that was under way may not hold the last writes
      if (this.seq !== this.snapshotSeq) await this.snapshot();
    } finally {
      this.closed = true;
      await this.snapshotThread.stop();
      await this.journal.close();
      this.statements.free();
      this.db.close();
    }
  }

  private async migrate(migrations: Migration[]): Promise<void> {
    if (!this.get("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'")) {
      await this.write((w) => {
        w.run(
          'CREATE TABLE _migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
        );
      });
    }
    const applied = new Set(
      this.all<{ version: number }>('SELECT version FROM _migrations').map((r) => r.version),
    );
    // Issued together, the migrations share one group: one fsynced journal frame for a new store, not one
    // per migration. Each still runs under its own savepoint; after one that throws, none later runs.
    const pending: Promise<void>[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(m.version)) continue;
      let failed = false;
      pending.push(
        this.write((w) => {
          try {
            m.up(w);
            w.run('INSERT INTO _migrations (version, name, applied_at) VALUES (?, ?, ?)', [
              m.version,
              m.name,
              Date.now(),
            ]);
          } catch (err) {
            failed = true;
            throw err;
          }
        }),
      );
      if (failed) break;
    }
    await Promise.all(pending);
  }

  private exec(sql: string): void {
    this.statements.get(sql).run();
  }

  private runJournaled(sql: string, params?: Param[]): number {
    const group = this.group;
    if (!group) throw new Error('Writer used outside of DurableDb.write()');
    const values = bindable(params);
    this.statements.get(sql).run(values);
    let index = group.sqlIndex.get(sql);
    if (index === undefined) {
      index = group.sqls.push(sql) - 1;
      group.sqlIndex.set(sql, index);
    }
    const row = new Array<unknown>(values.length + 1);
    row[0] = index;
    for (let i = 0; i < values.length; i++) row[i + 1] = values[i];
    group.statements.push(row);
    return this.db.getRowsModified();
  }

  private openGroup(): Group {
    if (!this.group) {
      this.exec('BEGIN');
      this.group = { sqls: [], sqlIndex: new Map(), statements: [], waiters: [] };
    }
    return this.group;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.ioBusy) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      void this.commitGroup();
    });
  }

  private ioIdle(): Promise<void> {
    return new Promise<void>((resolve) => this.ioWaiters.push(resolve));
  }

  /** Commits the open group's transaction and frames it for the journal. */
  private sealGroup(): { record: JournalRecord | null; group: Group } | null {
    const group = this.group;
    // a barrier's group stays open until the barrier is lifted
    if (!group || this.barrier) return null;
    this.group = null;
    if (group.statements.length === 0) {
      this.exec('COMMIT');
      return { record: null, group };
    }
    const seq = this.seq + 1;
    this.statements.get('UPDATE _journal_state SET seq = ? WHERE id = 1').run([seq]);
    this.exec('COMMIT');
    this.seq = seq;
    const record: JournalRecord = { seq, q: group.sqls, r: group.statements };
    for (const listener of this.recordListeners) listener(record);
    return { record, group };
  }

  /**
   * Seeds a read replica (for example the report worker): resolves with the whole database as SQLite
   * file bytes, and from that instant calls listener with every committed record, in order, as it is
   * sealed (before it is fsynced); the replica applies them with applyRecord(). Returns the bytes and
   * a function that stops the records. export() stalls the event loop: not for the hot path.
   */
  async replicate(
    listener: (record: JournalRecord) => void,
    onReplaced: () => void = () => {},
  ): Promise<{ bytes: Uint8Array; stop: () => void }> {
    while (this.group || this.ioBusy) {
      if (this.barrier) await this.barrier.done;
      else if (this.ioBusy) await this.ioIdle();
      else await this.commitGroup();
    }
    // No await from here: no group can open between the export and the subscription.
    const bytes = this.db.export();
    this.recordListeners.push(listener);
    this.replacedListeners.push(onReplaced);
    return {
      bytes,
      stop: () => {
        this.recordListeners = this.recordListeners.filter((l) => l !== listener);
        this.replacedListeners = this.replacedListeners.filter((l) => l !== onReplaced);
      },
    };
  }

  /**
   * Seeds a read replica from the files, with nothing heavy on this thread: resolves with where the
   * replica reads the database up to record `seq` (the snapshot file and journal files, which stay on disk
   * until `release()`), and from that instant calls listener with every later record, in order, as it is
   * sealed. The replica builds itself with openReplica() and applies the records with applyRecord(),
   * skipping those its snapshot already holds.
   */
  async replicateFromFiles(
    listener: (record: JournalRecord) => void,
    onReplaced: () => void = () => {},
  ): Promise<{ seed: ReplicaSeed; stop: () => void; release: () => void }> {
    while (this.group || this.ioBusy) {
      if (this.barrier) await this.barrier.done;
      else if (this.ioBusy) await this.ioIdle();
      else await this.commitGroup();
    }
    // No await from here: no group can open between the listing and the subscription.
    const seed: ReplicaSeed = {
      dir: this.dir,
      files: listJournalFiles(this.dir).map((file) => file.path),
      seq: this.seq,
    };
    this.filePins++;
    let pinned = true;
    this.recordListeners.push(listener);
    this.replacedListeners.push(onReplaced);
    return {
      seed,
      stop: () => {
        this.recordListeners = this.recordListeners.filter((l) => l !== listener);
        this.replacedListeners = this.replacedListeners.filter((l) => l !== onReplaced);
      },
      release: () => {
        if (!pinned) return;
        pinned = false;
        if (--this.filePins > 0) return;
        for (const file of this.unpinnedRemovals.splice(0)) removeFile(file);
      },
    };
  }

  private removeCoveredFiles(files: string[]): void {
    if (this.filePins > 0) this.unpinnedRemovals.push(...files);
    else for (const file of files) removeFile(file);
  }

  /**
   * Saves an image of the whole database (SQLite file bytes) at path, durably. The image is a copy of a
   * fresh snapshot, which the snapshot worker builds: nothing but the journal rotation runs on this thread.
   */
  async saveImage(path: string): Promise<void> {
    await this.idle();
    await this.snapshot();
    const tmp = `${path}.tmp`;
    await copyFile(join(this.dir, SNAPSHOT_FILE), tmp);
    const handle = await open(tmp, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
    await syncDir(this.dir);
  }

  /**
   * Makes the database the image saved by saveImage(), durably and at once. The image becomes the snapshot
   * (its journal position past every record written so far, so a kill before the old journal files are
   * removed replays none of them): a kill at any moment leaves either the old database or the image.
   * Writes issued while the image is being written are refused; read replicas are told (replicate()).
   */
  async replaceDatabase(imagePath: string): Promise<void> {
    if (this.fatal) throw this.fatal;
    if (this.closed) throw new Error('The store is closed');
    await this.idle();
    while (this.snapshotting) await this.snapshotting.catch(() => {});
    const replacing = this.swapIn(imagePath);
    this.snapshotting = replacing
      .catch(() => {})
      .finally(() => {
        this.snapshotting = null;
      });
    await replacing;
    await this.migrate(this.migrations);
  }

  private async swapIn(imagePath: string): Promise<void> {
    while (this.ioBusy) await this.ioIdle();
    this.ioBusy = true;
    try {
      const sealed = this.sealGroup();
      if (sealed) await this.appendSealed(sealed);
      if (this.fatal) throw this.fatal;
      const seq = this.seq + 1;
      const SQL = await loadSqlJs();
      // the image, holding seq, becomes the snapshot; a large one's export would stall this thread: a worker's
      let bytes: Uint8Array;
      if (statSync(imagePath).size >= this.imageInWorkerBytes)
        ({ bytes } = await runStoreWorker<ImageOutcome>(
          IMAGE_WORKER_URL,
          { dir: this.dir, imagePath, seq } satisfies ImageJob,
          'image',
        ));
      else {
        bytes = imageAsSnapshot(SQL, await readFile(imagePath), seq);
        await writeSnapshotFile(this.dir, bytes);
      }
      const db = openBytes(SQL, bytes);
      // From here on the image is the database on disk.
      const oldJournal = this.journal;
      this.journal = await JournalWriter.open(join(this.dir, journalFileName(seq + 1)));
      await oldJournal.close();
      for (const file of listJournalFiles(this.dir))
        if (file.path !== this.journal.path) removeFile(file.path);
      const refused = this.group;
      this.group = null;
      this.statements.free();
      this.db.close();
      this.db = db;
      this.statements = new PreparedStatements(db);
      this.seq = seq;
      this.snapshotSeq = seq;
      this.stats.snapshots++;
      const error = new Error(
        'The database was replaced while this write was pending; nothing of it was kept',
      );
      for (const w of refused?.waiters ?? []) w.reject(error);
      const replaced = this.replacedListeners;
      this.recordListeners = [];
      this.replacedListeners = [];
      for (const listener of replaced) listener();
    } finally {
      this.releaseIo();
    }
  }

  private async appendSealed(sealed: { record: JournalRecord | null; group: Group }): Promise<void> {
    if (this.fatal) {
      // an earlier group never reached the disk: nothing after it may be acknowledged either
      for (const w of sealed.group.waiters) w.reject(this.fatal);
      return;
    }
    try {
      const { record } = sealed;
      if (record) {
        // a long record's frame goes in pieces: a kill between them leaves a torn tail, which replay drops
        const pieces =
          record.r.length >= FRAME_IN_TURNS_STATEMENTS
            ? await encodeFrameInTurns(record)
            : [encodeFrame(record)];
        for (const piece of pieces) await this.journal.append(piece);
        this.stats.groupsCommitted++;
      }
      for (const w of sealed.group.waiters) w.resolve();
    } catch (err) {
      // The in-memory database now holds a group the disk does not: nothing more may be acknowledged.
      this.fatal = new Error(
        `Journal write failed, the store stopped accepting writes: ${(err as Error).message}`,
      );
      for (const w of sealed.group.waiters) w.reject(this.fatal);
    }
  }

  private async commitGroup(): Promise<void> {
    if (this.ioBusy || this.barrier) return;
    const sealed = this.sealGroup();
    if (!sealed) return;
    this.ioBusy = true;
    try {
      await this.appendSealed(sealed);
    } finally {
      this.releaseIo();
    }
    if (!this.snapshotting && !this.closed && this.journal.size >= this.snapshotThreshold) {
      // A failed background snapshot loses nothing (the journal still holds every group); say so and go on.
      this.snapshot().catch((err: unknown) => {
        this.stats.failedSnapshots++;
        if (!this.closed)
          process.stderr.write(`store: background snapshot failed: ${(err as Error).message}\n`);
      });
    }
  }

  private releaseIo(): void {
    this.ioBusy = false;
    const waiters = this.ioWaiters;
    this.ioWaiters = [];
    for (const resolve of waiters) resolve();
    if (this.group) this.scheduleFlush();
  }

  /**
   * Rotates the journal (the records up to `seq` are then all in closed, fsynced files) and has a worker
   * thread build the snapshot from those files: nothing but the rotation runs on this thread.
   */
  private async takeSnapshot(): Promise<void> {
    while (this.ioBusy) await this.ioIdle();
    const started = performance.now();
    const sealed = this.sealGroup();
    const seq = this.seq;
    if (seq === this.snapshotSeq) {
      if (sealed) await this.appendSealed(sealed);
      return;
    }
    this.ioBusy = true;
    const oldJournal = this.journal;
    try {
      if (sealed) await this.appendSealed(sealed);
      if (this.fatal) throw this.fatal;
      this.journal = await JournalWriter.open(join(this.dir, journalFileName(seq + 1)));
    } finally {
      this.releaseIo();
    }
    await oldJournal.close();
    const covered = listJournalFiles(this.dir)
      .filter((file) => file.firstSeq <= seq && file.path !== this.journal.path)
      .map((file) => file.path);
    await this.snapshotThread.run(
      { dir: this.dir, files: covered, seq, snapshotSeq: this.snapshotSeq },
      this.sizeBytes().allocatedBytes,
    );
    this.snapshotSeq = seq;
    this.removeCoveredFiles(covered);
    this.stats.snapshots++;
    this.stats.lastSnapshotMs = performance.now() - started;
  }
}

/** The bytes of dir's journal files (what an open replays, or skips where the snapshot holds it). */
function journalBytes(dir: string): number {
  let bytes = 0;
  for (const file of listJournalFiles(dir))
    bytes += statSync(file.path, { throwIfNoEntry: false })?.size ?? 0;
  return bytes;
}

function runReplayWorker(dir: string): Promise<Extract<ReplayOutcome, { ok: true }>> {
  return runStoreWorker<ReplayOutcome>(REPLAY_WORKER_URL, { dir }, 'replay');
}

/** A database of file bytes a worker handed over: as a Buffer, which sql.js's file system keeps a view of
 * (a plain Uint8Array it copies: tens of ms for a large store, in one turn). */
function openBytes(SQL: SqlJsStatic, bytes: Uint8Array): Database {
  const db = new SQL.Database(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  db.exec(SQLJS_SETTINGS);
  return db;
}

/** Runs one of the store's worker threads to its end: resolves with its {ok: true} message. */
function runStoreWorker<T extends { ok: true } | { ok: false; message: string }>(
  url: URL,
  workerData: unknown,
  name: string,
): Promise<Extract<T, { ok: true }>> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(url, { workerData });
    let outcome: T | undefined;
    worker.once('message', (message: T) => (outcome = message));
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (outcome?.ok) resolve(outcome as Extract<T, { ok: true }>);
      else reject(new Error(outcome?.ok === false ? outcome.message : `${name} worker exited with ${code}`));
    });
  });
}

/**
 * A new store's database from its schema image, once the image is its snapshot on disk (fsynced before any
 * journal record can follow it); null when there is no usable image (the caller runs the migrations).
 */
async function startFromImage(
  SQL: SqlJsStatic,
  dir: string,
  options: DurableDbOptions,
): Promise<Database | null> {
  let image: Uint8Array | null;
  try {
    image = options.schemaImage!();
  } catch {
    image = null;
  }
  if (!image) return null;
  const opened = openSchemaImage(SQL, image, options.migrations);
  if (!opened.db) {
    process.emitWarning(`The schema image is not used: ${opened.reason}; running the migrations instead`);
    return null;
  }
  try {
    await writeSnapshotFile(dir, image);
  } catch (err) {
    opened.db.close();
    throw err;
  }
  performance.mark('store: schema image loaded');
  return opened.db;
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** each replica's replayer: its prepared statements serve every record it applies */
const replicaReplayers = new WeakMap<Database, Replayer>();
/** prepared statements a replica's replayer keeps at most; past it they are freed and prepared anew */
const REPLICA_STATEMENTS = 256;

/** Applies one journal record to a database (read replicas). */
export function applyRecord(db: Database, record: JournalRecord): void {
  let replayer = replicaReplayers.get(db);
  if (!replayer) replicaReplayers.set(db, (replayer = new Replayer(db, record.seq - 1)));
  replayer.seq = record.seq - 1;
  replayer.apply(record);
  replayer.commit();
  if (replayer.preparedCount > REPLICA_STATEMENTS) replayer.free();
}
