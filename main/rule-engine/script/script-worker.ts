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
  describeThrown,
  type CallResult,
  type FailureReason,
  type GroupResult,
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

/** Turns an exception dumped from QuickJS into a failure with the reason and the user's line. */
function failureOf(p: ScriptProgram, inst: Instance, dumped: unknown): ScriptFailure {
  const e = dumped as { name?: string; message?: string; stack?: string; lineNumber?: number } | null;
  if (inst.overMemory || e === null || e?.message === 'out of memory')
    return new ScriptFailure('memory', memoryMessage(p));
  if (e?.name === 'InternalError' && e.message === 'interrupted')
    return new ScriptFailure('timeout', timeoutMessage(p));
  if (e && typeof e === 'object' && 'message' in e) return new ScriptFailure('runtime', describeThrown(e));
  return new ScriptFailure('runtime', `Script threw ${JSON.stringify(dumped)}`);
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

/** Runs calls of one script as one QuickJS call; throws ScriptFailure when the batch as a whole fails. */
function runBatch(script: Script, inst: Instance, calls: InvokeCall[]): string {
  const p = script.program;
  let text = '[';
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i]!;
    text += `${i ? ',' : ''}[${c.dataJson},${c.metadataJson},${JSON.stringify(c.msgType)}]`;
  }
  text += ']';
  const ctx = inst.context;
  inst.overMemory = false;
  inst.deadline = Date.now() + p.limits.timeoutMs;
  const arg = ctx.newString(text);
  const max = ctx.newNumber(p.limits.maxResultChars);
  const r = ctx.callFunction(inst.fn, ctx.undefined, arg, max);
  arg.dispose();
  max.dispose();
  if (r.error) {
    const failure = failureOf(p, inst, ctx.dump(r.error));
    r.error.dispose();
    throw failure;
  }
  const json = ctx.getString(r.value);
  r.value.dispose();
  return json;
}

/**
 * Runs the calls of one script: together when they can, and one by one when the batch fails (so that a
 * runaway message fails alone). After a timeout or memory failure the instance is rebuilt.
 */
async function invokeScript(
  script: Script,
  calls: InvokeCall[],
  results: CallResult[],
  groups: GroupResult[],
): Promise<void> {
  try {
    script.instance ??= await instantiate(script.program);
    const inst = script.instance;
    const json = runBatch(script, inst, calls);
    if (inst.memory.buffer.byteLength > inst.heapCap) {
      dispose(inst);
      script.instance = null;
    }
    groups.push({ callIds: calls.map((c) => c.callId), json });
  } catch (err) {
    dispose(script.instance);
    script.instance = null;
    if (calls.length > 1 && err instanceof ScriptFailure && err.reason !== 'compile') {
      for (const c of calls) await invokeScript(script, [c], results, groups);
      return;
    }
    const reason = err instanceof ScriptFailure ? err.reason : 'runtime';
    const error = (err as Error).message ?? String(err);
    for (const c of calls) results.push({ callId: c.callId, ok: false, reason, error });
  }
}

async function invoke(calls: InvokeCall[]): Promise<{ results: CallResult[]; groups: GroupResult[] }> {
  const results: CallResult[] = [];
  const groups: GroupResult[] = [];
  const byScript = new Map<number, InvokeCall[]>();
  for (const c of calls) {
    if (c.program) scripts.set(c.scriptId, { program: c.program, instance: null });
    const script = scripts.get(c.scriptId);
    if (!script) {
      results.push({ callId: c.callId, ok: false, reason: 'compile', error: 'Script is not loaded' });
      continue;
    }
    const max = script.program.limits.maxArgsChars;
    if (c.dataJson.length + c.metadataJson.length > max) {
      results.push({
        callId: c.callId,
        ok: false,
        reason: 'size',
        error: `Script input arguments exceed maximum allowed total args size of ${max} symbols`,
      });
      continue;
    }
    const list = byScript.get(c.scriptId);
    if (list) list.push(c);
    else byScript.set(c.scriptId, [c]);
  }
  for (const [id, list] of byScript) await invokeScript(scripts.get(id)!, list, results, groups);
  return { results, groups };
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
    parentPort!.postMessage({ kind: 'results', ...(await invoke(req.calls)) });
  }
  draining = false;
}

parentPort!.on('message', (req: WorkerRequest) => {
  queue.push(req);
  if (!draining) void drain();
});
