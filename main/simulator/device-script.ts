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
 * lines), then the dispatcher. The devices live in the script's QuickJS context (a pinned script: one worker
 * runs all its calls): each device's state (as JSON), random stream, info and shared attributes stay there
 * between calls, so that a tick passes in only the devices' numbers and takes back only what they published.
 * A device the context does not know (its first call, or the worker was replaced) comes with its init; one
 * that comes without is answered {l:1} (lost) and the host sends its init next time. A call commits what its
 * devices did to their state only once all of them ran and the result fits: a call that fails (a limit, a
 * result too large) changes nothing, so that its devices can run again one call each. Each device's result
 * is a line of JSON (what it published, or what it threw). Module-level variables of the script start over
 * at every call.
 */
const MAX_KEYS = 100;
const MAX_KEY_CHARS = 255;

const DISPATCH = `
;return (function (m, hooks) {
  var T = globalThis.__sandboardDevices;
  if (typeof T !== 'object' || T === null) {
    T = {};
    Object.defineProperty(globalThis, '__sandboardDevices', { value: T, writable: true, configurable: true });
  }
  var out, rng;
  function random() {
    rng = (rng + 0x6d2b79f5) | 0;
    var t = Math.imul(rng ^ (rng >>> 15), 1 | rng);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  function publish(values) { out.p.push(values); }
  function publishAttributes(values) { out.a.push(values); }
  function Refused(message) { this.message = message; }
  function check(v, what) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Refused(what + ' must be an object of key: value');
    var keys = Object.keys(v);
    if (keys.length > ${MAX_KEYS}) throw new Refused(what + ' has more than ${MAX_KEYS} keys');
    for (var i = 0; i < keys.length; i++) {
      var k = keys[i];
      if (k.length === 0 || k.length > ${MAX_KEY_CHARS}) throw new Refused(what + ' has a key that is empty or longer than ${MAX_KEY_CHARS} characters');
      if (v[k] === null || v[k] === undefined) throw new Refused(what + ": '" + k + "' must be a number, a string, a boolean or a JSON object");
    }
  }
  function freeze(v) {
    if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
      Object.freeze(v);
      for (var k in v) freeze(v[k]);
    }
    return v;
  }
  var texts = [], commits = [];
  for (var i = 0; i < m.b.length; i++) {
    var k = m.b[i];
    var e = T[k], fresh = false;
    if (e === undefined) {
      var init = m.i ? m.i[k] : undefined;
      if (!init) { texts.push('{"l":1}'); continue; }
      e = { s: '{}', r: init.r | 0, d: freeze(init.d), sh: freeze(init.sh) };
      fresh = true;
    }
    if (m.sh !== undefined) e.sh = freeze(m.sh);
    try {
      out = { p: [], a: [] };
      rng = e.r;
      var ctx = {
        state: JSON.parse(e.s), now: m.now, elapsedMs: m.el, device: e.d, shared: e.sh,
        random: random, publish: publish, publishAttributes: publishAttributes
      };
      var fn = hooks[m.h], res = { p: out.p, a: out.a, h: typeof fn === 'function' };
      if (res.h) {
        if (m.h === 'onTick') { var v = fn(ctx); if (v !== undefined && v !== null) out.p.push(v); }
        else if (m.h === 'onRpc') { var reply = fn(m.method, m.params, ctx); if (reply !== undefined) res.reply = reply; }
        else fn(m.u, ctx);
      }
      var st = ctx.state;
      if (typeof st !== 'object' || st === null || Array.isArray(st)) throw new Refused(m.h + ': ctx.state must stay an object');
      for (var j = 0; j < out.p.length; j++)
        check(out.p[j], m.h === 'onTick' && j === out.p.length - 1 && v !== undefined && v !== null ? m.h + "'s result" : 'ctx.publish()');
      for (var j2 = 0; j2 < out.a.length; j2++) check(out.a[j2], 'ctx.publishAttributes()');
      if (fresh) res.i = 1;
      var text = JSON.stringify(res);
      commits.push(k, e, JSON.stringify(st), rng);
      texts.push(text);
    } catch (err) {
      if (err === null || err instanceof InternalError) throw err;
      var x = err instanceof Refused ? { x: String(err.message) }
        : err instanceof Error ? { x: String(err.message), n: String(err.name), t: String(err.stack) }
        : { x: String(err) };
      if (fresh) { x.i = 1; commits.push(k, e, e.s, e.r); }
      texts.push(JSON.stringify(x));
    }
  }
  var all = texts.join('\\n');
  // the runner writes the text quoted: when that is beyond its bound, nothing is committed ("big")
  if (all.length * 2 + 2 > m.max && JSON.stringify(all).length > m.max) return 'big';
  for (var c = 0; c < commits.length; c += 4) {
    T[commits[c]] = commits[c + 1];
    commits[c + 1].s = commits[c + 2];
    commits[c + 1].r = commits[c + 3];
  }
  return all;
})(msg, {
  onTick: typeof onTick === 'function' ? onTick : undefined,
  onRpc: typeof onRpc === 'function' ? onRpc : undefined,
  onAttributes: typeof onAttributes === 'function' ? onAttributes : undefined
});`;

const MiB = 1024 * 1024;
/** A device's copy of its shared attributes, in JSON. */
const MAX_SHARED_CHARS = 16_384;
/**
 * Devices whose onTick runs in one sandbox call (they share its time limit; a call per device costs more
 * than the hook itself). Devices that pass their init (first calls) go in calls of a bounded size.
 */
const TICK_BATCH = 1000;
/** RPC requests and attribute updates waiting behind a device's running call; beyond, they are refused. */
const MAX_WAITING = 50;

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

/** Whether the sandbox's context holds the device: not yet, yes, or perhaps no longer (a call failed). */
type Residence = 'new' | 'resident' | 'unsure';

interface DeviceSlot {
  /** the device's number in the sandbox's context */
  k: number;
  info: { name: string; n: number; gateway: string; type: string };
  /** the random stream's seed, for the device's first call (its stream then lives in the context) */
  seed: number;
  shared: JsonObject;
  sharedChars: number;
  residence: Residence;
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

/** A publish of the script, checked again (the dispatcher checked it first): a JSON object of bounded keys. */
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

/** One device's line of a call's result (untrusted): parsed, nested no deeper than JSON may. */
function parseLine(line: string): JsonObject | null {
  try {
    const v = JSON.parse(line) as unknown;
    return isObject(v) && !nestsDeeper(v, MAX_JSON_DEPTH) ? v : null;
  } catch {
    return null;
  }
}

/** A call's result: one line per device, or null when it is not that (too large: "big", or unreadable). */
function linesOf(result: unknown, count: number): string[] | null {
  if (typeof result !== 'string' || result === 'big') return null;
  const lines = result.split('\n');
  return lines.length === count ? lines : null;
}

/** A device's line when the context did not hold it and the call did not pass its init. */
const LOST_LINE = '{"l":1}';

const UNREADABLE = 'The script sandbox gave a result it cannot read';

const RESULT_TOO_LARGE = (max: number) =>
  `Script invocation result exceeds maximum allowed size of ${max} symbols`;

/**
 * The script of a gateway's devices, in the simulator's sandbox. Each device has its own state, seeded
 * random stream and copy of its shared attributes, kept in the script's context in the sandbox; its calls
 * run in order, one at a time. A device whose script throws skips that call (and keeps its state as it
 * was); one that runs past the time or memory limit (or whose script does not compile) is stopped, and the
 * other devices go on. When the sandbox's worker is replaced (it crashed, ran out of memory), the devices'
 * states start over, and an error says so. Every failure goes to `onError`.
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
        k: this.devices.size,
        info: { name: d.name, n: d.n, gateway: options.gateway, type: options.deviceType },
        seed: Math.floor(seededRandom(options.seed, d.name, 'script')() * 4_294_967_296) | 0,
        shared: {},
        sharedChars: 2,
        residence: 'new',
        tail: Promise.resolve(),
        queued: 0,
        stopped: false,
      });
    let script: SandboxScript | null = null;
    try {
      script = this.sandbox.load(
        'JS',
        compileProgram('JS', options.source + DISPATCH, ['msg', 'metadata', 'msgType']),
        { pinned: true },
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
   * onTick of many devices, in calls of up to 1000 devices each: `onOutcome` gets each device's outcome.
   * When a call fails (a limit, a result too large), its devices run again one call each, so that only the
   * device at fault is stopped.
   */
  ticks(
    devices: string[],
    now: number,
    elapsedMs: number,
    onOutcome: (device: string, out: ScriptOutcome | null) => void,
  ): void {
    const script = this.script;
    const ready: DeviceSlot[] = [];
    for (const d of devices) {
      if (this.ready(d)) ready.push(this.devices.get(d)!);
      else onOutcome(d, null);
    }
    if (!script) return;
    // a call's input is bounded: devices that pass their init count for theirs
    const room = this.sandbox.limits.maxArgsChars / 2;
    for (let i = 0; i < ready.length;) {
      const slots: DeviceSlot[] = [];
      for (let chars = 0; i < ready.length && slots.length < TICK_BATCH && chars < room; i++) {
        const slot = ready[i]!;
        chars += slot.residence === 'resident' ? 6 : 200 + slot.sharedChars + slot.info.name.length;
        slots.push(slot);
      }
      for (const slot of slots) slot.queued++;
      // one device ran away (or the result was too large): each device on its own finds which
      const oneByOne = () => {
        for (const slot of slots)
          void this.call(slot.info.name, 'onTick', now, elapsedMs, {}).then((out) =>
            onOutcome(slot.info.name, out),
          );
      };
      const done = this.sandbox
        .invoke(script, this.message('onTick', slots, now, elapsedMs), {}, 'onTick')
        .then(
          (result) => {
            for (const slot of slots) slot.queued--;
            const lines = linesOf(result, slots.length);
            if (!lines) {
              for (const slot of slots) if (slot.residence === 'resident') slot.residence = 'unsure';
              oneByOne();
              return;
            }
            const lost: DeviceSlot[] = [];
            slots.forEach((slot, k) => {
              this.onCall();
              const out = this.settle(slot, lines[k]!, 'onTick', lost);
              onOutcome(slot.info.name, out);
            });
            this.reportLost(lost, 'onTick');
          },
          (err: unknown) => {
            for (const slot of slots) {
              slot.queued--;
              if (slot.residence === 'resident') slot.residence = 'unsure';
            }
            if (err instanceof ScriptError && err.reason === 'overloaded') {
              for (const slot of slots) onOutcome(slot.info.name, null);
              return;
            }
            oneByOne();
          },
        );
      const tail = done.catch(() => undefined);
      for (const slot of slots) slot.tail = tail;
    }
  }

  /** A call's message: the hook, its devices' numbers, and the init of those the context may not hold. */
  private message(
    hook: ScriptHook,
    slots: DeviceSlot[],
    now: number,
    elapsedMs: number,
    extra: JsonObject = {},
  ) {
    let init: Record<number, unknown> | undefined;
    for (const slot of slots)
      if (slot.residence !== 'resident') {
        init ??= {};
        init[slot.k] = { r: slot.seed, d: slot.info, sh: slot.shared };
      }
    return {
      h: hook,
      b: slots.map((s) => s.k),
      ...(init ? { i: init } : {}),
      now,
      el: elapsedMs,
      max: this.sandbox.limits.maxResultChars,
      ...extra,
    };
  }

  /**
   * One device's line of a call's result: its outcome, or its throw reported (the device skips the call).
   * A device the context no longer held (`l`) or took afresh while it should have held it goes to `lost`.
   */
  private settle(slot: DeviceSlot, line: string, hook: ScriptHook, lost: DeviceSlot[]): ScriptOutcome | null {
    const device = slot.info.name;
    const r = parseLine(line);
    if (!r) {
      return this.unreadable(device, hook);
    }
    if (r.l === 1) {
      slot.residence = 'unsure';
      lost.push(slot);
      return null;
    }
    if (r.i === 1) {
      if (slot.residence === 'unsure') lost.push(slot);
      slot.residence = 'resident';
    } else if (slot.residence === 'new') {
      // the context cannot hold a device it was never given: the result is not this call's
      return this.unreadable(device, hook);
    } else slot.residence = 'resident';
    if ('x' in r) {
      const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
      const message =
        r.n === undefined && r.t === undefined
          ? (str(r.x) ?? 'The script failed')
          : describeThrown({ name: str(r.n), message: str(r.x) ?? 'The script failed', stack: str(r.t) });
      this.onError({ device, hook, line: lineOf(message), message, stopped: false });
      return null;
    }
    try {
      return this.accept(r, hook);
    } catch (err) {
      this.onError({ device, hook, line: null, message: (err as Error).message, stopped: false });
      return null;
    }
  }

  private unreadable(device: string, hook: ScriptHook): null {
    this.onError({ device, hook, line: null, message: UNREADABLE, stopped: false });
    return null;
  }

  /** Devices whose state the sandbox lost (its worker was replaced): they start over, once said. */
  private reportLost(lost: DeviceSlot[], hook: ScriptHook): void {
    if (lost.length === 0) return;
    this.onError({
      device: lost.length === 1 ? lost[0]!.info.name : null,
      hook,
      line: null,
      message:
        lost.length === 1
          ? "The script sandbox was restarted: this device's ctx.state starts over"
          : `The script sandbox was restarted: the ctx.state of ${lost.length} devices starts over`,
      stopped: false,
    });
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
      const chars = JSON.stringify(shared).length;
      if (chars <= MAX_SHARED_CHARS) {
        slot.shared = shared;
        slot.sharedChars = chars;
      }
    }
    return this.call(device, 'onAttributes', now, elapsedMs, { u: update, sh: slot?.shared ?? {} });
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
      let result: unknown;
      try {
        const send = () =>
          this.sandbox.invoke(script, this.message(hook, [slot], now, elapsedMs, extra), {}, hook);
        result = await send();
        // the sandbox no longer held the device (its worker was replaced): the call runs again with its init
        if (result === LOST_LINE) {
          slot.residence = 'unsure';
          result = await send();
        }
      } catch (err) {
        if (slot.residence === 'resident') slot.residence = 'unsure';
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
        if (stop) this.stop(slot);
        return null;
      }
      this.onCall();
      if (result === 'big') {
        // a device alone whose result is too large: stopped, as a result past the limit always was
        this.onError({
          device,
          hook,
          line: null,
          message: RESULT_TOO_LARGE(this.sandbox.limits.maxResultChars),
          stopped: true,
        });
        this.stop(slot);
        return null;
      }
      const lines = linesOf(result, 1);
      const lost: DeviceSlot[] = [];
      const out = lines ? this.settle(slot, lines[0]!, hook, lost) : this.unreadable(device, hook);
      this.reportLost(lost, hook);
      return out;
    };
    const done = slot.tail.then(run).finally(() => slot.queued--);
    slot.tail = done.catch(() => undefined);
    return done;
  }

  private stop(slot: DeviceSlot): void {
    if (slot.stopped) return;
    slot.stopped = true;
    this.stoppedCount++;
  }

  /** The dispatcher's result, checked again: nothing the script returns is trusted. */
  private accept(result: JsonObject, hook: ScriptHook): ScriptOutcome | null {
    const { p, a, h } = result;
    if (!Array.isArray(p) || !Array.isArray(a)) throw new Error(UNREADABLE);
    const telemetry = p.map((v) => checkValues(v, `${hook}'s result`));
    const attributes = a.map((v) => checkValues(v, 'ctx.publishAttributes()'));
    if (h !== true) return null;
    return { telemetry, attributes, ...('reply' in result ? { reply: result.reply } : {}) };
  }
}
