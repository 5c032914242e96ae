import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { recordingHeaderIssues, recordingRecordIssues } from '../../shared/schemas/recording.ts';
import {
  SANDBOX_LIMITS,
  SandboxFormatError,
  type SandboxIssue,
  type SandboxPlanItem,
  type SandboxRecordingPart,
} from '../../shared/schemas/sandbox.ts';
import { syncDir, writeSynced } from '../platform/durable-file.ts';
import { PlatformError } from '../platform/errors.ts';
import type {
  AttachedImport,
  AttachedLine,
  AttachedPlan,
  SandboxAttachment,
  StagedAttachment,
} from '../platform/sandbox/sandbox-attachments.ts';
import { mib } from './recording-file.ts';
import { readHeaderLine } from './recording-scan.ts';
import { MAX_KEPT, RECORDING_ID } from './recordings.ts';

export interface RecordingsSandboxOptions {
  /** DATA_DIR/recordings */
  dir: string;
  /** one recording's file at most (SANDBOARD_RECORDING_MAX_MB) */
  maxBytes: number;
  /** all recordings' files together at most (SANDBOARD_RECORDINGS_MAX_MB) */
  totalMaxBytes: number;
}

const FILE = '.ndjson';
/** a recording an import has written and synced, waiting for the store's write */
const STAGED = '.ndjson.import';
/** what the import under way staged (its id, the recordings it removes and writes) */
const PENDING = 'import-pending.json';
const PLAN_ITEMS = 100;

type Rec = Record<string, unknown>;

/** A recording of the file, its parts put together and checked. */
interface Carried {
  id: string;
  name: string;
  /** the line of its first part (for messages) */
  line: number;
  records: Rec[];
  bytes: number;
}

/** A recording in the folder. */
interface Held {
  id: string;
  name: string;
  bytes: number;
}

const recordBytes = (r: Rec) => Buffer.byteLength(JSON.stringify(r)) + 1;

/** Recordings' ids in the folder (their files), without reading them. */
function heldIdsSync(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(FILE) && RECORDING_ID.test(f.slice(0, -FILE.length)))
      .map((f) => f.slice(0, -FILE.length))
      .sort();
  } catch {
    return [];
  }
}

async function nameOf(dir: string, id: string, header: Rec | undefined): Promise<string> {
  const renamed = await readFile(join(dir, `${id}.name.json`), 'utf8').then(
    (text) => (JSON.parse(text) as { name?: unknown }).name,
    () => undefined,
  );
  if (typeof renamed === 'string') return renamed;
  return typeof header?.name === 'string' ? header.name : '';
}

async function heldRecordings(dir: string): Promise<Map<string, Held>> {
  const held = new Map<string, Held>();
  for (const id of heldIdsSync(dir)) {
    const path = join(dir, `${id}${FILE}`);
    const head = await readHeaderLine(path).catch(() => undefined);
    let header: Rec | undefined;
    try {
      header = head ? (JSON.parse(head.line) as Rec) : undefined;
    } catch {
      header = undefined;
    }
    const bytes = await stat(path).then(
      (s) => s.size,
      () => 0,
    );
    held.set(id, { id, name: await nameOf(dir, id, header), bytes });
  }
  return held;
}

/**
 * One recording's records as its file holds them: the header (with its current name and id) and the
 * records that read whole and check (a line cut by a crash, or one under way, is left out).
 */
async function recordsOf(dir: string, id: string): Promise<Rec[] | undefined> {
  const text = await readFile(join(dir, `${id}${FILE}`), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const records: Rec[] = [];
  for (const raw of text.slice(0, text.lastIndexOf('\n') + 1).split('\n')) {
    if (!raw.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      continue;
    }
    const first = records.length === 0;
    if ((first ? recordingHeaderIssues(value) : recordingRecordIssues(value, 0)).length) {
      if (first) return undefined;
      continue;
    }
    records.push(value as Rec);
  }
  if (records.length === 0) return undefined;
  records[0] = { ...records[0], id, name: await nameOf(dir, id, records[0]) };
  return records;
}

/** A recording's parts: records in order, at most recordsPerLine or about recordingLineChars a line. */
function* partsOf(id: string, records: Rec[]): Generator<SandboxRecordingPart> {
  let part: Rec[] = [];
  let chars = 0;
  let n = 0;
  for (const r of records) {
    const size = JSON.stringify(r).length;
    if (
      part.length &&
      (part.length >= SANDBOX_LIMITS.recordsPerLine || chars + size > SANDBOX_LIMITS.recordingLineChars)
    ) {
      yield { id, part: n++, records: part };
      part = [];
      chars = 0;
    }
    part.push(r);
    chars += size;
  }
  yield { id, part: n, records: part, last: true };
}

/** The file's recording lines put together, checked across lines: parts in order, records in time order. */
function carriedRecordings(lines: AttachedLine[]): Carried[] {
  const issues: SandboxIssue[] = [];
  const open = new Map<string, Carried & { next: number; lastT: number; ended: boolean; done: boolean }>();
  for (const { line, value } of lines) {
    const at = (p: string) => `line ${line}: recording.${p}`;
    const part = value as SandboxRecordingPart;
    let c = open.get(part.id);
    if (!c) {
      if (part.part !== 0) {
        issues.push({
          path: at('part'),
          message: `is ${part.part}, but no part 0 of this recording came before`,
        });
        continue;
      }
      const header = part.records[0]!;
      c = {
        id: part.id,
        name: String(header.name ?? ''),
        line,
        records: [],
        bytes: 0,
        next: 0,
        lastT: 0,
        ended: false,
        done: false,
      };
      open.set(part.id, c);
    } else if (c.done) {
      issues.push({ path: at('part'), message: "comes after the recording's last part" });
      continue;
    } else if (part.part !== c.next) {
      issues.push({
        path: at('part'),
        message: `is ${part.part}, part ${c.next} of this recording was expected (a line is missing)`,
      });
      continue;
    }
    part.records.forEach((record, i) => {
      c.records.push(record);
      c.bytes += recordBytes(record);
      if (c.records.length === 1) return; // the header
      const t = record.t as number;
      if (c.ended) issues.push({ path: at(`records[${i}]`), message: 'comes after the end record' });
      else if (t < c.lastT)
        issues.push({
          path: at(`records[${i}].t`),
          message: `is ${t}, before the record above it (${c.lastT}): records are in time order`,
        });
      c.lastT = Math.max(c.lastT, t);
      if (record.kind === 'end') c.ended = true;
    });
    c.next++;
    if (part.last) c.done = true;
  }
  for (const c of open.values())
    if (!c.done)
      issues.push({
        path: `line ${c.line}: recording`,
        message: `recording ${c.id} has no last part (the file is cut short)`,
      });
  if (issues.length) throw new SandboxFormatError(issues.slice(0, 20));
  return [...open.values()].map(({ id, name, line, records, bytes }) => ({ id, name, line, records, bytes }));
}

type Decision =
  | { c: Carried; action: 'new' | 'replace'; name: string }
  | { c: Carried; action: 'conflict'; otherId: string; name: string };

/** What importing the file's recordings does to the folder's, and whether it stays within the bounds. */
async function decide(o: RecordingsSandboxOptions, lines: AttachedLine[], imp: AttachedImport) {
  const carried = carriedRecordings(lines);
  for (const c of carried)
    if (c.bytes > o.maxBytes)
      throw new PlatformError(
        413,
        31,
        `The sandbox's recording "${c.name}" (line ${c.line}) takes ${mib(c.bytes)}, more than the ${mib(o.maxBytes)} one recording may take here (SANDBOARD_RECORDING_MAX_MB): raise it, or export the sandbox without recordings`,
      );
  const held = await heldRecordings(o.dir);
  // the file replaces the folder's recordings when the instance becomes the file and the file carries them
  const emptied = imp.replaceAll && imp.header.includes.recordings === true;
  const byName = new Map<string, string>();
  if (!emptied) for (const h of held.values()) byName.set(h.name, h.id);
  const decisions: Decision[] = carried.map((c) => {
    if (!emptied && held.has(c.id)) return { c, action: 'replace', name: c.name };
    const other = byName.get(c.name);
    return other !== undefined && other !== c.id
      ? { c, action: 'conflict', otherId: other, name: c.name }
      : { c, action: 'new', name: c.name };
  });
  // the folder afterwards: what stays, and what is written
  const removed = new Set<string>(emptied ? held.keys() : []);
  const written: Decision[] = [];
  let kept = 0;
  let renamed = 0;
  const names = new Set([...byName.keys(), ...carried.map((c) => c.name)]);
  for (const d of decisions) {
    if (d.action === 'conflict') {
      if (imp.onConflict === 'keep') {
        kept++;
        continue;
      }
      if (imp.onConflict === 'replace') removed.add(d.otherId);
      else {
        let i = 1;
        let name = `${d.name} (imported)`;
        while (names.has(name)) name = `${d.name} (imported ${++i})`;
        names.add(name);
        d.name = name;
        renamed++;
      }
    }
    written.push(d);
    removed.delete(d.c.id);
  }
  const writtenIds = new Set(written.map((d) => d.c.id));
  let stays = 0;
  let count = 0;
  for (const h of held.values())
    if (!removed.has(h.id) && !writtenIds.has(h.id)) {
      stays += h.bytes;
      count++;
    }
  const incoming = written.reduce((sum, d) => sum + d.c.bytes, 0);
  if (stays + incoming > o.totalMaxBytes)
    throw new PlatformError(
      413,
      31,
      `The sandbox's recordings take ${mib(incoming)}; with the ${mib(stays)} of recordings kept here that is more than the ${mib(o.totalMaxBytes)} recordings may take (SANDBOARD_RECORDINGS_MAX_MB): raise it, delete recordings, or export the sandbox without recordings`,
    );
  if (count + written.length > MAX_KEPT)
    throw new PlatformError(
      413,
      31,
      `With the sandbox's ${written.length} recordings this instance would keep more than ${MAX_KEPT}: delete some first`,
    );
  return { decisions, written, removed, kept, renamed };
}

/** What an import staged, written beside the staged files before the store's write. */
interface Pending {
  importId: string;
  removed: string[];
  written: string[];
}

const recordingIds = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((id) => typeof id === 'string' && RECORDING_ID.test(id));

/**
 * The staged import's manifest as read back, or undefined when it is cut short (a kill while it was
 * written, so before the store's write) or not one: its ids become file names, so only recording ids pass.
 */
function pendingOf(text: string): Pending | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const { importId, removed, written } = v as Record<string, unknown>;
  return typeof importId === 'string' && recordingIds(removed) && recordingIds(written)
    ? { importId, removed, written }
    : undefined;
}

/** Drops what an import staged (its store write failed, or never committed before a kill). */
async function dropStaged(dir: string): Promise<void> {
  let files: string[];
  try {
    files = await readdir(dir);
  } catch {
    return;
  }
  for (const f of files) if (f.endsWith(STAGED) || f === PENDING) await rm(join(dir, f), { force: true });
}

/**
 * Moves staged recordings into place after the store's write: run again after a kill, it finishes
 * what the first run began (a staged file already moved is simply absent).
 */
async function finishStaged(dir: string, removed: Iterable<string>, written: string[]): Promise<void> {
  for (const id of removed) {
    await rm(join(dir, `${id}${FILE}`), { force: true });
    await rm(join(dir, `${id}.name.json`), { force: true });
  }
  for (const id of written) {
    const staged = join(dir, `${id}${STAGED}`);
    if (!existsSync(staged)) continue;
    await rename(staged, join(dir, `${id}${FILE}`));
    await rm(join(dir, `${id}.name.json`), { force: true });
  }
  await syncDir(dir);
  await rm(join(dir, PENDING), { force: true });
  await syncDir(dir);
}

/**
 * The recordings (DATA_DIR/recordings) as a sandbox carries them: written after the header as their
 * records, read back as files written aside and synced before the store's write, and moved into place
 * (rename, then the folder synced) only after it. A running Sandboard's Recordings reads the folder
 * again on sandboxLoaded.
 */
export function recordingsInSandbox(o: RecordingsSandboxOptions): SandboxAttachment {
  return {
    name: 'recordings',
    kind: 'recording',
    snapshot() {
      const ids = heldIdsSync(o.dir);
      return {
        count: ids.length,
        async *lines() {
          for (const id of ids) {
            const records = await recordsOf(o.dir, id);
            if (records) yield* partsOf(id, records);
          }
        },
      };
    },
    async plan(lines, imp): Promise<AttachedPlan> {
      const { decisions } = await decide(o, lines, imp);
      const counts = { new: 0, replace: 0, conflict: 0 };
      const items: SandboxPlanItem[] = [];
      for (const d of decisions) {
        counts[d.action]++;
        if (items.length < PLAN_ITEMS)
          items.push({
            table: 'recordings',
            id: d.c.id,
            name: d.c.name,
            action: d.action,
            ...(d.action === 'conflict' ? { otherId: d.otherId } : {}),
          });
      }
      return { counts, items };
    },
    async stage(lines, imp): Promise<StagedAttachment> {
      const { written, removed, kept, renamed } = await decide(o, lines, imp);
      await mkdir(o.dir, { recursive: true, mode: 0o700 });
      await dropStaged(o.dir);
      const writtenIds = written.map((d) => d.c.id);
      const abort = () => dropStaged(o.dir);
      try {
        for (const d of written) {
          const [header, ...rest] = d.c.records;
          const text = [{ ...header, id: d.c.id, name: d.name }, ...rest]
            .map((r) => `${JSON.stringify(r)}\n`)
            .join('');
          await writeSynced(join(o.dir, `${d.c.id}${STAGED}`), text, 0o600);
        }
        const pending: Pending = { importId: imp.importId, removed: [...removed], written: writtenIds };
        await writeSynced(join(o.dir, PENDING), JSON.stringify(pending), 0o600);
        await syncDir(o.dir);
      } catch (err) {
        await abort();
        throw err;
      }
      return {
        abort,
        async commit() {
          await finishStaged(o.dir, removed, writtenIds);
          return { written: written.length, kept, renamed };
        },
      };
    },
    async recover(committedImportId) {
      const pending = await readFile(join(o.dir, PENDING), 'utf8').then(pendingOf, () => undefined);
      if (pending && committedImportId !== undefined && pending.importId === committedImportId)
        await finishStaged(o.dir, pending.removed, pending.written);
      else await dropStaged(o.dir);
    },
  };
}
