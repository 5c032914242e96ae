import type { ScriptHook } from '../../shared/schemas/simulation.ts';
import { MAX_JSON_DEPTH } from '../../shared/limits.ts';
import { ScriptCompileError } from '../rule-engine/script/script-compile-error.ts';
import { compileProgram } from '../rule-engine/script/script-program.ts';
import { describeThrown } from '../rule-engine/script/script-protocol.ts';
import {
  nestsDeeper,
  ScriptError,
  ScriptSandbox,
  type SandboxScript,
} from '../rule-engine/script/script-sandbox.ts';
import { seededRandom } from './generators.ts';

/**
 * What the sandbox runs around a device's script: the script's own lines first (so that errors name its
 * lines), then the dispatcher. Each call passes the device's state in and takes it back with what the hook
 * published: nothing of a device stays in QuickJS between calls, so any worker may run any call, and a
 * worker that is replaced loses nothing. Module-level variables of the script start over at every call.
 */
const DISPATCH = `
;return (function (m, hooks) {
  // one set of ctx functions for the whole call: they act on the device being run
  var out, rng;
  function random() {
    rng = (rng + 0x6d2b79f5) | 0;
    var t = Math.imul(rng ^ (rng >>> 15), 1 | rng);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  function publish(values) { out.p.push(values); }
  function publishAttributes(values) { out.a.push(values); }
  function one(d) {
    out = { p: [], a: [], s: null, r: 0, h: false };
    rng = d.r | 0;
    var ctx = {
      state: d.s, now: m.now, elapsedMs: m.el, device: d.d, shared: d.sh,
      random: random, publish: publish, publishAttributes: publishAttributes
    };
    var fn = hooks[m.h];
    if (typeof fn === 'function') {
      out.h = true;
      if (m.h === 'onTick') { var v = fn(ctx); if (v !== undefined && v !== null) out.p.push(v); }
      else if (m.h === 'onRpc') { var reply = fn(m.method, m.params, ctx); if (reply !== undefined) out.reply = reply; }
      else fn(m.u, ctx);
    }
    out.s = ctx.state;
    out.r = rng;
    return out;
  }
  if (!m.b) return one(m);
  // a tick of many devices: each device's throw is its own; limits (time, memory) fail the whole call
  var results = [];
  for (var i = 0; i < m.b.length; i++) {
    try {
      results.push(one(m.b[i]));
    } catch (e) {
      if (e === null || e instanceof InternalError) throw e;
      var err = e instanceof Error ? e : null;
      results.push({ x: err ? String(err.message) : String(e), n: err ? String(err.name) : undefined, t: err ? String(err.stack) : undefined });
    }
  }
  // as text, written by QuickJS's own JSON (the host parses and checks it again): far cheaper than the
  // sandbox's bounded writer for a hundred devices' results
  return JSON.stringify(results);
})(msg, {
  onTick: typeof onTick === 'function' ? onTick : undefined,
  onRpc: typeof onRpc === 'function' ? onRpc : undefined,
  onAttributes: typeof onAttributes === 'function' ? onAttributes : undefined
});`;

const MiB = 1024 * 1024;
/** A device's copy of its shared attributes, in JSON. */
const MAX_SHARED_CHARS = 16_384;
/** Devices whose onTick runs in one sandbox call (their calls share its time limit). */
const TICK_BATCH = 100;
/** RPC requests and attribute updates waiting behind a device's running call; beyond, they are refused. */
const MAX_WAITING = 50;
const MAX_KEYS = 100;
const MAX_KEY_CHARS = 255;

let sandbox: ScriptSandbox | null = null;

/**
 * The simulator's own sandbox (two workers), apart from the rule chains': a device script that runs away
 * holds up scripted devices at most, never the platform's chains. Limits are the rule engine's (time per
 * call, QuickJS memory, what a call passes in and out).
 */
export function simulatorSandbox(): ScriptSandbox {
  sandbox ??= new ScriptSandbox({
    workers: 2,
    // a device that hits a limit is stopped here, on its own: the sandbox does not suspend the whole script
    limits: { maxErrors: Number.MAX_SAFE_INTEGER },
    maxQueuedChars: 32 * MiB,
    maxQueued: 50_000,
  });
  return sandbox;
}

/** A script failure as the simulation page lists it. */
export interface DeviceScriptError {
  device: string | null;
  hook: ScriptHook | null;
  line: number | null;
  message: string;
  stopped: boolean;
}

export interface ScriptedDevice {
  name: string;
  n: number;
}

/** What one hook call asks the gateway to do. */
export interface ScriptOutcome {
  telemetry: Record<string, unknown>[];
  attributes: Record<string, unknown>[];
  /** onRpc's reply; undefined when it gave none (or there is no onRpc): the gateway's RPC rules answer */
  reply?: unknown;
}

type JsonObject = Record<string, unknown>;

interface DeviceSlot {
  info: { name: string; n: number; gateway: string; type: string };
  state: JsonObject;
  rng: number;
  shared: JsonObject;
  /** the device's calls run one after another: this is the last one queued */
  tail: Promise<unknown>;
  queued: number;
  stopped: boolean;
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** "TypeError: x is undefined (line 3)" → 3 */
function lineOf(message: string): number | null {
  const m = /\(line (\d+)\)$/.exec(message);
  return m ? Number(m[1]) : null;
}

/** A batch's results as the dispatcher wrote them (untrusted text): an array, nested no deeper than JSON may. */
function parseBatch(text: unknown): unknown[] | null {
  if (typeof text !== 'string') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(value) || nestsDeeper(value, MAX_JSON_DEPTH)) return null;
  return value;
}

/** A publish of the script, checked: a JSON object of at most 100 keys of up to 255 characters. */
function checkValues(v: unknown, what: string): JsonObject {
  if (!isObject(v)) throw new Error(`${what} must be an object of key: value`);
  const keys = Object.keys(v);
  if (keys.length > MAX_KEYS) throw new Error(`${what} has more than ${MAX_KEYS} keys`);
  for (const k of keys) {
    if (k.length === 0 || k.length > MAX_KEY_CHARS)
      throw new Error(`${what} has a key that is empty or longer than ${MAX_KEY_CHARS} characters`);
    const value = v[k];
    if (value === null || value === undefined)
      throw new Error(`${what}: '${k}' must be a number, a string, a boolean or a JSON object`);
  }
  return v;
}

/**
 * The script of a gateway's devices, in the simulator's sandbox. Each device has its own state, seeded
 * random stream and copy of its shared attributes; its calls run in order, one at a time. A device whose
 * script throws skips that call; one that runs past the time or memory limit (or whose script does not
 * compile) is stopped, and the other devices go on. Every failure goes to `onError`.
 */
export class DeviceScript {
  private readonly script: SandboxScript | null;
  private readonly devices = new Map<string, DeviceSlot>();
  private readonly sandbox: ScriptSandbox;
  private readonly onError: (e: DeviceScriptError) => void;
  private readonly onCall: () => void;
  private readonly lines: number;
  stoppedCount = 0;

  constructor(options: {
    source: string;
    gateway: string;
    deviceType: string;
    seed: string | number;
    devices: ScriptedDevice[];
    onError: (e: DeviceScriptError) => void;
    /** a hook call ran (well or not) */
    onCall?: () => void;
    sandbox?: ScriptSandbox;
  }) {
    this.sandbox = options.sandbox ?? simulatorSandbox();
    this.onError = options.onError;
    this.onCall = options.onCall ?? (() => undefined);
    this.lines = options.source.split('\n').length;
    for (const d of options.devices)
      this.devices.set(d.name, {
        info: { name: d.name, n: d.n, gateway: options.gateway, type: options.deviceType },
        state: {},
        rng: Math.floor(seededRandom(options.seed, d.name, 'script')() * 4_294_967_296) | 0,
        shared: {},
        tail: Promise.resolve(),
        queued: 0,
        stopped: false,
      });
    let script: SandboxScript | null = null;
    try {
      script = this.sandbox.load(
        'JS',
        compileProgram('JS', options.source + DISPATCH, ['msg', 'metadata', 'msgType']),
      );
    } catch (err) {
      const line = err instanceof ScriptCompileError ? Math.min(err.line, this.lines) : null;
      const detail =
        err instanceof ScriptCompileError ? err.message.replace(/^line \d+: /, '') : (err as Error).message;
      this.stoppedCount = this.devices.size;
      for (const slot of this.devices.values()) slot.stopped = true;
      this.onError({ device: null, hook: null, line, message: `Syntax error: ${detail}`, stopped: true });
    }
    this.script = script;
  }

  /** Whether the device's script still runs. */
  runs(device: string): boolean {
    const slot = this.devices.get(device);
    return slot !== undefined && !slot.stopped && this.script !== null;
  }

  /** Whether a tick of the device would run now (its script runs and no call of it waits). */
  ready(device: string): boolean {
    return this.runs(device) && this.devices.get(device)!.queued === 0;
  }

  /**
   * onTick of many devices, in calls of up to 100 devices each (a call per device costs more than the hook
   * itself): `onOutcome` gets each device's outcome. When a call hits a limit, its devices run again one
   * call each, so that only the device at fault is stopped.
   */
  ticks(
    devices: string[],
    now: number,
    elapsedMs: number,
    onOutcome: (device: string, out: ScriptOutcome | null) => void,
  ): void {
    const script = this.script;
    const ready: string[] = [];
    for (const d of devices) {
      if (this.ready(d)) ready.push(d);
      else onOutcome(d, null);
    }
    if (!script) return;
    for (let i = 0; i < ready.length; i += TICK_BATCH) {
      const names = ready.slice(i, i + TICK_BATCH);
      const slots = names.map((n) => this.devices.get(n)!);
      const batch = slots.map((slot) => ({ s: slot.state, r: slot.rng, d: slot.info, sh: slot.shared }));
      for (const slot of slots) slot.queued++;
      // one device ran away (or the result was too large): each device on its own finds which
      const oneByOne = () => {
        for (const name of names)
          void this.call(name, 'onTick', now, elapsedMs, {}).then((out) => onOutcome(name, out));
      };
      const done = this.sandbox
        .invoke(script, { h: 'onTick', now, el: elapsedMs, b: batch }, {}, 'onTick')
        .then(
          (result) => {
            for (const slot of slots) slot.queued--;
            const results = parseBatch(result);
            if (!results || results.length !== slots.length) oneByOne();
            else slots.forEach((slot, k) => onOutcome(slot.info.name, this.settleTick(slot, results[k])));
          },
          (err: unknown) => {
            for (const slot of slots) slot.queued--;
            if (err instanceof ScriptError && err.reason === 'overloaded') return;
            oneByOne();
          },
        );
      const tail = done.catch(() => undefined);
      for (const slot of slots) slot.tail = tail;
    }
  }

  /** One device's part of a batched tick: its outcome, or its throw reported (the device skips the tick). */
  private settleTick(slot: DeviceSlot, r: unknown): ScriptOutcome | null {
    this.onCall();
    const device = slot.info.name;
    if (isObject(r) && 'x' in r) {
      const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
      const message = describeThrown({
        name: str(r.n),
        message: str(r.x) ?? 'The script failed',
        stack: str(r.t),
      });
      this.onError({ device, hook: 'onTick', line: lineOf(message), message, stopped: false });
      return null;
    }
    try {
      return this.accept(slot, r, 'onTick');
    } catch (err) {
      this.onError({ device, hook: 'onTick', line: null, message: (err as Error).message, stopped: false });
      return null;
    }
  }

  /** onRpc; null: not handled (no hook, stopped, or it failed). */
  rpc(device: string, method: string, params: unknown, now: number, elapsedMs: number) {
    return this.call(device, 'onRpc', now, elapsedMs, { method, params: params ?? null });
  }

  /** A shared attribute update: kept in ctx.shared, and passed to onAttributes. */
  attributes(device: string, update: JsonObject, deleted: string[], now: number, elapsedMs: number) {
    const slot = this.devices.get(device);
    if (slot) {
      const shared = { ...slot.shared, ...update };
      for (const k of deleted) delete shared[k];
      // the copy is bounded as a call's arguments are: an update that would overflow it is not kept
      if (JSON.stringify(shared).length <= MAX_SHARED_CHARS) slot.shared = shared;
    }
    return this.call(device, 'onAttributes', now, elapsedMs, { u: update });
  }

  release(): void {
    if (this.script) this.sandbox.release(this.script);
  }

  private call(
    device: string,
    hook: ScriptHook,
    now: number,
    elapsedMs: number,
    extra: JsonObject,
  ): Promise<ScriptOutcome | null> {
    const slot = this.devices.get(device);
    if (!slot || slot.stopped || !this.script) return Promise.resolve(null);
    if (slot.queued >= MAX_WAITING) {
      this.onError({
        device,
        hook,
        line: null,
        message: `${MAX_WAITING} calls already wait for this device's script: this one is dropped`,
        stopped: false,
      });
      return Promise.resolve(null);
    }
    slot.queued++;
    const script = this.script;
    const run = async (): Promise<ScriptOutcome | null> => {
      if (slot.stopped) return null;
      const msg = {
        h: hook,
        s: slot.state,
        r: slot.rng,
        d: slot.info,
        sh: slot.shared,
        now,
        el: elapsedMs,
        ...extra,
      };
      let result: unknown;
      try {
        result = await this.sandbox.invoke(script, msg, {}, hook);
      } catch (err) {
        if (err instanceof ScriptError && err.reason === 'overloaded') return null;
        this.onCall();
        const stop = !(err instanceof ScriptError) || err.reason !== 'runtime';
        this.onError({
          device,
          hook,
          line: lineOf((err as Error).message) ?? (err instanceof ScriptError ? err.line : null),
          message: (err as Error).message,
          stopped: stop,
        });
        if (stop && !slot.stopped) {
          slot.stopped = true;
          this.stoppedCount++;
        }
        return null;
      }
      this.onCall();
      try {
        return this.accept(slot, result, hook);
      } catch (err) {
        this.onError({ device, hook, line: null, message: (err as Error).message, stopped: false });
        return null;
      }
    };
    const done = slot.tail.then(run).finally(() => slot.queued--);
    slot.tail = done.catch(() => undefined);
    return done;
  }

  /** The dispatcher's result, checked again: nothing the script returns is trusted. */
  private accept(slot: DeviceSlot, result: unknown, hook: ScriptHook): ScriptOutcome | null {
    if (!isObject(result)) throw new Error('The script sandbox gave a result it cannot read');
    const { p, a, s, r, h } = result;
    if (!isObject(s)) throw new Error(`${hook}: ctx.state must stay an object`);
    if (!Array.isArray(p) || !Array.isArray(a) || typeof r !== 'number')
      throw new Error('The script sandbox gave a result it cannot read');
    const telemetry = p.map((v, i) =>
      checkValues(v, hook === 'onTick' && i === p.length - 1 ? `${hook}'s result` : 'ctx.publish()'),
    );
    const attributes = a.map((v) => checkValues(v, 'ctx.publishAttributes()'));
    slot.state = s;
    slot.rng = r | 0;
    if (!h) return null;
    return { telemetry, attributes, ...('reply' in result ? { reply: result.reply } : {}) };
  }
}
