/**
 * The sandbox file: a whole Sandboard set-up in one file (docs/sandboxes.md). JSON Lines, optionally
 * gzipped: a header line, then data lines in any order, then an end line counting the lines before it
 * (a truncated file has none, or the wrong count). Each line is small, so a file of millions of
 * telemetry rows is read and written as a stream.
 *
 *   {"format":"sandboard-sandbox","version":1,"exportedAt":...,"generator":"sandboard 1.2.3",...}
 *   {"table":"devices","rows":[{"id":"...","name":"Thermostat 1",...}]}      entity rows, by table
 *   {"latest":[["<entityId>","temperature",1700000000000,"d",21.5]]}        latest values
 *   {"history":[["<entityId>","temperature",1700000000000,"d",21.5]]}       time series rows
 *   {"thingsboard":{"kind":"ruleChain","name":"Root","data":{...}}}         ThingsBoard's own export shapes
 *   {"recording":{"id":"<uuid>","part":0,"records":[{"kind":"header",...},...],"last":true}}   (version 2)
 *   {"end":true,"lines":42}
 *
 * Rows of a table are the store's columns by name (snake_case, JSON columns as their text); telemetry is
 * keyed by entity id and key name, never by the store's internal numbers. The ThingsBoard parts are
 * there to carry to a real ThingsBoard; import reads only tables, latest, history and recordings.
 *
 * A recording (docs/recordings.md) travels as its records, in order, over one or more lines of its id
 * (parts 0, 1, ...; the header record first, the last part marked last). Version 2 added recording
 * lines; a file without them is written as version 1, so an older Sandboard still reads it.
 */

import { recordingHeaderIssues, recordingRecordIssues } from './recording.ts';

export const SANDBOX_FORMAT = 'sandboard-sandbox';
/** the newest version this Sandboard reads (and writes, when the file carries recordings) */
export const SANDBOX_VERSION = 2;
/** the version that added recording lines */
export const SANDBOX_RECORDINGS_VERSION = 2;

/** A stored value: the store keeps no blobs and no booleans. */
export type SandboxCell = string | number | null;
export type SandboxRow = Record<string, SandboxCell>;

/** [entityId, key, ts, valueType, value]; valueType is the store's: b(oolean), l(ong), d(ouble), s(tring), j(son) */
export type SandboxTsRow = [string, string, number, string, SandboxCell];

export interface SandboxHeader {
  format: typeof SANDBOX_FORMAT;
  version: number;
  exportedAt: number;
  generator: string;
  /** what the export was asked to hold */
  includes: {
    history: boolean;
    passwords: boolean;
    /** whether the recordings were asked for (absent in files of version 1) */
    recordings?: boolean;
    /** history window (ms since epoch), when history is true */
    startTs?: number;
    endTs?: number;
  };
  /** rows per table and telemetry rows, as written (for plans and progress) */
  counts: Record<string, number>;
  /** free text: what the sandbox is for (shipped sandboxes) */
  description?: string;
  title?: string;
}

export type ThingsBoardPartKind = 'ruleChain' | 'dashboard' | 'deviceProfile' | 'assetProfile' | 'devicesCsv';

export interface ThingsBoardPart {
  kind: ThingsBoardPartKind;
  /** what ThingsBoard's UI would name the file (also the file name under `export --thingsboard DIR`) */
  name: string;
  /** ThingsBoard's JSON export shape, or CSV text for devicesCsv */
  data: unknown;
}

/** One line's share of a recording: its records in order, part 0 starting with the recording's header. */
export interface SandboxRecordingPart {
  id: string;
  part: number;
  records: Record<string, unknown>[];
  /** on the recording's last part */
  last?: true;
}

export type SandboxLine =
  | { table: string; rows: SandboxRow[] }
  | { latest: SandboxTsRow[] }
  | { history: SandboxTsRow[] }
  | { thingsboard: ThingsBoardPart }
  | { recording: SandboxRecordingPart }
  | { end: true; lines: number };

export const SANDBOX_LIMITS = {
  /** characters of one line (a line holds one chunk of rows) */
  lineChars: 16 * 1024 * 1024,
  /** rows per line the exporter writes */
  rowsPerLine: 1_000,
  /** rows per line the reader accepts */
  maxRowsPerLine: 100_000,
  tableNameChars: 64,
  columnNameChars: 64,
  /** recording records per line the exporter writes at most (fewer when they are long) */
  recordsPerLine: 1_000,
  /** characters of a recording's records per line the exporter aims at */
  recordingLineChars: 1024 * 1024,
} as const;

export interface SandboxIssue {
  /** "line 3: rows[2].name" ('' when about the whole file) */
  path: string;
  message: string;
}

/** Thrown for a file that cannot be imported; `issues` names each problem by line and JSON path. */
export class SandboxFormatError extends Error {
  readonly issues: SandboxIssue[];
  constructor(issues: SandboxIssue[]) {
    const shown = issues.slice(0, 5).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
    const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
    super(`Not a valid sandbox file: ${shown.join('; ')}${more}`);
    this.name = 'SandboxFormatError';
    this.issues = issues;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const IDENT = /^[a-z_][a-z0-9_]*$/;
const PART_KINDS: readonly string[] = [
  'ruleChain',
  'dashboard',
  'deviceProfile',
  'assetProfile',
  'devicesCsv',
];
const VALUE_TYPES: readonly string[] = ['b', 'l', 'd', 's', 'j'];

const isCell = (v: unknown): v is SandboxCell =>
  v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** The header's problems (line 1); a newer version is refused with what to do about it. */
export function headerIssues(value: unknown): SandboxIssue[] {
  const at = (p: string) => (p ? `line 1: ${p}` : 'line 1');
  if (!isRecord(value)) return [{ path: at(''), message: 'must be the sandbox header object' }];
  if (value.format !== SANDBOX_FORMAT)
    return [{ path: at('format'), message: `must be "${SANDBOX_FORMAT}" (this is not a sandbox file)` }];
  if (typeof value.version !== 'number' || !Number.isInteger(value.version) || value.version < 1)
    return [{ path: at('version'), message: 'must be a whole number from 1' }];
  if (value.version > SANDBOX_VERSION)
    return [
      {
        path: at('version'),
        message:
          `this file is sandbox format version ${value.version}, written by a newer Sandboard; this Sandboard ` +
          `reads versions up to ${SANDBOX_VERSION}: update Sandboard to import it`,
      },
    ];
  const issues: SandboxIssue[] = [];
  if (!isTime(value.exportedAt)) issues.push({ path: at('exportedAt'), message: 'must be a time in ms' });
  if (typeof value.generator !== 'string')
    issues.push({ path: at('generator'), message: 'must be a string' });
  const inc = value.includes;
  if (!isRecord(inc)) issues.push({ path: at('includes'), message: 'must be an object' });
  else {
    for (const k of ['history', 'passwords'])
      if (typeof inc[k] !== 'boolean')
        issues.push({ path: at(`includes.${k}`), message: 'must be true or false' });
    if (inc.recordings !== undefined && typeof inc.recordings !== 'boolean')
      issues.push({ path: at('includes.recordings'), message: 'must be true or false' });
    for (const k of ['startTs', 'endTs'])
      if (inc[k] !== undefined && !isTime(inc[k]))
        issues.push({ path: at(`includes.${k}`), message: 'must be a time in ms' });
  }
  if (!isRecord(value.counts)) issues.push({ path: at('counts'), message: 'must be an object' });
  else
    for (const [k, n] of Object.entries(value.counts))
      if (!isTime(n)) issues.push({ path: at(`counts.${k}`), message: 'must be a whole number' });
  for (const k of ['title', 'description'])
    if (value[k] !== undefined && typeof value[k] !== 'string')
      issues.push({ path: at(k), message: 'must be a string' });
  return issues;
}

function tsRowsIssues(rows: unknown, path: string): SandboxIssue[] {
  if (!Array.isArray(rows)) return [{ path, message: 'must be an array' }];
  if (rows.length > SANDBOX_LIMITS.maxRowsPerLine)
    return [{ path, message: `must hold at most ${SANDBOX_LIMITS.maxRowsPerLine} rows` }];
  const issues: SandboxIssue[] = [];
  rows.forEach((r, i) => {
    const p = `${path}[${i}]`;
    if (!Array.isArray(r) || r.length !== 5)
      issues.push({ path: p, message: 'must be [entityId, key, ts, valueType, value]' });
    else if (typeof r[0] !== 'string' || r[0].length === 0 || r[0].length > 64)
      issues.push({ path: `${p}[0]`, message: 'must be an entity id' });
    else if (typeof r[1] !== 'string' || r[1].length === 0 || r[1].length > 255)
      issues.push({ path: `${p}[1]`, message: 'must be a key of 1 to 255 characters' });
    else if (!isTime(r[2])) issues.push({ path: `${p}[2]`, message: 'must be a time in ms' });
    else if (typeof r[3] !== 'string' || !VALUE_TYPES.includes(r[3]))
      issues.push({ path: `${p}[3]`, message: 'must be one of "b", "l", "d", "s", "j"' });
    else if (!isCell(r[4])) issues.push({ path: `${p}[4]`, message: 'must be a string, a number or null' });
  });
  return issues.slice(0, 20);
}

const RECORDING_ID = /^[0-9a-f-]{36}$/;

/** A recording line's problems: its part, and each record checked as a recording's file would be. */
function recordingPartIssues(part: unknown, at: (p: string) => string, version: number): SandboxIssue[] {
  if (version < SANDBOX_RECORDINGS_VERSION)
    return [
      {
        path: at('recording'),
        message: `recording lines come with sandbox format version ${SANDBOX_RECORDINGS_VERSION}, the header says ${version}`,
      },
    ];
  if (!isRecord(part)) return [{ path: at('recording'), message: 'must be an object' }];
  const issues: SandboxIssue[] = [];
  if (typeof part.id !== 'string' || !RECORDING_ID.test(part.id))
    issues.push({ path: at('recording.id'), message: 'must be a recording id (a UUID)' });
  if (typeof part.part !== 'number' || !Number.isSafeInteger(part.part) || part.part < 0)
    issues.push({ path: at('recording.part'), message: 'must be a whole number from 0' });
  if (part.last !== undefined && part.last !== true)
    issues.push({ path: at('recording.last'), message: 'must be true when given' });
  for (const k of Object.keys(part))
    if (!['id', 'part', 'records', 'last'].includes(k))
      issues.push({ path: at(`recording.${k}`), message: 'is not allowed here' });
  const records = part.records;
  if (!Array.isArray(records) || records.length === 0)
    return [...issues, { path: at('recording.records'), message: 'must be a non-empty array' }];
  if (records.length > SANDBOX_LIMITS.maxRowsPerLine)
    return [
      ...issues,
      {
        path: at('recording.records'),
        message: `must hold at most ${SANDBOX_LIMITS.maxRowsPerLine} records`,
      },
    ];
  records.forEach((record, i) => {
    const found =
      i === 0 && part.part === 0 ? recordingHeaderIssues(record) : recordingRecordIssues(record, 0);
    for (const f of found)
      issues.push({
        path: at(`recording.records[${i}]${f.path ? `.${f.path}` : ''}`),
        message: f.message,
      });
  });
  return issues.slice(0, 20);
}

/**
 * One data line's problems (lineNo counts from 1, the header being line 1; version is the header's).
 * The value must already be parsed JSON; a line that is not JSON is the reader's to report.
 */
export function lineIssues(value: unknown, lineNo: number, version = SANDBOX_VERSION): SandboxIssue[] {
  const at = (p: string) => (p ? `line ${lineNo}: ${p}` : `line ${lineNo}`);
  if (!isRecord(value)) return [{ path: at(''), message: 'must be an object' }];
  const keys = Object.keys(value);
  if ('table' in value) {
    if (typeof value.table !== 'string' || !IDENT.test(value.table) || value.table.length > 64)
      return [{ path: at('table'), message: 'must be a table name (lower case letters, digits, _)' }];
    const rows = value.rows;
    if (!Array.isArray(rows)) return [{ path: at('rows'), message: 'must be an array' }];
    if (rows.length > SANDBOX_LIMITS.maxRowsPerLine)
      return [{ path: at('rows'), message: `must hold at most ${SANDBOX_LIMITS.maxRowsPerLine} rows` }];
    const issues: SandboxIssue[] = [];
    rows.forEach((row, i) => {
      if (!isRecord(row)) return issues.push({ path: at(`rows[${i}]`), message: 'must be an object' });
      for (const [col, cell] of Object.entries(row)) {
        if (!IDENT.test(col) || col.length > SANDBOX_LIMITS.columnNameChars)
          issues.push({ path: at(`rows[${i}]["${col}"]`), message: 'is not a column name' });
        else if (!isCell(cell))
          issues.push({ path: at(`rows[${i}].${col}`), message: 'must be a string, a number or null' });
      }
      return undefined;
    });
    const extra = keys.filter((k) => k !== 'table' && k !== 'rows');
    for (const k of extra) issues.push({ path: at(k), message: 'is not allowed here' });
    return issues.slice(0, 20);
  }
  if ('latest' in value) return tsRowsIssues(value.latest, at('latest'));
  if ('history' in value) return tsRowsIssues(value.history, at('history'));
  if ('thingsboard' in value) {
    const part = value.thingsboard;
    if (!isRecord(part)) return [{ path: at('thingsboard'), message: 'must be an object' }];
    const issues: SandboxIssue[] = [];
    if (typeof part.kind !== 'string' || !PART_KINDS.includes(part.kind))
      issues.push({ path: at('thingsboard.kind'), message: `must be one of ${PART_KINDS.join(', ')}` });
    if (typeof part.name !== 'string' || part.name.length === 0)
      issues.push({ path: at('thingsboard.name'), message: 'must be a non-empty string' });
    if (part.data === undefined) issues.push({ path: at('thingsboard.data'), message: 'is required' });
    return issues;
  }
  if ('recording' in value) return recordingPartIssues(value.recording, at, version);
  if ('end' in value) {
    if (value.end !== true) return [{ path: at('end'), message: 'must be true' }];
    if (!isTime(value.lines)) return [{ path: at('lines'), message: 'must be a whole number' }];
    return [];
  }
  return [
    {
      path: at(''),
      message: 'must hold one of "table", "latest", "history", "thingsboard", "recording" or "end"',
    },
  ];
}

/** What an import would do, entity by entity (POST /api/sandboard/sandbox/import?dryRun=true). */
export interface SandboxPlanItem {
  table: string;
  id: string;
  name: string;
  /**
   * new: no entity of this id or name; replace: this id exists and would be overwritten; conflict: another
   * entity (otherId) already has this name
   */
  action: 'new' | 'replace' | 'conflict';
  otherId?: string;
}

export type SandboxConflictMode = 'replace' | 'keep' | 'rename';

export interface SandboxPlan {
  header: SandboxHeader;
  /** per table: new, replaced and conflicting entities */
  tables: Record<string, { new: number; replace: number; conflict: number }>;
  /** the first items of each action (at most 200 in all), for the UI */
  items: SandboxPlanItem[];
  telemetryRows: number;
  latestRows: number;
  /** tables in the file this Sandboard does not know (skipped on import) */
  unknownTables: string[];
}

export interface SandboxImportResult {
  tables: Record<string, number>;
  telemetryRows: number;
  latestRows: number;
  renamed: number;
  kept: number;
  /** whether the instance was emptied first (reset, or `replaceAll`) */
  replacedAll: boolean;
}

export interface SandboxJob {
  id: string;
  state: 'running' | 'done' | 'failed';
  /** 0..1 */
  progress: number;
  phase: string;
  error?: string;
  result?: SandboxImportResult;
}

/** What a reset to the class start loses: entity and row counts now, and in the saved class start. */
export interface ClassStartStatus {
  saved: boolean;
  savedAt?: number;
  fileBytes?: number;
  /** counts in the saved class start */
  savedCounts?: Record<string, number>;
  /** counts now */
  currentCounts: Record<string, number>;
}
