import {
  constants,
  closeSync,
  fdatasyncSync,
  openSync,
  readdirSync,
  readFileSync,
  ftruncateSync,
  unlinkSync,
} from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';

/**
 * Append-only journal of committed write groups. A frame is
 * [u32 payload length][u32 crc32 of payload][payload = JSON {seq, q: sql[], r: [sqlIndex, ...params][]}].
 * Files are named journal-<firstSeq>.log; a snapshot rotates to a new file so old files can be deleted
 * once the snapshot that covers them is on disk.
 */
export interface JournalRecord {
  seq: number;
  /** distinct SQL texts used by the record */
  q: string[];
  /** statements: [index into q, ...params] */
  r: unknown[][];
}

const HEADER_BYTES = 8;
const FILE_PATTERN = /^journal-(\d+)\.log$/;

export function journalFileName(firstSeq: number): string {
  return `journal-${String(firstSeq).padStart(16, '0')}.log`;
}

export function listJournalFiles(dir: string): { path: string; firstSeq: number }[] {
  return readdirSync(dir)
    .map((name) => ({ name, m: FILE_PATTERN.exec(name) }))
    .filter((f): f is { name: string; m: RegExpExecArray } => f.m !== null)
    .map((f) => ({ path: join(dir, f.name), firstSeq: Number(f.m[1]) }))
    .sort((a, b) => a.firstSeq - b.firstSeq);
}

export function encodeFrame(record: JournalRecord): Buffer {
  const payload = Buffer.from(JSON.stringify(record), 'utf8');
  const frame = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(payload), 4);
  payload.copy(frame, HEADER_BYTES);
  return frame;
}

/**
 * Hands each intact record of a journal file to onRecord as it is parsed (a long journal's records are not
 * all held at once: kept, they would cost the garbage collector more than the parsing), up to the first
 * torn or corrupt frame.
 */
export function scanJournalFile(
  path: string,
  onRecord: (record: JournalRecord) => void,
): { validBytes: number; tornBytes: number } {
  const buf = readFileSync(path);
  let offset = 0;
  while (offset + HEADER_BYTES <= buf.length) {
    const len = buf.readUInt32LE(offset);
    const sum = buf.readUInt32LE(offset + 4);
    const end = offset + HEADER_BYTES + len;
    if (end > buf.length) break;
    const payload = buf.subarray(offset + HEADER_BYTES, end);
    if (crc32(payload) !== sum) break;
    let record: JournalRecord;
    try {
      record = JSON.parse(payload.toString('utf8')) as JournalRecord;
    } catch {
      break;
    }
    onRecord(record);
    offset = end;
  }
  return { validBytes: offset, tornBytes: buf.length - offset };
}

/** Cuts a torn tail off so that later appends follow the last intact frame. */
export function truncateFile(path: string, length: number): void {
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, length);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/**
 * With O_DSYNC each write returns once its data is on disk, as write + fdatasync would, in one system call:
 * one trip through libuv's thread pool per group instead of two, which is most of a group's latency when
 * the event loop is busy. Where the flag does not exist the writer falls back to write + fdatasync.
 */
const DSYNC_APPEND =
  constants.O_DSYNC === undefined
    ? undefined
    : constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC;

/** One open journal file that frames are appended to, one durable write per group. */
export class JournalWriter {
  readonly path: string;
  private readonly handle: FileHandle;
  private bytes: number;

  private constructor(path: string, handle: FileHandle, bytes: number) {
    this.path = path;
    this.handle = handle;
    this.bytes = bytes;
  }

  /** Opens (or creates) a journal file; a new file's directory entry is fsynced before anything is appended. */
  static async open(path: string): Promise<JournalWriter> {
    const handle = await open(path, DSYNC_APPEND ?? 'a');
    const { size } = await handle.stat();
    if (size === 0) {
      const dir = await open(dirname(path), 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
    }
    return new JournalWriter(path, handle, size);
  }

  get size(): number {
    return this.bytes;
  }

  async append(frames: Buffer): Promise<void> {
    let written = 0;
    // a regular file takes the whole buffer at once; the loop is for the rare short write
    while (written < frames.length) {
      const { bytesWritten } = await this.handle.write(frames, written, frames.length - written);
      written += bytesWritten;
    }
    if (DSYNC_APPEND === undefined) await this.handle.datasync();
    this.bytes += frames.length;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
