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
  data: unknown;
  metadata: Record<string, string>;
  msgType: string;
}

export type WorkerRequest =
  { kind: 'invoke'; calls: InvokeCall[] } | { kind: 'release'; scriptIds: number[] };

/** timeout and memory count towards blocking the script (as ThingsBoard does); runtime errors do not. */
export type FailureReason = 'timeout' | 'memory' | 'runtime' | 'compile' | 'size';

export type CallResult =
  | { callId: number; ok: true; value: unknown }
  | { callId: number; ok: false; reason: FailureReason; error: string };

export interface WorkerReply {
  kind: 'results';
  results: CallResult[];
}
