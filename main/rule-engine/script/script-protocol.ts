/** Messages between the rule engine (main thread) and a script sandbox worker. */

/** Lines of a program before the script's first line (runtime errors are reported in the script's lines). */
export const PROGRAM_LINE_OFFSET = 2;

export interface SandboxLimits {
  /** wall-clock time of one invocation */
  timeoutMs: number;
  /** bytes the script's QuickJS runtime may allocate */
  memoryBytes: number;
  /** bytes of native stack (deep recursion fails with "stack overflow") */
  stackBytes: number;
  /** characters of msg + metadata JSON passed in */
  maxArgsChars: number;
  /** characters of the result's JSON */
  maxResultChars: number;
}

export interface ScriptProgram {
  id: number;
  lang: 'JS' | 'TBEL';
  /** JavaScript that evaluates to the invocation function (see script-compiler.ts) */
  program: string;
  limits: SandboxLimits;
}

export interface InvokeCall {
  callId: number;
  scriptId: number;
  /** sent the first time a worker sees the script */
  program?: ScriptProgram;
  /** the message data and metadata as JSON text (strings cross threads far cheaper than object graphs) */
  dataJson: string;
  metadataJson: string;
  msgType: string;
}

export type WorkerRequest =
  { kind: 'invoke'; calls: InvokeCall[] } | { kind: 'release'; scriptIds: number[] };

/** timeout and memory count towards blocking the script (as ThingsBoard does); runtime errors do not. */
export type FailureReason = 'timeout' | 'memory' | 'runtime' | 'compile' | 'size';

export type CallResult =
  | { callId: number; ok: true; value: unknown }
  | { callId: number; ok: false; reason: FailureReason; error: string };

/**
 * The calls of one script that ran together in one QuickJS call: `json` is an array with, per call,
 * {v: result} (no v: the script returned nothing) or {e: message, n: error name, s: stack, k: 'size'?}.
 */
export interface GroupResult {
  callIds: number[];
  json: string;
}

export interface GroupItem {
  v?: unknown;
  e?: string;
  n?: string;
  s?: string;
  k?: 'size';
}

export interface WorkerReply {
  kind: 'results';
  /** calls that failed on their own (time, memory, input size, compile) */
  results: CallResult[];
  groups: GroupResult[];
}

/** The script's line of the first stack frame in the user's code ("at f (script:5:3)"). */
function userLine(stack: unknown): number | null {
  const m = typeof stack === 'string' ? /\(?script:(\d+)(?::\d+)?\)?/.exec(stack) : null;
  if (!m) return null;
  const line = Number(m[1]) - PROGRAM_LINE_OFFSET;
  return line >= 1 ? line : null;
}

/** What a script threw, as a person reads it: "TypeError: x is undefined (line 3)". */
export function describeThrown(e: {
  name?: string;
  message?: string;
  stack?: string;
  lineNumber?: number;
}): string {
  const text = `${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message ?? ''}`;
  const line =
    userLine(e.stack) ?? (typeof e.lineNumber === 'number' ? e.lineNumber - PROGRAM_LINE_OFFSET : null);
  return line !== null && line >= 1 ? `${text} (line ${line})` : text;
}
