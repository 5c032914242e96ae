import { open, type FileHandle } from 'node:fs/promises';

/** Lines wait at most this long before they are appended. */
const FLUSH_MS = 100;
/** ...or until this much waits. */
const FLUSH_BYTES = 1024 * 1024;
/** Waiting lines past this (the disk is slower than the traffic): the recording stops, saying so. */
export const MAX_PENDING_BYTES = 32 * 1024 * 1024;

/**
 * One recording's file, appended in batches (never a write per record): lines wait in memory at most
 * FLUSH_MS or FLUSH_BYTES, and one write is in flight at a time. `bytes` counts every line taken, written
 * or waiting, against the file's bound, which the caller checks with fits() before it appends.
 */
export class RecordingFile {
  readonly path: string;
  bytes: number;
  private readonly file: FileHandle;
  private waiting: string[] = [];
  private waitingBytes = 0;
  /** taken and not yet on the file: waiting and in flight */
  private unwrittenBytes = 0;
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private failure: Error | undefined;

  private constructor(path: string, file: FileHandle, bytes: number) {
    this.path = path;
    this.file = file;
    this.bytes = bytes;
  }

  /** A new file (`wx`: never over another). */
  static async create(path: string): Promise<RecordingFile> {
    return new RecordingFile(path, await open(path, 'wx', 0o600), 0);
  }

  /** Why writing failed, if it did (the recording stops and says so). */
  get error(): Error | undefined {
    return this.failure;
  }

  /** Lines taken and not yet written: the caller stops before MAX_PENDING_BYTES. */
  get backlog(): number {
    return this.unwrittenBytes;
  }

  fits(lineBytes: number, limit: number): boolean {
    return this.bytes + lineBytes <= limit;
  }

  /** Takes one line (JSON text without its newline); its byte length is the caller's (it checked fits()). */
  append(line: string, lineBytes: number): void {
    this.waiting.push(line);
    this.waitingBytes += lineBytes;
    this.unwrittenBytes += lineBytes;
    this.bytes += lineBytes;
    if (this.waitingBytes >= FLUSH_BYTES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Appends what waits (after what is in flight); resolves once it is written. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.length === 0) return this.writing;
    const text = this.waiting.join('');
    const size = this.waitingBytes;
    this.waiting = [];
    this.waitingBytes = 0;
    this.writing = this.writing.then(async () => {
      if (this.failure) return;
      try {
        await this.file.write(text);
      } catch (err) {
        this.failure = err as Error;
      }
      this.unwrittenBytes -= size;
    });
    return this.writing;
  }

  /** Writes what waits, syncs and closes. */
  async close(): Promise<void> {
    await this.flush();
    try {
      await this.file.sync();
    } finally {
      await this.file.close();
    }
  }
}

/** A record as its line in the file: JSON and a newline. */
export function lineOf(record: object): { line: string; bytes: number } {
  const line = `${JSON.stringify(record)}\n`;
  return { line, bytes: Buffer.byteLength(line) };
}

/** "64 MiB", "0.1 MiB" */
export const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
