import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { MAX_JSON_DEPTH } from '../../../shared/limits.ts';
import type { ScriptLang } from './script-program.ts';
import type {
  CallResult,
  FailureReason,
  InvokeCall,
  SandboxLimits,
  ScriptProgram,
  WorkerReply,
  WorkerRequest,
  WorkerSetup,
} from './script-protocol.ts';

export interface ScriptLimits extends SandboxLimits {
  /** calls in a row that hit a limit (time, memory, result size) before the script is suspended */
  maxErrors: number;
  /** the cap on each worker's WebAssembly memory, shared by the scripts it runs */
  workerMemoryBytes: number;
}

const MiB = 1024 * 1024;

/**
 * ThingsBoard's TBEL defaults (thingsboard.yml `tbel:`): 500 ms, 8 MiB, 3 errors, 100,000 / 300,000 chars;
 * each worker's QuickJS memory is capped at 48 MiB.
 */
export const DEFAULT_SCRIPT_LIMITS: ScriptLimits = {
  timeoutMs: 500,
  memoryBytes: 8 * MiB,
  stackBytes: 256 * 1024,
  maxArgsChars: 100_000,
  maxResultChars: 300_000,
  maxErrors: 3,
  workerMemoryBytes: 48 * MiB,
};

/** The JavaScript heap of a worker thread (the strings crossing to and from QuickJS), in MiB. */
export const WORKER_HEAP_MB = 32;
/** The chains' pool: three workers (a runaway script may hold two, one is left to the others), four on larger machines. */
export function liveSandboxWorkers(): number {
  return Math.max(3, Math.min(4, availableParallelism()));
}

/** What a worker thread costs besides its QuickJS memory: its V8 isolate, code and young generation. */
const WORKER_OVERHEAD_MB = 48;

/**
 * The most resident memory `workers` sandbox workers can add to the process: each its capped QuickJS memory,
 * its capped JavaScript heap and its fixed overhead (the README states this bound; a test holds it).
 */
export function sandboxMemoryBound(workers: number, limits: ScriptLimits = DEFAULT_SCRIPT_LIMITS): number {
  return workers * (limits.workerMemoryBytes + (WORKER_HEAP_MB + WORKER_OVERHEAD_MB) * MiB);
}

/** Calls of one script sent to a worker as one message: at most this many, and this much JSON. */
const MAX_BATCH = 256;
const MAX_BATCH_CHARS = 1 * MiB;
const WATCHDOG_GRACE_MS = 1_000;
/** a batch running this long may be a runaway: the script's next calls may use another worker */
const STALLED_MS = 20;
/** how long a script that hit a limit keeps to one worker */
const SUSPECT_MS = 60_000;

/** A failed invocation; `reason` says whether the script timed out, ran out of memory, threw, ... */
export class ScriptError extends Error {
  readonly reason: FailureReason | 'suspended' | 'overloaded';
  /** the script's line where a timeout stopped it, when known */
  readonly line: number | null;
  constructor(
    reason: FailureReason | 'suspended' | 'overloaded',
    message: string,
    line: number | null = null,
  ) {
    super(message);
    this.name = 'ScriptError';
    this.reason = reason;
    this.line = line;
  }
}

/**
 * What a script loaded with numbers gave as [text, count]: its text and the doubles it wrote (both untrusted:
 * bounded in size only; NaN and infinities pass).
 */
export class NumbersResult {
  readonly text: string;
  readonly numbers: Float64Array;
  constructor(text: string, numbers: Float64Array) {
    this.text = text;
    this.numbers = numbers;
  }
}

/** A script loaded into the sandbox; released by release() or, failing that, when it is garbage collected. */
export interface SandboxScript {
  readonly id: number;
}

interface Waiting {
  call: InvokeCall;
  chars: number;
  resolve(value: unknown): void;
  reject(err: ScriptError): void;
}

/** A loaded script: the calls waiting for it, and whether it runs, ran away too often, ... */
interface ScriptState {
  id: number;
  program: ScriptProgram;
  queue: Waiting[];
  /** batches of this script on workers: one, and more only while those are held up (see lanes) */
  running: number;
  inARow: number;
  /** when it last hit a limit: a script that ran away lately gets one worker, never more */
  lastLimitAt: number;
  suspended: string | null;
  /** keeps to the one worker that has it loaded (its context holds state between calls), one batch at a time */
  pinned: boolean;
}

/** One worker thread and the batch it runs. */
class SandboxWorker {
  readonly worker: Worker;
  readonly loaded = new Set<number>();
  batch: { script: ScriptState; calls: Map<number, Waiting>; sent: number } | null = null;
  dead = false;
  private watchdog: NodeJS.Timeout | null = null;
  /** false until the worker has its QuickJS module (compiling it is not a script's time) */
  private ready = false;
  private watchdogMs = 0;
  private readonly timeoutMs: number;
  private readonly onReply: (w: SandboxWorker, reply: WorkerReply) => void;
  private readonly onDeath: (w: SandboxWorker, why: string) => void;

  constructor(
    url: URL,
    setup: WorkerSetup,
    timeoutMs: number,
    onReply: (w: SandboxWorker, reply: WorkerReply) => void,
    onDeath: (w: SandboxWorker, why: string) => void,
  ) {
    this.timeoutMs = timeoutMs;
    this.onReply = onReply;
    this.onDeath = onDeath;
    this.worker = new Worker(url, {
      name: 'sandboard-script-sandbox',
      workerData: setup,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: 16 },
    });
    this.worker.unref();
    this.worker.on('message', (reply: WorkerReply | { kind: 'ready' }) => {
      if (reply.kind === 'ready') {
        this.ready = true;
        if (this.batch) this.arm();
        return;
      }
      try {
        this.settleWatchdog();
        this.onReply(this, reply);
      } catch (err) {
        this.kill(`The script sandbox failed: ${(err as Error).message}`);
      }
    });
    this.worker.on('error', (err) => this.die(`The script sandbox failed: ${err.message}`));
    this.worker.on('exit', () => this.die('The script sandbox stopped'));
  }

  run(script: ScriptState, calls: Waiting[]): void {
    const program = this.loaded.has(script.id) ? undefined : script.program;
    this.loaded.add(script.id);
    this.batch = { script, calls: new Map(calls.map((w) => [w.call.callId, w])), sent: Date.now() };
    this.post({ kind: 'invoke', scriptId: script.id, program, calls: calls.map((w) => w.call) });
    this.watchdogMs = calls.length * (this.timeoutMs + 100) + WATCHDOG_GRACE_MS;
    if (this.ready) this.arm();
  }

  /** A script QuickJS does not interrupt in time (it checks rarely in some loops): the worker is replaced. */
  private arm(): void {
    this.watchdog = setTimeout(
      () =>
        this.kill(
          `Script execution exceeded the time limit of ${this.timeoutMs} ms (the sandbox was restarted)`,
        ),
      this.watchdogMs,
    );
    this.watchdog.unref();
  }

  post(req: WorkerRequest): void {
    if (!this.dead) this.worker.postMessage(req);
  }

  kill(why: string): void {
    void this.worker.terminate();
    this.die(why);
  }

  private settleWatchdog(): void {
    if (this.watchdog) clearTimeout(this.watchdog);
    this.watchdog = null;
  }

  private die(why: string): void {
    if (this.dead) return;
    this.dead = true;
    this.settleWatchdog();
    this.onDeath(this, why);
  }
}

/** Data its caller already serialized as JSON (to measure it): invoke passes the text on as it is. */
export class JsonText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/**
 * Runs rule node scripts in QuickJS (WebAssembly) on worker threads, so that no script blocks, crashes or
 * exhausts the platform. Each call has a time limit, each script a QuickJS memory limit, each worker a cap
 * on its WebAssembly memory (a worker near it is replaced). Scripts wait in queues of their own and a
 * worker runs one script's batch at a time, scripts taking turns: a script that runs away holds up its own
 * messages and at most all workers but one (one only, once it has hit a limit), never the other scripts'
 * last worker. A script that hits a limit `maxErrors` times in a row is
 * suspended: its calls fail at once until it is loaded again (its node edited).
 */
export class ScriptSandbox {
  readonly limits: ScriptLimits;
  private readonly size: number;
  private readonly maxQueuedChars: number;
  private readonly maxQueued: number;
  private readonly workers: SandboxWorker[] = [];
  private readonly scripts = new Map<number, ScriptState>();
  /** scripts with calls waiting, in the order they take turns */
  private readonly ready = new Set<ScriptState>();
  /** batches one script may have running at once: all workers but one, which is left to the others */
  private readonly lanes: number;
  private stallTimer: NodeJS.Timeout | null = null;
  private readonly finalizer = new FinalizationRegistry<number>((id) => this.release(id));
  private readonly workerUrl: URL;
  private queuedChars = 0;
  private queued = 0;
  private nextScriptId = 1;
  private nextCallId = 1;

  constructor(
    options: {
      limits?: Partial<ScriptLimits>;
      workers?: number;
      /** bounds on the calls waiting for a worker (their message JSON, their number): beyond, calls fail */
      maxQueuedChars?: number;
      maxQueued?: number;
    } = {},
  ) {
    this.limits = { ...DEFAULT_SCRIPT_LIMITS, ...options.limits };
    this.size = Math.max(1, options.workers ?? liveSandboxWorkers());
    this.lanes = Math.max(1, this.size - 1);
    this.maxQueuedChars = options.maxQueuedChars ?? 64 * MiB;
    this.maxQueued = options.maxQueued ?? 100_000;
    const ext = extname(fileURLToPath(import.meta.url));
    this.workerUrl = new URL(`./script-worker${ext}`, import.meta.url);
  }

  /**
   * Loads a compiled program (script-program.ts); a worker builds its context on first use. A pinned script
   * runs on one worker only, one batch at a time, so that what its context keeps between calls is there at
   * the next call; it moves to another worker (a fresh context) only when that worker is gone.
   */
  load(
    lang: ScriptLang,
    program: string,
    options: {
      pinned?: boolean;
      /**
       * doubles of an ArrayBuffer the script gets as a 4th argument: a [text, count] result of it resolves
       * as a NumbersResult (at most maxResultChars / 8 of them)
       */
      numbers?: number;
    } = {},
  ): SandboxScript {
    const id = this.nextScriptId++;
    const limits: SandboxLimits = {
      timeoutMs: this.limits.timeoutMs,
      memoryBytes: this.limits.memoryBytes,
      stackBytes: this.limits.stackBytes,
      maxArgsChars: this.limits.maxArgsChars,
      maxResultChars: this.limits.maxResultChars,
    };
    const numbers = Math.min(Math.floor(options.numbers ?? 0), Math.floor(limits.maxResultChars / 8));
    this.scripts.set(id, {
      id,
      program: { id, lang, program, limits, ...(numbers > 0 ? { numbers } : {}) },
      queue: [],
      running: 0,
      inARow: 0,
      lastLimitAt: 0,
      suspended: null,
      pinned: options.pinned === true,
    });
    const handle: SandboxScript = { id };
    this.finalizer.register(handle, id, handle);
    return handle;
  }

  release(script: SandboxScript | number): void {
    const id = typeof script === 'number' ? script : script.id;
    if (typeof script !== 'number') this.finalizer.unregister(script);
    const state = this.scripts.get(id);
    if (!state) return;
    this.scripts.delete(id);
    this.ready.delete(state);
    this.failQueued(state, new ScriptError('compile', 'The script was released'));
    for (const w of this.workers) {
      if (w.loaded.delete(id)) w.post({ kind: 'release', scriptIds: [id] });
    }
  }

  /** Why the script is suspended, or null when it runs. */
  suspension(script: SandboxScript): string | null {
    return this.scripts.get(script.id)?.suspended ?? null;
  }

  /** Runs the script on (data, metadata, msgType); resolves with its result, rejects with a ScriptError. */
  invoke(
    script: SandboxScript,
    data: unknown,
    metadata: Record<string, string>,
    msgType: string,
  ): Promise<unknown> {
    const state = this.scripts.get(script.id);
    if (!state) return Promise.reject(new ScriptError('compile', 'The script was released'));
    if (state.suspended) return Promise.reject(new ScriptError('suspended', state.suspended));
    let call: InvokeCall;
    try {
      call = {
        callId: this.nextCallId++,
        dataJson: data instanceof JsonText ? data.text : (JSON.stringify(data ?? {}) ?? '{}'),
        metadataJson: JSON.stringify(metadata ?? {}),
        msgType: String(msgType),
      };
    } catch (err) {
      return Promise.reject(
        new ScriptError('runtime', `The message cannot be passed to the script: ${(err as Error).message}`),
      );
    }
    const chars = call.dataJson.length + call.metadataJson.length;
    if (this.queuedChars + chars > this.maxQueuedChars || this.queued >= this.maxQueued)
      return Promise.reject(
        new ScriptError('overloaded', 'The script sandbox is overloaded: too many messages wait for scripts'),
      );
    return new Promise((resolve, reject) => {
      this.count(chars, 1);
      state.queue.push({ call, chars, resolve, reject });
      this.ready.add(state);
      this.pump();
    });
  }

  /** Stops the workers; calls still waiting or running fail. */
  async close(): Promise<void> {
    const all = this.workers.splice(0);
    for (const s of this.scripts.values())
      this.failQueued(s, new ScriptError('runtime', 'The script sandbox stopped'));
    this.ready.clear();
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = null;
    await Promise.all(all.map((w) => w.worker.terminate()));
  }

  /**
   * Whether the script may have a batch started now: when none of its batches runs, or (up to `lanes`) when
   * those running are held up, a runaway call perhaps, so that its other messages are not stuck behind it.
   */
  private mayRun(state: ScriptState, now: number): boolean {
    if (state.running === 0) return true;
    if (state.pinned || state.running >= this.lanes || now - state.lastLimitAt < SUSPECT_MS) return false;
    return this.workers.every((w) => w.batch?.script !== state || now - w.batch.sent > STALLED_MS);
  }

  /** Gives each idle worker the batch of the next script in turn (preferring a worker that has it loaded). */
  private pump(): void {
    if (this.ready.size === 0) return;
    try {
      while (this.workers.length < this.size) this.workers.push(this.spawn());
    } catch (err) {
      // no thread to be had (out of memory or file descriptors): with none at all, what waits fails now
      if (this.workers.length === 0) {
        const error = new ScriptError(
          'runtime',
          `The script sandbox cannot start: ${(err as Error).message}`,
        );
        for (const s of this.ready) this.failQueued(s, error);
        this.ready.clear();
        return;
      }
    }
    let idle = this.workers.filter((w) => !w.batch && !w.dead);
    const now = Date.now();
    let waiting = false;
    for (const state of [...this.ready]) {
      if (idle.length === 0) break;
      if (!this.mayRun(state, now)) {
        waiting = true;
        continue;
      }
      const home = this.workers.find((w) => !w.dead && w.loaded.has(state.id));
      // a pinned script waits for its worker; the worker's reply pumps again
      if (state.pinned && home && home.batch) continue;
      const worker = home && !home.batch ? home : (idle.find((w) => w.loaded.has(state.id)) ?? idle[0]!);
      idle = idle.filter((w) => w !== worker);
      let n = 0;
      for (let chars = 0; n < state.queue.length && n < MAX_BATCH && chars < MAX_BATCH_CHARS; n++)
        chars += state.queue[n]!.chars;
      const calls = state.queue.splice(0, n);
      for (const w of calls) this.count(-w.chars, -1);
      state.running++;
      // its turn is over: it goes to the back, or out when nothing of it waits
      this.ready.delete(state);
      if (state.queue.length > 0) {
        this.ready.add(state);
        waiting = true;
      }
      worker.run(state, calls);
    }
    // calls held behind a running batch: look again once that batch may count as held up
    if (waiting && !this.stallTimer) {
      this.stallTimer = setTimeout(() => {
        this.stallTimer = null;
        this.pump();
      }, STALLED_MS + 1);
      this.stallTimer.unref();
    }
  }

  private spawn(): SandboxWorker {
    return new SandboxWorker(
      this.workerUrl,
      { memoryBytes: this.limits.workerMemoryBytes, maxDepth: MAX_JSON_DEPTH },
      this.limits.timeoutMs,
      (w, reply) => this.receive(w, reply),
      (w, why) => this.lost(w, why),
    );
  }

  private receive(worker: SandboxWorker, reply: WorkerReply): void {
    const batch = worker.batch;
    worker.batch = null;
    if (reply.retire) this.retire(worker);
    if (!batch) return;
    const { script, calls } = batch;
    const again: Waiting[] = [];
    try {
      for (const r of reply.results) {
        const w = calls.get(r.callId);
        if (!w) continue;
        calls.delete(r.callId);
        this.settle(script, w, r);
      }
      for (const id of reply.notRun) {
        const w = calls.get(id);
        if (w) again.push(w);
        calls.delete(id);
      }
    } catch {
      // a reply not as the protocol has it: what it did not settle fails below
    }
    for (const w of calls.values())
      w.reject(new ScriptError('runtime', 'The script sandbox gave no result for this message'));
    this.finish(script, again);
  }

  /** A worker that died (watchdog, crash, its heap limit): its batch fails as a runaway call. */
  private lost(worker: SandboxWorker, why: string): void {
    this.remove(worker);
    const batch = worker.batch;
    worker.batch = null;
    if (batch) {
      const [first, ...rest] = [...batch.calls.values()];
      if (first)
        this.settle(batch.script, first, {
          callId: first.call.callId,
          ok: false,
          reason: 'timeout',
          error: why,
        });
      this.finish(batch.script, rest);
    }
    this.pump();
  }

  /** A batch is over: calls it did not run wait again, first; the script takes its turn again. */
  private finish(script: ScriptState, again: Waiting[]): void {
    script.running--;
    if (this.scripts.get(script.id) !== script) {
      for (const w of again) w.reject(new ScriptError('compile', 'The script was released'));
    } else if (script.suspended) {
      for (const w of again) w.reject(new ScriptError('suspended', script.suspended));
    } else {
      for (const w of again) this.count(w.chars, 1);
      script.queue.unshift(...again);
      if (script.queue.length > 0) this.ready.add(script);
    }
    this.pump();
  }

  private settle(script: ScriptState, w: Waiting, r: CallResult): void {
    if (r.ok) {
      script.inARow = 0;
      let value: unknown;
      try {
        value = this.valueOf(r.text, r.numbers, script.program.numbers ?? 0);
      } catch (err) {
        w.reject(new ScriptError('runtime', (err as Error).message));
        return;
      }
      w.resolve(value);
      return;
    }
    if (r.reason === 'timeout' || r.reason === 'memory' || r.reason === 'size') {
      script.inARow++;
      script.lastLimitAt = Date.now();
      if (script.inARow >= this.limits.maxErrors && !script.suspended) {
        script.suspended = `Script suspended after ${script.inARow} failures in a row (last: ${r.error}); edit the node to run it again`;
        this.ready.delete(script);
        this.failQueued(script, new ScriptError('suspended', script.suspended));
      }
    }
    w.reject(new ScriptError(r.reason, r.error, typeof r.line === 'number' ? r.line : null));
  }

  /** A result as the runner wrote it, checked again here: nothing larger or deeper than the limits. */
  private valueOf(text: string, numbers: ArrayBuffer | undefined, capacity: number): unknown {
    if (text === 'u') return undefined;
    if (typeof text === 'string' && text[0] === 's' && numbers instanceof ArrayBuffer && capacity > 0) {
      if (
        text.length + numbers.byteLength > this.limits.maxResultChars + 1 ||
        numbers.byteLength > capacity * 8
      )
        throw new Error('The script sandbox gave a result it cannot read');
      return new NumbersResult(text.slice(1), new Float64Array(numbers));
    }
    if (typeof text !== 'string' || text[0] !== 'v' || text.length > this.limits.maxResultChars + 1)
      throw new Error('The script sandbox gave a result it cannot read');
    const value = JSON.parse(text.slice(1)) as unknown;
    if (nestsDeeper(value, MAX_JSON_DEPTH)) throw new Error('Script result is nested too deeply');
    return value;
  }

  private failQueued(script: ScriptState, err: ScriptError): void {
    for (const w of script.queue.splice(0)) {
      this.count(-w.chars, -1);
      w.reject(err);
    }
  }

  private count(chars: number, calls: number): void {
    this.queuedChars += chars;
    this.queued += calls;
  }

  /** A worker whose memory has grown near its cap: no new batches; it goes once its batch is answered. */
  private retire(worker: SandboxWorker): void {
    this.remove(worker);
    worker.dead = true;
    void worker.worker.terminate();
  }

  private remove(worker: SandboxWorker): void {
    const i = this.workers.indexOf(worker);
    if (i >= 0) this.workers.splice(i, 1);
  }
}

/** Whether a parsed JSON value nests objects or arrays deeper than max (without recursion). */
export function nestsDeeper(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (depth >= max) return true;
    for (const item of Array.isArray(v) ? v : Object.values(v as object))
      if (typeof item === 'object' && item !== null) stack.push([item, depth + 1]);
  }
  return false;
}

let shared: ScriptSandbox | null = null;
let tests: ScriptSandbox | null = null;

/** The sandbox rule nodes share (created on first use; its workers do not keep the process alive). */
export function sharedScriptSandbox(): ScriptSandbox {
  shared ??= new ScriptSandbox();
  return shared;
}

/**
 * The sandbox of the node form's "test script" (POST /api/ruleChain/testScript): one worker of its own and
 * a short queue, so that tests, however many and however slow, never hold up the chains.
 */
export function testScriptSandbox(): ScriptSandbox {
  tests ??= new ScriptSandbox({ workers: 1, maxQueuedChars: 4 * MiB, maxQueued: 16 });
  return tests;
}
