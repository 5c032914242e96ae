// A script sandbox worker thread. It holds one QuickJS WebAssembly module whose linear memory is capped
// (workerData.memoryBytes): every allocation of every script it runs, typed arrays and ArrayBuffers
// included, comes out of that memory, and an allocation beyond the cap fails inside QuickJS. Each script
// gets its own QuickJS runtime (with QuickJS's own memory limit) and context, made on first use and reused;
// nothing of Node (process, files, network, timers) is reachable from inside. A script's results are written
// by the sandbox's runner (script-runner.js), evaluated in the context before the script, so nothing the
// script replaces changes how they are read. Limits per call: a deadline checked by QuickJS's interrupt
// handler, the runtime's memory limit, the runner's size and depth bounds.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import releaseSyncModule from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import {
  describeThrown,
  userLine,
  type CallResult,
  type FailureReason,
  type InvokeCall,
  type ScriptProgram,
  type WorkerReply,
  type WorkerRequest,
  type WorkerSetup,
} from './script-protocol.ts';

/** The package's types describe its CommonJS build; imported as ESM, the default export is the variant. */
const releaseSync = releaseSyncModule as unknown as QuickJSSyncVariant;

/** The parts of WebAssembly used here (the project's TypeScript lib has no WebAssembly values). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
const { WebAssembly: Wasm } = globalThis as unknown as {
  WebAssembly: {
    Module: new (bytes: Uint8Array) => object;
    Memory: new (d: { initial: number; maximum: number }) => WasmMemory;
  };
};

const require = createRequire(import.meta.url);
const PAGE = 65_536;
const MiB = 1024 * 1024;
/** QuickJS's build starts with 16 MiB of linear memory */
const INITIAL_BYTES = 16 * MiB;
/** above this share of the cap the worker asks to be replaced: linear memory never shrinks */
const RETIRE_SHARE = 0.75;

const setup = workerData as WorkerSetup;
const maxPages = Math.max(INITIAL_BYTES, setup.memoryBytes) / PAGE;
const memory = new Wasm.Memory({ initial: INITIAL_BYTES / PAGE, maximum: Math.floor(maxPages) });
const quickjs: QuickJSWASMModule = await newQuickJSWASMModuleFromVariant(
  newVariant(releaseSync, {
    wasmModule: new Wasm.Module(
      readFileSync(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')),
    ) as never,
    wasmMemory: memory as never,
  }),
);
const RUNNER = readFileSync(new URL('./script-runner.js', import.meta.url), 'utf8');
const TBEL_RUNTIME = readFileSync(new URL('./tbel-runtime.js', import.meta.url), 'utf8');

interface Instance {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  /** the runner's `run` and the script's function: handles only the host holds */
  run: QuickJSHandle;
  fn: QuickJSHandle;
  deadline: number;
  /** texts the runner handed over through done() for the batch being run */
  out: string[];
  /** a script with numbers: the ArrayBuffer it writes them to, its capacity, and what each call wrote */
  numbers: QuickJSHandle | null;
  capacity: QuickJSHandle | null;
  written: (ArrayBuffer | null)[];
}

interface Script {
  program: ScriptProgram;
  instance: Instance | null;
}

const scripts = new Map<number, Script>();
/** set when QuickJS itself failed (not a script's error): the module may be unusable */
let broken = false;

class ScriptFailure extends Error {
  readonly reason: FailureReason;
  /** where the script was when it was stopped (a timeout), when its stack says */
  readonly line: number | null;
  constructor(reason: FailureReason, message: string, line: number | null = null) {
    super(message);
    this.reason = reason;
    this.line = line;
  }
}

function timeoutMessage(p: ScriptProgram): string {
  return `Script execution exceeded the time limit of ${p.limits.timeoutMs} ms`;
}

function memoryMessage(p: ScriptProgram): string {
  return `Script exceeded the memory limit of ${Math.round((p.limits.memoryBytes / MiB) * 10) / 10} MiB`;
}

/** The name and message of an error QuickJS raised in the sandbox's own code (never a script's value). */
function engineError(
  context: QuickJSContext,
  handle: QuickJSHandle,
): { name?: string; message?: string; stack?: string } {
  try {
    const e = context.dump(handle) as unknown;
    if (e === null || typeof e !== 'object') return { message: typeof e === 'string' ? e : String(e) };
    const { name, message, stack } = e as { name?: unknown; message?: unknown; stack?: unknown };
    return {
      name: typeof name === 'string' ? name : undefined,
      message: typeof message === 'string' ? message : undefined,
      stack: typeof stack === 'string' ? stack.slice(0, 4000) : undefined,
    };
  } catch {
    return {};
  }
}

/** Why a QuickJS call failed: past its deadline, out of memory, or an error with its message. */
function failureOf(p: ScriptProgram, inst: Instance, handle: QuickJSHandle): ScriptFailure {
  const e = engineError(inst.context, handle);
  if (e.name === 'InternalError' && e.message === 'interrupted')
    return new ScriptFailure('timeout', timeoutMessage(p), userLine(e.stack));
  if (e.message === undefined || e.message === 'out of memory')
    return new ScriptFailure('memory', memoryMessage(p));
  if (Date.now() > inst.deadline) return new ScriptFailure('timeout', timeoutMessage(p));
  return new ScriptFailure('runtime', describeThrown(e));
}

function dispose(inst: Instance | null): void {
  if (!inst) return;
  try {
    inst.run.dispose();
    inst.fn.dispose();
    inst.numbers?.dispose();
    inst.capacity?.dispose();
    inst.context.dispose();
    inst.runtime.dispose();
  } catch {
    // a runtime left inconsistent by an out-of-memory failure may refuse to free: replace the worker
    broken = true;
  }
}

/** Evaluates trusted code (the runner, the TBEL runtime) in a fresh context; throws ScriptFailure. */
function evalTrusted(inst: Instance, p: ScriptProgram, code: string, file: string): QuickJSHandle {
  const r = inst.context.evalCode(code, file);
  if (!r.error) return r.value;
  const failure = failureOf(p, inst, r.error);
  r.error.dispose();
  throw failure.reason === 'runtime' ? new ScriptFailure('compile', `${file} failed to load`) : failure;
}

function instantiate(p: ScriptProgram): Instance {
  const runtime = quickjs.newRuntime();
  runtime.setMemoryLimit(p.limits.memoryBytes);
  runtime.setMaxStackSize(p.limits.stackBytes);
  const context = runtime.newContext();
  const inst: Instance = {
    runtime,
    context,
    run: context.undefined,
    fn: context.undefined,
    deadline: Date.now() + p.limits.timeoutMs * 4,
    out: [],
    numbers: null,
    capacity: null,
    written: [],
  };
  runtime.setInterruptHandler(() => Date.now() > inst.deadline);
  try {
    const factory = evalTrusted(inst, p, RUNNER, 'script-runner.js');
    const done = context.newFunction('done', (text, count) => {
      inst.out.push(context.getString(text));
      if (count !== undefined) inst.written[inst.out.length - 1] = numbersWritten(inst, count);
      inst.deadline = Date.now() + p.limits.timeoutMs;
    });
    const depth = context.newNumber(setup.maxDepth);
    const made = context.callFunction(factory, context.undefined, done, depth);
    factory.dispose();
    done.dispose();
    depth.dispose();
    if (made.error) {
      made.error.dispose();
      throw new ScriptFailure('compile', 'The script runner failed to load');
    }
    inst.run = made.value;
    const capacity = Math.floor(p.numbers ?? 0);
    if (capacity > 0) {
      inst.numbers = context.newArrayBuffer(new ArrayBuffer(capacity * 8));
      inst.capacity = context.newNumber(capacity);
    }
    if (p.lang === 'TBEL') evalTrusted(inst, p, TBEL_RUNTIME, 'tbel-runtime.js').dispose();
    const r = context.evalCode(p.program, 'script');
    if (r.error) {
      const failure = failureOf(p, inst, r.error);
      r.error.dispose();
      throw failure.reason === 'runtime' ? new ScriptFailure('compile', failure.message) : failure;
    }
    inst.fn = r.value;
    if (context.typeof(inst.fn) !== 'function')
      throw new ScriptFailure('compile', 'The script does not make a function');
    return inst;
  } catch (err) {
    dispose(inst);
    throw err;
  }
}

/**
 * The doubles a call of a script with numbers wrote, copied out of QuickJS: the first `count` of its
 * ArrayBuffer; null when they cannot be read (a count beyond it, a buffer the script detached).
 */
function numbersWritten(inst: Instance, count: QuickJSHandle): ArrayBuffer | null {
  if (!inst.numbers) return null;
  try {
    const n = inst.context.typeof(count) === 'number' ? inst.context.getNumber(count) : -1;
    const bytes = inst.context.getArrayBuffer(inst.numbers);
    try {
      if (!Number.isInteger(n) || n < 0 || n * 8 > bytes.value.byteLength) return null;
      return bytes.value.slice(0, n * 8).buffer;
    } finally {
      bytes.dispose();
    }
  } catch {
    return null;
  }
}

/**
 * Runs the calls of one script in order, each with its own deadline. Stops at the first call that hits a
 * limit: that call fails, the ones after it are handed back (notRun) for the host to queue again.
 */
function runScript(script: Script, calls: InvokeCall[], results: CallResult[], notRun: number[]): void {
  const p = script.program;
  const fail = (c: InvokeCall, reason: FailureReason, error: string, line?: number | null) =>
    results.push({ callId: c.callId, ok: false, reason, error, ...(line ? { line } : {}) });
  let inst: Instance;
  try {
    inst = script.instance ??= instantiate(p);
  } catch (err) {
    const f = err instanceof ScriptFailure ? err : new ScriptFailure('runtime', (err as Error).message);
    for (const c of calls) fail(c, f.reason, f.message);
    return;
  }
  const max = p.limits.maxArgsChars;
  const runnable: InvokeCall[] = [];
  for (const c of calls) {
    if (c.dataJson.length + c.metadataJson.length > max)
      fail(c, 'size', `Script input arguments exceed maximum allowed total args size of ${max} symbols`);
    else runnable.push(c);
  }
  if (runnable.length === 0) return;
  const input = `[${runnable.map((c) => `[${c.dataJson},${c.metadataJson},${JSON.stringify(c.msgType)}]`).join(',')}]`;
  const ctx = inst.context;
  inst.out = [];
  inst.written = [];
  inst.deadline = Date.now() + p.limits.timeoutMs;
  let failure: ScriptFailure | null = null;
  try {
    const arg = ctx.newString(input);
    const limit = ctx.newNumber(p.limits.maxResultChars);
    const r = inst.numbers
      ? ctx.callFunction(inst.run, ctx.undefined, inst.fn, arg, limit, inst.numbers, inst.capacity!)
      : ctx.callFunction(inst.run, ctx.undefined, inst.fn, arg, limit);
    arg.dispose();
    limit.dispose();
    if (r.error) {
      failure = failureOf(p, inst, r.error);
      r.error.dispose();
    } else r.value.dispose();
  } catch (err) {
    // QuickJS itself failed (an abort in the module): nothing more runs in this worker
    broken = true;
    failure = new ScriptFailure(
      'memory',
      `${memoryMessage(p)} (the sandbox failed: ${(err as Error).message})`,
    );
  }
  const out = inst.out;
  const written = inst.written;
  inst.out = [];
  inst.written = [];
  runnable.forEach((c, i) => {
    const text = out[i];
    if (text !== undefined) results.push(resultOf(c, text, written[i]));
    else if (i === out.length && failure) fail(c, failure.reason, failure.message, failure.line);
    else if (failure) notRun.push(c.callId);
    else fail(c, 'runtime', 'The script sandbox gave no result');
  });
  if (failure?.reason === 'memory') {
    dispose(inst);
    script.instance = null;
  }
}

/** A runner text as a call's result: values go to the host as they are, errors are read here. */
function resultOf(c: InvokeCall, text: string, numbers: ArrayBuffer | null | undefined): CallResult {
  const kind = text[0];
  if (kind === 'u' || kind === 'v') return { callId: c.callId, ok: true, text };
  if (kind === 's') {
    if (numbers) return { callId: c.callId, ok: true, text, numbers };
    return {
      callId: c.callId,
      ok: false,
      reason: 'runtime',
      error: 'The script sandbox gave a result it cannot read',
    };
  }
  try {
    const e = JSON.parse(text.slice(1)) as { e?: unknown; n?: unknown; s?: unknown; k?: unknown };
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const message = str(e.e) ?? 'The script failed';
    const reason: FailureReason = e.k === 'size' ? 'size' : 'runtime';
    const error =
      e.n !== undefined || e.s !== undefined
        ? describeThrown({ name: str(e.n), message, stack: str(e.s) })
        : message;
    return { callId: c.callId, ok: false, reason, error };
  } catch {
    return {
      callId: c.callId,
      ok: false,
      reason: 'runtime',
      error: 'The script sandbox gave a result it cannot read',
    };
  }
}

function invoke(req: Extract<WorkerRequest, { kind: 'invoke' }>): WorkerReply {
  const results: CallResult[] = [];
  const notRun: number[] = [];
  if (req.program) {
    dispose(scripts.get(req.scriptId)?.instance ?? null);
    scripts.set(req.scriptId, { program: req.program, instance: null });
  }
  const script = scripts.get(req.scriptId);
  if (!script || broken) {
    const error = broken ? 'The script sandbox is being restarted' : 'Script is not loaded';
    for (const c of req.calls) results.push({ callId: c.callId, ok: false, reason: 'runtime', error });
  } else runScript(script, req.calls, results, notRun);
  return {
    kind: 'results',
    results,
    notRun,
    retire: broken || memory.buffer.byteLength > setup.memoryBytes * RETIRE_SHARE,
  };
}

parentPort!.postMessage({ kind: 'ready' });
parentPort!.on('message', (req: WorkerRequest) => {
  if (req.kind === 'release') {
    for (const id of req.scriptIds) {
      dispose(scripts.get(id)?.instance ?? null);
      scripts.delete(id);
    }
    return;
  }
  let reply: WorkerReply;
  try {
    reply = invoke(req);
  } catch (err) {
    broken = true;
    const error = `The script sandbox failed: ${(err as Error).message}`;
    reply = {
      kind: 'results',
      results: req.calls.map((c) => ({ callId: c.callId, ok: false, reason: 'runtime', error })),
      notRun: [],
      retire: true,
    };
  }
  const transfer: ArrayBuffer[] = [];
  for (const r of reply.results) if (r.ok && r.numbers) transfer.push(r.numbers);
  parentPort!.postMessage(reply, transfer);
});
