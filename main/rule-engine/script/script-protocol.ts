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
  /**
   * Doubles of the ArrayBuffer the script gets as a 4th argument, for results of many numbers (see
   * script-runner.js); none when absent.
   */
  numbers?: number;
}

/** One message for a script: its data and metadata as JSON text (strings cross threads cheaply). */
export interface InvokeCall {
  callId: number;
  dataJson: string;
  metadataJson: string;
  msgType: string;
}

/** What a worker is started with (workerData). */
export interface WorkerSetup {
  /** the cap on the worker's WebAssembly memory, which every script it runs shares */
  memoryBytes: number;
  /** how deep a result may nest (MAX_JSON_DEPTH: passed in, so that the worker loads nothing more) */
  maxDepth: number;
}

/**
 * A batch holds calls of one script only, so that a script that runs away holds up nothing but itself;
 * the program comes with the first batch a worker gets for the script.
 */
export type WorkerRequest =
  | { kind: 'invoke'; scriptId: number; program?: ScriptProgram; calls: InvokeCall[] }
  | { kind: 'release'; scriptIds: number[] };

/** timeout, memory and size count towards suspending the script; runtime errors do not. */
export type FailureReason = 'timeout' | 'memory' | 'runtime' | 'compile' | 'size';

/**
 * A call's outcome. `text` is written by the sandbox's own runner (script-runner.js), never by the script:
 * 'u' (no result), 'v' followed by the result's JSON, or 's' followed by a text the script gave with
 * `numbers`, the doubles it wrote (a script loaded with numbers; both untrusted).
 */
export type CallResult =
  | { callId: number; ok: true; text: string; numbers?: ArrayBuffer }
  | { callId: number; ok: false; reason: FailureReason; error: string; line?: number };

export interface WorkerReply {
  kind: 'results';
  results: CallResult[];
  /** calls not run because an earlier call of the batch hit a limit: the host queues them again */
  notRun: number[];
  /** the worker's memory is near its cap or its QuickJS module failed: replace the worker */
  retire: boolean;
}

/** The script's line of the first stack frame in the user's code ("at f (script:5:3)"). */
export function userLine(stack: unknown): number | null {
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
