// A script sandbox worker thread. Each script gets its own QuickJS WebAssembly instance (its own linear
// memory), runtime and context, made on first use and reused for every later invocation; nothing of Node
// (process, files, network, timers) is reachable from inside. Limits per invocation: a deadline checked by
// QuickJS's interrupt handler, QuickJS's malloc limit, and a cap on the instance's linear memory (QuickJS
// does not count memory grown by realloc, so arrays grown element by element escape its malloc limit).
// After a timeout or a memory failure the instance is thrown away and rebuilt on the next invocation.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import releaseSyncModule from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
} from 'quickjs-emscripten-core';
import {
  PROGRAM_LINE_OFFSET,
  type CallResult,
  type FailureReason,
  type InvokeCall,
  type ScriptProgram,
  type WorkerRequest,
} from './script-protocol.ts';

/** The package's types describe its CommonJS build; imported as ESM, the default export is the variant. */
const releaseSync = releaseSyncModule as unknown as QuickJSSyncVariant;

/** The parts of WebAssembly used here (the project's TypeScript lib has no WebAssembly values). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
const { WebAssembly: Wasm } = globalThis as unknown as {
  WebAssembly: { Module: new (bytes: Uint8Array) => object };
};

const require = createRequire(import.meta.url);
/** Compiled once per worker; every script instantiates it with its own memory. */
const wasmModule = new Wasm.Module(readFileSync(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')));
const TBEL_RUNTIME = readFileSync(new URL('./tbel-runtime.js', import.meta.url), 'utf8');

interface Instance {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  fn: QuickJSHandle;
  memory: WasmMemory;
  heapCap: number;
  deadline: number;
  overMemory: boolean;
}

interface Script {
  program: ScriptProgram;
  instance: Instance | null;
}

const scripts = new Map<number, Script>();

class ScriptFailure extends Error {
  readonly reason: FailureReason;
  constructor(reason: FailureReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

const MiB = 1024 * 1024;

function timeoutMessage(p: ScriptProgram): string {
  return `Script execution exceeded the time limit of ${p.limits.timeoutMs} ms`;
}

function memoryMessage(p: ScriptProgram): string {
  return `Script exceeded the memory limit of ${Math.round((p.limits.memoryBytes / MiB) * 10) / 10} MiB`;
}

/** The script's line of the first stack frame in the user's code ("at f (script:5:3)"). */
function userLine(stack: unknown): number | null {
  const m = typeof stack === 'string' ? /\(?script:(\d+)(?::\d+)?\)?/.exec(stack) : null;
  if (!m) return null;
  const line = Number(m[1]) - PROGRAM_LINE_OFFSET;
  return line >= 1 ? line : null;
}

/** Turns an exception dumped from QuickJS into a failure with the reason and the user's line. */
function failureOf(p: ScriptProgram, inst: Instance, dumped: unknown): ScriptFailure {
  const e = dumped as { name?: string; message?: string; stack?: string; lineNumber?: number } | null;
  if (inst.overMemory || e === null || e?.message === 'out of memory')
    return new ScriptFailure('memory', memoryMessage(p));
  if (e?.name === 'InternalError' && e.message === 'interrupted')
    return new ScriptFailure('timeout', timeoutMessage(p));
  const text =
    e && typeof e === 'object' && 'message' in e
      ? `${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${e.message}`
      : `Script threw ${JSON.stringify(dumped)}`;
  const line =
    userLine(e?.stack) ?? (typeof e?.lineNumber === 'number' ? e.lineNumber - PROGRAM_LINE_OFFSET : null);
  return new ScriptFailure('runtime', line !== null && line >= 1 ? `${text} (line ${line})` : text);
}

function dispose(inst: Instance | null): void {
  if (!inst) return;
  try {
    inst.fn.dispose();
    inst.context.dispose();
    inst.runtime.dispose();
  } catch {
    // a runtime left inconsistent by an out-of-memory failure may refuse to free; its memory goes with it
  }
}

async function instantiate(p: ScriptProgram): Promise<Instance> {
  const module = await newQuickJSWASMModuleFromVariant(
    newVariant(releaseSync, { wasmModule: wasmModule as never }),
  );
  const memory = module.getWasmMemory() as unknown as WasmMemory;
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(p.limits.memoryBytes);
  runtime.setMaxStackSize(p.limits.stackBytes);
  const context = runtime.newContext();
  const inst: Instance = {
    runtime,
    context,
    fn: context.undefined,
    memory,
    heapCap: 0,
    deadline: Date.now() + p.limits.timeoutMs * 4,
    overMemory: false,
  };
  runtime.setInterruptHandler(() => {
    if (inst.heapCap > 0 && memory.buffer.byteLength > inst.heapCap) {
      inst.overMemory = true;
      return true;
    }
    return Date.now() > inst.deadline;
  });
  if (p.lang === 'TBEL') {
    const lib = context.evalCode(TBEL_RUNTIME, 'tbel-runtime.js');
    if (lib.error) {
      const e = context.dump(lib.error);
      lib.error.dispose();
      dispose(inst);
      throw new ScriptFailure('compile', `The TBEL runtime failed to load: ${JSON.stringify(e)}`);
    }
    lib.value.dispose();
  }
  const r = context.evalCode(p.program, 'script');
  if (r.error) {
    const failure = failureOf(p, inst, context.dump(r.error));
    r.error.dispose();
    dispose(inst);
    throw failure.reason === 'runtime' ? new ScriptFailure('compile', failure.message) : failure;
  }
  inst.fn = r.value;
  inst.heapCap = memory.buffer.byteLength + p.limits.memoryBytes;
  return inst;
}

async function invoke(call: InvokeCall): Promise<CallResult> {
  if (call.program) scripts.set(call.scriptId, { program: call.program, instance: null });
  const script = scripts.get(call.scriptId);
  if (!script) return { callId: call.callId, ok: false, reason: 'compile', error: 'Script is not loaded' };
  const p = script.program;
  try {
    const a = JSON.stringify(call.data ?? {}) ?? '{}';
    const b = JSON.stringify(call.metadata ?? {});
    if (a.length + b.length > p.limits.maxArgsChars)
      throw new ScriptFailure(
        'size',
        `Script input arguments exceed maximum allowed total args size of ${p.limits.maxArgsChars} symbols`,
      );
    script.instance ??= await instantiate(p);
    const inst = script.instance;
    const ctx = inst.context;
    inst.overMemory = false;
    inst.deadline = Date.now() + p.limits.timeoutMs;
    const args = [ctx.newString(a), ctx.newString(b), ctx.newString(call.msgType)];
    const r = ctx.callFunction(inst.fn, ctx.undefined, args);
    for (const h of args) h.dispose();
    let json: string | undefined;
    if (r.error) {
      const failure = failureOf(p, inst, ctx.dump(r.error));
      r.error.dispose();
      if (failure.reason !== 'runtime') {
        dispose(inst);
        script.instance = null;
      }
      throw failure;
    } else {
      json = ctx.typeof(r.value) === 'string' ? ctx.getString(r.value) : undefined;
      r.value.dispose();
    }
    if (inst.memory.buffer.byteLength > inst.heapCap) {
      dispose(inst);
      script.instance = null;
    }
    if (json !== undefined && json.length > p.limits.maxResultChars)
      throw new ScriptFailure(
        'size',
        `Script invocation result exceeds maximum allowed size of ${p.limits.maxResultChars} symbols`,
      );
    return { callId: call.callId, ok: true, value: json === undefined ? undefined : JSON.parse(json) };
  } catch (err) {
    if (err instanceof ScriptFailure)
      return { callId: call.callId, ok: false, reason: err.reason, error: err.message };
    dispose(script.instance);
    script.instance = null;
    return {
      callId: call.callId,
      ok: false,
      reason: 'runtime',
      error: (err as Error).message ?? String(err),
    };
  }
}

const queue: WorkerRequest[] = [];
let draining = false;

async function drain(): Promise<void> {
  draining = true;
  while (queue.length) {
    const req = queue.shift()!;
    if (req.kind === 'release') {
      for (const id of req.scriptIds) {
        dispose(scripts.get(id)?.instance ?? null);
        scripts.delete(id);
      }
      continue;
    }
    const results: CallResult[] = [];
    for (const call of req.calls) results.push(await invoke(call));
    parentPort!.postMessage({ kind: 'results', results });
  }
  draining = false;
}

parentPort!.on('message', (req: WorkerRequest) => {
  queue.push(req);
  if (!draining) void drain();
});
