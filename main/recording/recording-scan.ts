import { createReadStream } from 'node:fs';
import { open, readFile, stat, truncate } from 'node:fs/promises';
import {
  RECORDING_MAX_LINE_CHARS,
  recordingHeaderIssues,
  type RecordingHeader,
} from '../../shared/schemas/recording.ts';
import type { RecordingInfo } from '../../shared/schemas/recordings-api.ts';

const CHUNK = 64 * 1024;
/** A line is at most this many bytes (each character up to 4 in UTF-8). */
const MAX_LINE_BYTES = RECORDING_MAX_LINE_CHARS * 4;

/** The first line of a file (the header), and where the rest starts. */
export async function readHeaderLine(path: string): Promise<{ line: string; rest: number } | undefined> {
  const file = await open(path, 'r');
  try {
    let text = Buffer.alloc(0);
    for (let at = 0; at < MAX_LINE_BYTES; at += CHUNK) {
      const buf = Buffer.alloc(CHUNK);
      const { bytesRead } = await file.read(buf, 0, CHUNK, at);
      if (bytesRead === 0) return undefined;
      const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
      if (nl >= 0) {
        text = Buffer.concat([text, buf.subarray(0, nl)]);
        return { line: text.toString('utf8'), rest: text.length + 1 };
      }
      text = Buffer.concat([text, buf.subarray(0, bytesRead)]);
    }
    return undefined;
  } finally {
    await file.close();
  }
}

/** The last complete line of a file, and where the complete lines end (a line a crash cut starts there). */
async function lastLine(path: string, size: number): Promise<{ line: string; end: number } | undefined> {
  const file = await open(path, 'r');
  try {
    let tail = Buffer.alloc(0);
    let from = size;
    let end = -1;
    while (from > 0 && size - from <= MAX_LINE_BYTES + CHUNK) {
      const len = Math.min(CHUNK, from);
      from -= len;
      const buf = Buffer.alloc(len);
      await file.read(buf, 0, len, from);
      tail = Buffer.concat([buf, tail]);
      if (end < 0) {
        const nl = tail.lastIndexOf(0x0a);
        if (nl < 0) continue;
        end = from + nl + 1;
        tail = tail.subarray(0, nl);
      }
      const before = tail.lastIndexOf(0x0a);
      if (before >= 0) return { line: tail.subarray(before + 1).toString('utf8'), end };
      if (from === 0) return { line: tail.toString('utf8'), end };
    }
    return undefined;
  } finally {
    await file.close();
  }
}

async function countLines(path: string): Promise<number> {
  let n = 0;
  for await (const chunk of createReadStream(path)) {
    const buf = chunk as Buffer;
    for (let i = buf.indexOf(0x0a); i >= 0; i = buf.indexOf(0x0a, i + 1)) n++;
  }
  return n;
}

const parse = (line: string): Record<string, unknown> | undefined => {
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * What a recording file left by an earlier run holds, read from its header and its last line. One a
 * crash cut (no end record) is `interrupted`: a line half written is cut off, so that it reads whole.
 * Undefined for a file that is no recording.
 */
export async function scanRecording(
  path: string,
  limitBytes: number,
  namePath: string,
): Promise<RecordingInfo | undefined> {
  const head = await readHeaderLine(path);
  const header = head && parse(head.line);
  if (!header || recordingHeaderIssues(header).length) return undefined;
  const h = header as unknown as RecordingHeader;
  let size = (await stat(path)).size;
  const last = await lastLine(path, size);
  if (last && last.end < size) {
    await truncate(path, last.end);
    size = last.end;
  }
  const end = last && parse(last.line);
  const ended = end?.kind === 'end';
  const t = typeof end?.t === 'number' ? end.t : 0;
  const records = ended && typeof end.records === 'number' ? end.records : (await countLines(path)) - 1;
  const renamed = await readFile(namePath, 'utf8').then(
    (text) => parse(text)?.name,
    () => undefined,
  );
  return {
    id: h.id ?? '',
    name: typeof renamed === 'string' ? renamed : (h.name ?? ''),
    state: ended ? 'stopped' : 'interrupted',
    startedAt: h.startedAt,
    durationMs: h.durationMs ?? t,
    recordedMs: t,
    records: Math.max(0, records),
    bytes: size,
    limitBytes,
    truncated: ended && end.truncated === true,
    ...(ended && typeof end.reason === 'string'
      ? { reason: end.reason }
      : ended
        ? {}
        : { reason: 'Sandboard stopped while recording (the file has no end record)' }),
    filter: h.filter ?? {},
  };
}
