import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  describeThrown,
  type CallResult,
  type FailureReason,
  type GroupItem,
  type InvokeCall,
  type SandboxLimits,
  type ScriptProgram,
  type WorkerReply,
  type WorkerRequest,
} from './script-protocol.ts';
import type { ScriptLang } from './script-program.ts';

export interface ScriptLimits extends SandboxLimits {
  /** timeouts / memory / size failures before a script is blocked (ThingsBoard: tbel.max_errors) */
  maxErrors: number;
  /** how long a blocked script stays blocked (ThingsBoard: max_black_list_duration_sec) */
  blockMs: number;
}

/** ThingsBoard's TBEL defaults (thingsboard.yml `tbel:`): 500 ms, 8 MiB, 3 errors, 60 s, 100,000 / 300,000 chars. */
export const DEFAULT_SCRIPT_LIMITS: ScriptLimits = {
  timeoutMs: 500,
  memoryBytes: 8 * 1024 * 1024,
  stackBytes: 256 * 1024,
  maxArgsChars: 100_000,
  maxResultChars: 300_000,
  maxErrors: 3,
  blockMs: 60_000,
};

/** A failed invocation; `reason` says whether the script timed out, ran out of memory, threw, ... */
export class ScriptError extends Error {
  readonly reason: FailureReason | 'blocked';
  constructor(reason: FailureReason | 'blocked', message: string) {
    super(message);
    this.name = 'ScriptError';
    this.reason = reason;
  }
}

/** A script loaded into the sandbox; released by release() or, failing that, when it is garbage collected. */
export interface SandboxScript {
  readonly id: number;
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: ScriptError): void;
  scriptId: number;
}

const WATCHDOG_GRACE_MS = 2_000;
const STALLED_MS = 20;

/** One worker thread and the calls it owes an answer to. */
class SandboxWorker {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  readonly loaded = new Set<number>();
  private outbox: InvokeCall[] = [];
  private watchdog: NodeJS.Timeout | null = null;
  /** when the batch the worker is running was sent; null when it is idle */
  private inFlightSince: number | null = null;
  dead = false;

  private stallTimer: NodeJS.Timeout | null = null;
  private readonly timeoutMs: number;
  private readonly onResult: (r: CallResult, p: Pending) => void;
  private readonly onDeath: (w: SandboxWorker) => void;
  private readonly onStall: (w: SandboxWorker) => void;

  constructor(
    url: URL,
    timeoutMs: number,
    onResult: (r: CallResult, p: Pending) => void,
    onDeath: (w: SandboxWorker) => void,
    onStall: (w: SandboxWorker) => void,
  ) {
    this.timeoutMs = timeoutMs;
    this.onResult = onResult;
    this.onDeath = onDeath;
    this.onStall = onStall;
    this.worker = new Worker(url, { name: 'sandboard-script-sandbox' });
    this.worker.unref();
    this.worker.on('message', (reply: WorkerReply) => this.receive(reply));
    this.worker.on('error', (err) => this.die(`the script sandbox failed: ${err.message}`));
    this.worker.on('exit', () => this.die('the script sandbox stopped'));
  }

  get idle(): boolean {
    return this.inFlightSince === null;
  }

  /** Running one batch for a while: probably a runaway script; new calls go elsewhere. */
  stalled(now: number): boolean {
    return this.inFlightSince !== null && now - this.inFlightSince > STALLED_MS;
  }

  /**
   * An idle worker gets the call at once; a busy one collects calls and gets them as one batch when it
   * answers: the busier the platform, the larger the batches and the cheaper each call.
   */
  send(call: InvokeCall, pending: Pending): void {
    this.pending.set(call.callId, pending);
    this.outbox.push(call);
    if (this.inFlightSince === null) this.flush();
  }

  post(req: WorkerRequest): void {
    if (!this.dead) this.worker.postMessage(req);
  }

  /** The calls waiting for the running batch to end, handed over to another worker. */
  takeQueued(): { call: InvokeCall; pending: Pending }[] {
    const queued = this.outbox.map((call) => ({ call, pending: this.pending.get(call.callId)! }));
    for (const call of this.outbox) this.pending.delete(call.callId);
    this.outbox = [];
    this.arm();
    return queued;
  }

  private flush(): void {
    if (this.dead || this.outbox.length === 0) return;
    const calls = this.outbox;
    this.outbox = [];
    this.inFlightSince = Date.now();
    this.post({ kind: 'invoke', calls });
    this.arm();
    this.stallTimer ??= setTimeout(() => {
      this.stallTimer = null;
      this.onStall(this);
    }, STALLED_MS + 1);
    this.stallTimer.unref();
  }

  /** A worker that stops answering (a script QuickJS cannot interrupt) is replaced. */
  private arm(): void {
    if (this.watchdog) clearTimeout(this.watchdog);
    this.watchdog = null;
    if (this.pending.size === 0) return;
    const ms = this.pending.size * (this.timeoutMs + 100) + WATCHDOG_GRACE_MS;
    this.watchdog = setTimeout(() => {
      void this.worker.terminate();
      this.die(
        `Script execution exceeded the time limit of ${this.timeoutMs} ms (the sandbox was restarted)`,
      );
    }, ms);
    this.watchdog.unref();
  }

  private receive(reply: WorkerReply): void {
    this.inFlightSince = null;
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = null;
    for (const r of reply.results) this.deliver(r);
    for (const g of reply.groups) {
      const items = JSON.parse(g.json) as GroupItem[];
      g.callIds.forEach((callId, i) => {
        const item = items[i]!;
        this.deliver(
          item.e === undefined
            ? { callId, ok: true, value: item.v }
            : {
                callId,
                ok: false,
                reason: item.k ?? 'runtime',
                error:
                  item.n || item.s
                    ? describeThrown({ name: item.n, message: item.e, stack: item.s })
                    : item.e,
              },
        );
      });
    }
    this.flush();
    this.arm();
  }

  private deliver(r: CallResult): void {
    const p = this.pending.get(r.callId);
    if (!p) return;
    this.pending.delete(r.callId);
    this.onResult(r, p);
  }

  private die(why: string): void {
    if (this.dead) return;
    this.dead = true;
    if (this.watchdog) clearTimeout(this.watchdog);
    if (this.stallTimer) clearTimeout(this.stallTimer);
    for (const p of this.pending.values()) p.reject(new ScriptError('timeout', why));
    this.pending.clear();
    this.onDeath(this);
  }
}

/**
 * Runs rule node scripts in QuickJS (WebAssembly) on worker threads, so that a runaway script never blocks
 * the platform: each invocation has a time and a memory limit, a script that times out or runs out of
 * memory `maxErrors` times is blocked for `blockMs`, and a worker that stops answering is replaced.
 * Calls made in the same turn of the event loop travel to a worker as one message.
 */
export class ScriptSandbox {
  readonly limits: ScriptLimits;
  private readonly size: number;
  private readonly workers: SandboxWorker[] = [];
  private readonly programs = new Map<number, ScriptProgram>();
  private readonly errors = new Map<number, { count: number; until: number; last: string }>();
  private readonly finalizer = new FinalizationRegistry<number>((id) => this.release(id));
  private readonly workerUrl: URL;
  private nextScriptId = 1;
  private nextCallId = 1;

  constructor(options: { limits?: Partial<ScriptLimits>; workers?: number } = {}) {
    this.limits = { ...DEFAULT_SCRIPT_LIMITS, ...options.limits };
    this.size = Math.max(1, options.workers ?? Math.min(2, availableParallelism()));
    const ext = extname(fileURLToPath(import.meta.url));
    this.workerUrl = new URL(`./script-worker${ext}`, import.meta.url);
  }

  /** Loads a compiled program (script-program.ts); the sandbox builds its context on first use. */
  load(lang: ScriptLang, program: string): SandboxScript {
    const id = this.nextScriptId++;
    this.programs.set(id, { id, lang, program, limits: this.limits });
    const handle: SandboxScript = { id };
    this.finalizer.register(handle, id, handle);
    return handle;
  }

  release(script: SandboxScript | number): void {
    const id = typeof script === 'number' ? script : script.id;
    if (typeof script !== 'number') this.finalizer.unregister(script);
    if (!this.programs.delete(id)) return;
    this.errors.delete(id);
    for (const w of this.workers) {
      if (w.loaded.delete(id)) w.post({ kind: 'release', scriptIds: [id] });
    }
  }

  /** Runs the script on (data, metadata, msgType); resolves with its result, rejects with a ScriptError. */
  invoke(
    script: SandboxScript,
    data: unknown,
    metadata: Record<string, string>,
    msgType: string,
  ): Promise<unknown> {
    const program = this.programs.get(script.id);
    if (!program) return Promise.reject(new ScriptError('compile', 'The script was released'));
    const blocked = this.errors.get(script.id);
    if (blocked && blocked.until > 0) {
      if (blocked.until > Date.now()) {
        return Promise.reject(
          new ScriptError(
            'blocked',
            `Script invocation is blocked for ${Math.round(this.limits.blockMs / 1000)} s after ${this.limits.maxErrors} failures (last: ${blocked.last})`,
          ),
        );
      }
      this.errors.delete(script.id);
    }
    return new Promise((resolve, reject) => {
      this.dispatch(
        this.pickWorker(),
        {
          callId: this.nextCallId++,
          scriptId: script.id,
          dataJson: JSON.stringify(data ?? {}) ?? '{}',
          metadataJson: JSON.stringify(metadata ?? {}),
          msgType,
        },
        { resolve, reject, scriptId: script.id },
      );
    });
  }

  /** Sends a call, with its script's program the first time this worker sees the script. */
  private dispatch(worker: SandboxWorker, call: InvokeCall, pending: Pending): void {
    const program = this.programs.get(call.scriptId);
    if (!program) {
      pending.reject(new ScriptError('compile', 'The script was released'));
      return;
    }
    if (worker.loaded.has(call.scriptId)) delete call.program;
    else call.program = program;
    worker.loaded.add(call.scriptId);
    worker.send(call, pending);
  }

  /** A worker held up by one batch (a runaway script): what waits behind it goes to another worker. */
  private rescue(stalled: SandboxWorker): void {
    const now = Date.now();
    const other = this.workers.find((w) => w !== stalled && !w.stalled(now));
    if (!other) return;
    for (const { call, pending } of stalled.takeQueued()) this.dispatch(other, call, pending);
  }

  /** Stops the workers; calls still running fail. */
  async close(): Promise<void> {
    const all = this.workers.splice(0);
    await Promise.all(all.map((w) => w.worker.terminate()));
  }

  /**
   * The first worker that is not stalled: one worker takes everything while it keeps up (the larger its
   * batches, the cheaper each call); the others take over when it is held up by a runaway script. The
   * whole pool is started at the first call, so that a warm worker is at hand for that.
   */
  private pickWorker(): SandboxWorker {
    while (this.workers.length < this.size) {
      this.workers.push(
        new SandboxWorker(
          this.workerUrl,
          this.limits.timeoutMs,
          (r, p) => this.settle(r, p),
          (dead) => {
            const i = this.workers.indexOf(dead);
            if (i >= 0) this.workers.splice(i, 1);
          },
          (stalled) => this.rescue(stalled),
        ),
      );
    }
    const now = Date.now();
    const live = this.workers.find((w) => !w.stalled(now));
    if (live) return live;
    return this.workers.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
  }

  private settle(r: CallResult, p: Pending): void {
    if (r.ok) {
      p.resolve(r.value);
      return;
    }
    if (r.reason === 'timeout' || r.reason === 'memory' || r.reason === 'size') {
      const e = this.errors.get(p.scriptId) ?? { count: 0, until: 0, last: '' };
      e.count++;
      e.last = r.error;
      if (e.count >= this.limits.maxErrors) e.until = Date.now() + this.limits.blockMs;
      this.errors.set(p.scriptId, e);
    }
    p.reject(new ScriptError(r.reason, r.error));
  }
}

let shared: ScriptSandbox | null = null;

/** The sandbox rule nodes share (created on first use; its workers do not keep the process alive). */
export function sharedScriptSandbox(): ScriptSandbox {
  shared ??= new ScriptSandbox();
  return shared;
}
