import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { pipeline, Readable } from 'node:stream';
import {
  headerIssues,
  lineIssues,
  SANDBOX_LIMITS,
  SandboxFormatError,
  type SandboxHeader,
  type SandboxIssue,
  type SandboxRow,
  type SandboxTsRow,
  type ThingsBoardPart,
} from '../../../shared/schemas/sandbox.ts';
import type { AttachedLine } from './sandbox-attachments.ts';
import { TsRowColumns } from './ts-row-columns.ts';

/** A sandbox file read whole and checked line by line, ready to plan and apply. */
export interface ParsedSandbox {
  header: SandboxHeader;
  /** rows by table, each chunk with the line it came from (for messages) */
  tables: Map<string, { line: number; rows: SandboxRow[] }[]>;
  latest: SandboxTsRow[];
  history: TsRowColumns;
  thingsboard: ThingsBoardPart[];
  /** lines of the kinds the store does not hold (recordings), by kind, for their attachments */
  attached: Map<string, AttachedLine[]>;
}

export interface ReadOptions {
  /** bytes of the file as given (gzipped or not) */
  totalBytes?: number;
  /** bound on the bytes once unzipped (a small gzip may unpack to a lot) */
  maxBytes: number;
  onProgress?: (fraction: number) => void;
  /**
   * read only the attached lines the exporter writes first, right after the header, and stop at the
   * first other line (a class start's recordings, beside its database image)
   */
  attachedOnly?: boolean;
}

/** The line kinds the store holds (every other known kind is attached). */
const STORE_KINDS = ['table', 'latest', 'history', 'thingsboard', 'end'];
const storeLine = (text: string) => STORE_KINDS.some((k) => text.startsWith(`{"${k}"`));

const GZIP_MAGIC = [0x1f, 0x8b];

/** Splits a byte stream (gzipped or not) into lines, bounding each line and the whole. */
async function* linesOf(input: Readable, o: ReadOptions): AsyncGenerator<string> {
  let rawBytes = 0;
  let bytes = 0;
  let rest = '';
  const decoder = new StringDecoder('utf8');
  const it = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await it.next();
  if (first.done) return;
  const head = Buffer.from(first.value);
  const counted = (async function* (): AsyncGenerator<Buffer> {
    for (let b: Buffer | undefined = head; b;) {
      rawBytes += b.length;
      o.onProgress?.(o.totalBytes ? Math.min(1, rawBytes / o.totalBytes) : 0);
      yield b;
      const next = await it.next();
      b = next.done ? undefined : Buffer.from(next.value);
    }
  })();
  const gzipped = head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  const stream: AsyncIterable<Buffer> = gzipped
    ? pipeline(Readable.from(counted), createGunzip(), () => undefined)
    : counted;
  try {
    for await (const chunk of stream) {
      bytes += chunk.length;
      if (bytes > o.maxBytes)
        throw new SandboxFormatError([
          { path: '', message: `unpacks to more than ${o.maxBytes} bytes (the import limit)` },
        ]);
      rest += decoder.write(chunk);
      let from = 0;
      let nl: number;
      while ((nl = rest.indexOf('\n', from)) >= 0) {
        yield rest.slice(from, nl);
        from = nl + 1;
      }
      rest = rest.slice(from);
      if (rest.length > SANDBOX_LIMITS.lineChars)
        throw new SandboxFormatError([
          { path: '', message: `has a line longer than ${SANDBOX_LIMITS.lineChars} characters` },
        ]);
    }
  } catch (err) {
    if (err instanceof SandboxFormatError) throw err;
    throw new SandboxFormatError([{ path: '', message: `cannot be read: ${(err as Error).message}` }]);
  }
  if (rest.trim()) yield rest;
}

/**
 * Reads a whole sandbox file from a stream, checking every line; throws a SandboxFormatError naming each
 * problem (by line and JSON path) for a file that is not JSON Lines, of a newer version, or cut short.
 */
export async function readSandbox(input: Readable, o: ReadOptions): Promise<ParsedSandbox> {
  const issues: SandboxIssue[] = [];
  let header: SandboxHeader | undefined;
  const parsed: Omit<ParsedSandbox, 'header'> = {
    tables: new Map(),
    latest: [],
    history: new TsRowColumns(),
    thingsboard: [],
    attached: new Map(),
  };
  let lineNo = 0;
  let ended = false;
  for await (const text of linesOf(input, o)) {
    lineNo++;
    if (o.attachedOnly && header && storeLine(text)) return { header, ...parsed };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      issues.push({ path: `line ${lineNo}`, message: 'is not JSON (is the file cut short?)' });
      if (lineNo === 1 || issues.length >= 20) break;
      continue;
    }
    if (lineNo === 1) {
      const h = headerIssues(value);
      if (h.length) throw new SandboxFormatError(h);
      header = value as SandboxHeader;
      continue;
    }
    if (ended) {
      issues.push({ path: `line ${lineNo}`, message: 'comes after the end line' });
      break;
    }
    const li = lineIssues(value, lineNo, header!.version);
    if (li.length) {
      issues.push(...li);
      if (issues.length >= 20) break;
      continue;
    }
    const v = value as Record<string, unknown>;
    if ('table' in v) {
      const list = parsed.tables.get(v.table as string) ?? [];
      list.push({ line: lineNo, rows: v.rows as SandboxRow[] });
      parsed.tables.set(v.table as string, list);
    } else if ('latest' in v) for (const r of v.latest as SandboxTsRow[]) parsed.latest.push(r);
    else if ('history' in v) for (const r of v.history as SandboxTsRow[]) parsed.history.push(r);
    else if ('thingsboard' in v) parsed.thingsboard.push(v.thingsboard as ThingsBoardPart);
    else if (!('end' in v)) {
      const kind = Object.keys(v)[0]!;
      const list = parsed.attached.get(kind) ?? [];
      list.push({ line: lineNo, value: v[kind] });
      parsed.attached.set(kind, list);
    } else {
      ended = true;
      if (v.lines !== lineNo - 1)
        issues.push({
          path: `line ${lineNo}: lines`,
          message: `says ${String(v.lines)} lines come before it, the file has ${lineNo - 1} (a line is missing)`,
        });
    }
  }
  if (!header && issues.length === 0) issues.push({ path: '', message: 'the file is empty' });
  if (!ended && issues.length === 0)
    issues.push({ path: '', message: 'has no end line: the file is cut short (truncated)' });
  if (issues.length) throw new SandboxFormatError(issues);
  return { header: header!, ...parsed };
}
