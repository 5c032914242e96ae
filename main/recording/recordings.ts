import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { RecordingInfo, RecordingList, StartRecording } from '../../shared/schemas/recordings-api.ts';
import { invalidArgument, notFound } from '../platform/errors.ts';
import { Recorder, type RecorderSources } from './recorder.ts';
import { mib } from './recording-file.ts';
import { readHeaderLine, scanRecording } from './recording-scan.ts';

export interface RecordingsOptions {
  /** where the files live: DATA_DIR/recordings */
  dir: string;
  /** one recording's file at most */
  maxBytes: number;
  /** all files together at most */
  totalMaxBytes: number;
}

/** Recordings under way at once. */
const MAX_ACTIVE = 4;
/** Recordings kept (their files) at most. */
export const MAX_KEPT = 1000;
/** A recording gets at least this much room, or it is refused. */
const MIN_ROOM_BYTES = 64 * 1024;

/** a recording's id (its file's name) */
export const RECORDING_ID = /^[0-9a-f-]{36}$/;

/**
 * The recordings: one JSON Lines file each in DATA_DIR/recordings ({id}.ndjson, a renamed one's name in
 * {id}.name.json), those under way, and the bounds: each file's, and all files' together (a new
 * recording gets what room is left, the files of those under way counted at their full bound).
 */
export class Recordings {
  private readonly sources: RecorderSources;
  private readonly options: RecordingsOptions;
  private readonly active = new Map<string, Recorder>();
  /** finished recordings (stopped or interrupted), as their files say */
  private readonly finished = new Map<string, RecordingInfo>();

  private constructor(sources: RecorderSources, options: RecordingsOptions) {
    this.sources = sources;
    this.options = options;
  }

  /**
   * Reads what earlier runs left in the folder (a recording a crash cut is listed as interrupted); the
   * folder itself is made by the first recording.
   */
  static async open(sources: RecorderSources, options: RecordingsOptions): Promise<Recordings> {
    const recordings = new Recordings(sources, options);
    // each recording under way listens to the platform's events once
    const { events } = sources;
    if (events.getMaxListeners() > 0) events.setMaxListeners(events.getMaxListeners() + 1 + MAX_ACTIVE);
    await recordings.rescan();
    // a sandbox import or a reset to the class start writes and removes the files
    events.on('sandboxLoaded', () => {
      recordings
        .rescan()
        .catch((err: unknown) => process.stderr.write(`recordings: ${(err as Error).message}\n`));
    });
    return recordings;
  }

  /** Lists the folder again: those under way whose file is gone stop, the finished are read anew. */
  private async rescan(): Promise<void> {
    const files = await readdir(this.options.dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
    const ids = files
      .map((file) => (file.endsWith('.ndjson') ? file.slice(0, -'.ndjson'.length) : ''))
      .filter((id) => RECORDING_ID.test(id));
    for (const [id, recorder] of [...this.active])
      if (!ids.includes(id)) {
        await recorder.stop('removed by a sandbox import');
        await recorder.done;
      }
    const found = new Map<string, RecordingInfo>();
    for (const id of ids) {
      if (this.active.has(id)) continue;
      const info = await scanRecording(this.filePath(id), this.options.maxBytes, this.namePath(id)).catch(
        () => undefined,
      );
      if (info?.id === id) found.set(id, info);
    }
    this.finished.clear();
    for (const [id, info] of found) this.finished.set(id, info);
  }

  list(): RecordingList {
    const recordings = [...this.active.values()]
      .map((r) => r.info())
      .concat([...this.finished.values()])
      .sort((a, b) => b.startedAt - a.startedAt);
    return {
      recordings,
      usedBytes: recordings.reduce((sum, r) => sum + r.bytes, 0),
      totalMaxBytes: this.options.totalMaxBytes,
      recordingMaxBytes: this.options.maxBytes,
    };
  }

  get(id: string): RecordingInfo {
    return this.active.get(id)?.info() ?? this.finishedOne(id);
  }

  async start(request: StartRecording): Promise<RecordingInfo> {
    if (this.active.size >= MAX_ACTIVE)
      throw invalidArgument(`${MAX_ACTIVE} recordings are under way already: stop one first`);
    if (this.finished.size + this.active.size >= MAX_KEPT)
      throw invalidArgument(`${MAX_KEPT} recordings are kept already: delete some first`);
    let taken = 0;
    for (const r of this.finished.values()) taken += r.bytes;
    for (const r of this.active.values()) taken += r.options.limitBytes;
    const room = Math.min(this.options.maxBytes, this.options.totalMaxBytes - taken);
    if (room < MIN_ROOM_BYTES)
      throw invalidArgument(
        `Recordings take ${mib(taken)} of their ${mib(this.options.totalMaxBytes)} bound (SANDBOARD_RECORDINGS_MAX_MB): delete some first`,
      );
    const id = randomUUID();
    const startedAt = new Date();
    await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
    const recorder = await Recorder.start(this.sources, {
      id,
      name: request.name ?? `Recording ${startedAt.toISOString().slice(0, 19).replace('T', ' ')}`,
      path: this.filePath(id),
      durationMs: request.durationMs,
      filter: request.filter ?? {},
      limitBytes: room,
    });
    this.active.set(id, recorder);
    void recorder.done.then(() => {
      this.active.delete(id);
      this.finished.set(id, recorder.info());
    });
    return recorder.info();
  }

  async stop(id: string, reason = 'stopped early'): Promise<RecordingInfo> {
    const recorder = this.active.get(id);
    if (!recorder) return this.finishedOne(id);
    await recorder.stop(reason);
    return recorder.info();
  }

  async rename(id: string, name: string): Promise<RecordingInfo> {
    const info = this.get(id);
    const tmp = `${this.namePath(id)}.tmp`;
    await writeFile(tmp, JSON.stringify({ name }), { mode: 0o600 });
    await rename(tmp, this.namePath(id));
    const recorder = this.active.get(id);
    if (recorder) recorder.name = name;
    else this.finished.set(id, { ...info, name });
    return this.get(id);
  }

  async delete(id: string): Promise<void> {
    const recorder = this.active.get(id);
    if (recorder) await recorder.stop('deleted while recording');
    else this.finishedOne(id);
    this.finished.delete(id);
    await rm(this.filePath(id), { force: true });
    await rm(this.namePath(id), { force: true });
  }

  /**
   * The file to download: its header carries the current name, the rest is streamed as it is on disk
   * (of one under way, what is written so far).
   */
  async download(id: string): Promise<{ name: string; stream: Readable }> {
    const info = this.get(id);
    const path = this.filePath(id);
    const head = await readHeaderLine(path);
    if (!head) throw notFound(`Recording ${id} has no header yet`);
    const header = { ...(JSON.parse(head.line) as Record<string, unknown>), name: info.name };
    async function* lines() {
      yield Buffer.from(`${JSON.stringify(header)}\n`);
      yield* createReadStream(path, { start: head!.rest });
    }
    return { name: info.name, stream: Readable.from(lines()) };
  }

  /** Ends every recording under way (Sandboard stops): each gets its end record. */
  async close(): Promise<void> {
    await Promise.all([...this.active.values()].map((r) => r.stop('Sandboard stopped')));
  }

  private finishedOne(id: string): RecordingInfo {
    const info = RECORDING_ID.test(id) ? this.finished.get(id) : undefined;
    if (!info) throw notFound(`Recording with id [${id}] is not found`);
    return info;
  }

  private filePath(id: string): string {
    return join(this.options.dir, `${id}.ndjson`);
  }

  private namePath(id: string): string {
    return join(this.options.dir, `${id}.name.json`);
  }
}
