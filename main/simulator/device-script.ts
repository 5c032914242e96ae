import type { ScriptHook } from '../../shared/schemas/simulation.ts';
import { MAX_JSON_DEPTH } from '../../shared/limits.ts';
import { ScriptCompileError } from '../rule-engine/script/script-compile-error.ts';
import { compileProgram } from '../rule-engine/script/script-program.ts';
import { describeThrown } from '../rule-engine/script/script-protocol.ts';
import {
  nestsDeeper,
  NumbersResult,
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
/** Shapes (key lists) of the results a call sends as doubles; results of other shapes go as JSON. */
const MAX_SHAPES = 64;
/**
 * Doubles a call may send its devices' numeric results in: a call's 5,000 devices of 4 keys (the worker
 * copies the whole buffer out after each call, so it is no larger than that; more go as JSON).
 */
const NUMBERS = 20_480;

/**
 * What runs the dispatcher of a call: the one below as it is, or (for onTick) one made from its own text for
 * the shape most results had in the call before (T.hot: their keys, when all are plain identifiers), cached
 * in the context. In that one, a result of that shape is checked and written as doubles in straight code
 * (its keys read by name): QuickJS runs a loop over a result's keys, reading each by a computed name, at
 * several times the cost of the script's own onTick. Anything else goes the general way below.
 */
const SPECIALIZE = `
  var T = globalThis.__sandboardDevices;
  if (m.h !== 'onTick' || typeof T !== 'object' || T === null || typeof T.hot !== 'string') return run(m, hooks, nums);
  var G = T.gen;
  if (typeof G !== 'object' || G === null) G = T.gen = {};
  var g = G[T.hot];
  if (g === undefined) {
    g = null;
    try {
      var keys = T.hot.split(','), n = keys.length, ok = n > 0 && n <= 16, miss = ['ks.length !== ' + n], put = [], xs = [];
      for (var j = 0; ok && j < n; j++) {
        ok = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(keys[j]) && keys[j] !== '__proto__';
        miss.push('ks[' + j + '] !== "' + keys[j] + '"', 'typeof (x' + j + ' = v.' + keys[j] + ') !== "number"');
        put.push('F[nf + ' + j + '] = x' + j + ';');
        xs.push('x' + j);
      }
      if (ok) {
        // devices the context holds whose onTick gives the hot shape's result alone, one after another; the
        // first that does not is left to the general loop (ran), as it ran
        // (what a device published ends the loop: pub and att stay null while it runs)
        var loop = 'pub = null; att = null; for (; tick && kl > 0 && nf + ' + n + ' <= cap; kl--, kn++, i++) {' +
          ' var e = L[kn]; if (e === undefined) break;' +
          ' rng = e.r; var c = e.c;' +
          ' c.state = e.s; c.now = now; c.elapsedMs = el; c.random = random; c.publish = publish; c.publishAttributes = publishAttributes;' +
          ' try { v = fn(c); } catch (err) { ran = 2; thrownBy = err; break; }' +
          ' if (pub !== null || att !== null || c.state !== e.s || typeof v !== "object" || v === null) { ran = 1; break; }' +
          ' try { var ks = keysOf(v), ' + xs.join(', ') + ';' +
          ' if (' + miss.join(' || ') + ' || isArr(v)) { ran = 1; break; } } catch (err) { ran = 2; thrownBy = err; break; }' +
          ' e.r = rng; ' + put.join(' ') + ' nf += ' + n + '; r[i] = 1; }' +
          ' if (ran === 0 && (kl === 0 || i >= nb)) { i--; continue; }';
        var text = Function.prototype.toString.call(run).replace('/*HOT*/', '["' + keys.join('","') + '"]').replace('/*LOOP*/', loop);
        g = Function('return ' + text)();
      }
    } catch (x) {
      g = null;
    }
    if (Object.keys(G).length >= 8) G = T.gen = {};
    G[T.hot] = g;
  }
  return typeof g === 'function' ? g(m, hooks, nums) : run(m, hooks, nums);`;

const DISPATCH = `
;return (function (run, m, hooks, nums) {
${SPECIALIZE}
})(function (m, hooks, nums) {
  var T = globalThis.__sandboardDevices;
  if (typeof T !== 'object' || T === null) {
    T = {};
    Object.defineProperty(globalThis, '__sandboardDevices', { value: T, writable: true, configurable: true });
  }
  // the texts of a result too large for one, kept by its call's number until the host fetched them
  var M = T.more;
  if (typeof M !== 'object' || M === null) M = T.more = {};
  if (m.h === 'more') {
    var q = M[m.q];
    if (!q || !q.length) return '{"r":[],"i":[],"m":0}';
    var next = q.shift();
    if (!q.length) delete M[m.q];
    return next;
  }
  var rng, pub, att, v;
  // xorshift32: a few operations and no call (QuickJS runs a call to Math.imul slower than a hook's
  // arithmetic), a stream of 2^32 - 1 numbers per device; its state is never 0
  function random() {
    rng ^= rng << 13;
    rng ^= rng >>> 17;
    rng ^= rng << 5;
    return (rng >>> 0) / 4294967296;
  }
  function publish(values) { if (pub === null) pub = []; pub.push(values); }
  function publishAttributes(values) { if (att === null) att = []; att.push(values); }
  function Refused(message) { this.message = message; }
  function check(v, what) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Refused(what + ' must be an object of key: value');
    var n = 0;
    for (var k in v) {
      if (++n > ${MAX_KEYS}) throw new Refused(what + ' has more than ${MAX_KEYS} keys');
      if (k.length === 0 || k.length > ${MAX_KEY_CHARS}) throw new Refused(what + ' has a key that is empty or longer than ${MAX_KEY_CHARS} characters');
      var x = v[k];
      if (x === null || x === undefined) throw new Refused(what + ": '" + k + "' must be a number, a string, a boolean or a JSON object");
    }
  }
  function freeze(v) {
    if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
      Object.freeze(v);
      for (var k in v) freeze(v[k]);
    }
    return v;
  }
  function thrown(err) {
    if (err === null || err instanceof InternalError) throw err;
    return err instanceof Refused ? [null, String(err.message)]
      : err instanceof Error ? [null, String(err.message), String(err.name), String(err.stack)]
      : [null, String(err)];
  }
  // what a call gives back when it is more than onTick's result alone, checked (the host checks it again)
  function full(e, c, v, reply) {
    var st = c.state;
    if (typeof st !== 'object' || st === null || Array.isArray(st)) throw new Refused(h + ': ctx.state must stay an object');
    e.s = st;
    var p = pub === null ? [] : pub, a = att === null ? [] : att;
    for (var j = 0; j < p.length; j++) check(p[j], 'ctx.publish()');
    if (v !== undefined && v !== null) { check(v, "onTick's result"); p.push(v); }
    for (var j2 = 0; j2 < a.length; j2++) check(a[j2], 'ctx.publishAttributes()');
    return reply === undefined ? [p, a, has] : [p, a, has, reply];
  }
  // results whose values are all numbers go as doubles (number to text costs more than most hooks): their
  // entry is their keys' shape (1-based), their values the next doubles of F
  var F = nums instanceof ArrayBuffer ? new Float64Array(nums) : null, cap = F === null ? 0 : F.length;
  var nf = 0, S = [/*HOT*/], K = null, last = 0, keysOf = Object.keys;
  // a result's keys against a shape, writing its values at F[nf..]: whether they all match and are numbers
  function packs(o, ks, shape) {
    for (var j = 0; j < shape.length; j++) {
      var key = ks[j];
      if (key !== shape[j]) return false;
      var val = o[key];
      if (typeof val !== 'number') return false;
      F[nf + j] = val;
    }
    return true;
  }
  // the shape of a result unlike the one before (a new one when it has none yet): its entry, or 0
  function shapeOf(o, ks) {
    var n = ks.length, id = 0;
    if (n === 0 || n > ${MAX_KEYS} || nf + n > cap) return 0;
    for (var y = 0; y < S.length && id === 0; y++) if (S[y].length === n && packs(o, ks, S[y])) id = y + 1;
    if (id === 0 && S.length < ${MAX_SHAPES}) {
      for (var j = 0; j < n; j++) if (ks[j].length > ${MAX_KEY_CHARS} || ks[j] === '__proto__') break;
      if (j === n && packs(o, ks, ks)) { S.push(ks); id = S.length; }
    }
    if (id === 0) return 0;
    nf += n; K = S[id - 1]; last = id;
    return id;
  }
  // the doubles a call's entries took
  function doubles(es, shapes) {
    for (var x = 0, d = 0; x < es.length; x++) if (typeof es[x] === 'number' && es[x] > 0) d += shapes[es[x] - 1].length;
    return d;
  }
  // the results sent as doubles, as objects again (for a result that goes as JSON after all)
  function unpack() {
    for (var x = 0, at = 0; x < r.length; x++) {
      var id = r[x];
      if (typeof id !== 'number' || id === 0) continue;
      var shape = S[id - 1], o = {};
      for (var j = 0; j < shape.length; j++) o[shape[j]] = F[at++];
      r[x] = o;
    }
  }
  var L = T.list;
  if (!Array.isArray(L)) L = T.list = [];
  var h = m.h, fn = hooks[h], has = typeof fn === 'function', tick = has && h === 'onTick';
  // the devices' numbers come in runs, [first, count, first, count, ...] (most calls are one run)
  var b = m.b, nb = 0, now = m.now, el = m.el, sh = m.sh, isArr = Array.isArray, r = [], fresh = [];
  for (var p = 1; p < b.length; p += 2) nb += b[p];
  // what each call did, kept by its number until it ends: when a device runs past the time limit, the call
  // is stopped and the host takes back the results of the devices before it (a 'partial' call)
  var U = T.runs;
  if (typeof U !== 'object' || U === null || keysOf(U).length >= 8) U = T.runs = {};
  if (F !== null)
    for (var uq in U) {
      // a call stopped in its run: its doubles are kept before this call writes its own over them
      var P = U[uq];
      if (P.d === undefined) P.d = Array.prototype.slice.call(F, 0, doubles(P.r, P.s));
    }
  if (h === 'partial') {
    var P2 = U[m.p];
    delete U[m.p];
    if (!P2) return '{"r":[],"i":[],"m":0}';
    r = P2.r; S = P2.s; nb = r.length; nf = doubles(r, S);
    for (var z = 0; z < P2.i.length; z++) if (P2.i[z] < nb) fresh.push(P2.i[z]);
    if (F !== null && P2.d !== undefined) for (var z2 = 0; z2 < nf; z2++) F[z2] = P2.d[z2];
  } else U[m.q] = { r: r, i: fresh, s: S };
  // ran: the device was run by the loop of the hot shape (made in SPECIALIZE), which left it to this one:
  // 1 with its result in v, 2 with what it threw in thrownBy
  var go = h !== 'partial', ran = 0, thrownBy;
  for (var i = 0, bi = 0, kn = 0, kl = 0; go && i < nb; i++) {
    if (kl === 0) { kn = b[bi]; kl = b[bi + 1]; bi += 2; }
    /*LOOP*/
    var k = kn++, e = L[k];
    kl--;
    if (e === undefined) {
      var init = m.i ? m.i[k] : undefined;
      if (!init) { r[i] = 0; continue; }
      e = { s: {}, r: (init.r | 0) || 0x2545f491, c: { state: null, now: 0, elapsedMs: 0, device: freeze(init.d), shared: freeze(init.sh) } };
      L[k] = e;
      fresh.push(i);
    }
    // the device's ctx is made once (a call per device costs more than most hooks): a call sets its time,
    // its state and the functions of this call
    var c = e.c, reply = undefined;
    if (ran === 0) {
      pub = null; att = null; rng = e.r; v = undefined;
      if (sh !== undefined) c.shared = freeze(sh);
      c.state = e.s; c.now = now; c.elapsedMs = el;
      c.random = random; c.publish = publish; c.publishAttributes = publishAttributes;
    }
    if (tick) {
      if (ran === 0) {
        try { v = fn(c); } catch (err) { e.r = rng; r[i] = thrown(err); continue; }
      } else if (ran === 2) { ran = 0; e.r = rng; r[i] = thrown(thrownBy); continue; }
      ran = 0;
      e.r = rng;
      // the common case, kept short: onTick's result alone, ctx.state the same object (the host checks v)
      if (pub === null && att === null && c.state === e.s && typeof v === 'object' && v !== null && !isArr(v)) {
        if (F !== null) {
          try {
            // most results have the shape of the one before
            var ks = keysOf(v), n = ks.length;
            if (K !== null && n === K.length && nf + n <= cap) {
              for (var w = 0; w < n; w++) {
                var key = ks[w], val;
                if (key !== K[w] || typeof (val = v[key]) !== 'number') break;
                F[nf + w] = val;
              }
              if (w === n) { nf += n; r[i] = last; continue; }
            }
            var id = shapeOf(v, ks);
            if (id > 0) { r[i] = id; continue; }
          } catch (err) { r[i] = thrown(err); continue; }
        }
        r[i] = v;
        continue;
      }
    } else if (has) {
      try {
        if (h === 'onRpc') reply = fn(m.method, m.params, c);
        else fn(m.u, c);
      } catch (err) { e.r = rng; r[i] = thrown(err); continue; }
      e.r = rng;
    }
    try { r[i] = full(e, c, v, reply); } catch (err) { r[i] = thrown(err); }
  }
  delete U[m.q];
  if (F !== null) {
    var packed;
    // a run of devices of one shape goes as its shape and -(the devices after the first): most devices
    // of a call give the shape of the one before
    var runs = [];
    for (var x = 0, y; x < nb; x = y) {
      var ex = r[x];
      runs.push(ex);
      y = x + 1;
      if (typeof ex !== 'number' || ex <= 0) continue;
      while (y < nb && r[y] === ex) y++;
      if (y > x + 1) runs.push(x + 1 - y);
    }
    // the next calls get a dispatcher of their own for the shape of the first device's result
    if (tick && typeof runs[0] === 'number' && runs[0] > 0) T.hot = S[runs[0] - 1].join(',');
    try { packed = JSON.stringify({ r: runs, i: fresh, m: 0, s: S }); } catch (x) { packed = undefined; }
    if (typeof packed === 'string' && packed.length + nf * 8 <= m.max) return [packed, nf];
    unpack();
  }
  // one text for all the devices; the runner writes it quoted, within its bound
  var all;
  try { all = JSON.stringify({ r: r, i: fresh, m: 0 }); } catch (x) { all = undefined; }
  if (typeof all === 'string' && (all.length * 2 + 2 <= m.max || JSON.stringify(all).length <= m.max)) return all;
  // a result that cannot be written, or too large: each device's on its own, in as many texts as needed
  var room = m.max - 64, chunks = [], part = [], used = JSON.stringify(fresh).length * 2;
  for (var n = 0; n < r.length; n++) {
    var t;
    try { t = JSON.stringify(r[n]); } catch (x) { t = undefined; }
    if (typeof t !== 'string') t = JSON.stringify([null, 'The result cannot be written as JSON']);
    var size = JSON.stringify(t).length;
    if (size > room) {
      t = JSON.stringify([false, 'Script invocation result exceeds maximum allowed size of ' + m.max + ' symbols']);
      size = t.length + 2;
    }
    if (used + size > room && part.length > 0) { chunks.push(part); part = []; used = 0; }
    part.push(t);
    used += size;
  }
  chunks.push(part);
  var texts = [];
  for (var z = 0; z < chunks.length; z++)
    texts.push('{"r":[' + chunks[z].join(',') + '],"i":' + (z === 0 ? JSON.stringify(fresh) : '[]') + ',"m":' + (chunks.length - 1 - z) + '}');
  if (Object.keys(M).length >= 8) M = T.more = {};
  if (texts.length > 1) M[m.q] = texts.slice(1);
  return texts[0];
}, msg, {
  onTick: typeof onTick === 'function' ? onTick : undefined,
  onRpc: typeof onRpc === 'function' ? onRpc : undefined,
  onAttributes: typeof onAttributes === 'function' ? onAttributes : undefined
}, arguments[3]);`;

const MiB = 1024 * 1024;
/** A device's copy of its shared attributes, in JSON. */
const MAX_SHARED_CHARS = 16_384;
/**
 * Devices whose onTick runs in one sandbox call (they share its time limit; a call per device costs more
 * than the hook itself, and each call wakes the sandbox's worker and then the host thread: on a busy
 * machine that costs about a millisecond of CPU, so a gateway's devices tick in as few calls as may be).
 * Devices that pass their init (first calls) go in calls of a bounded size.
 */
const TICK_BATCH = 5000;
const MIN_TICK_BATCH = 50;
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

/** Ends the simulator's sandbox workers (a stopped platform leaves none running); the next script starts new ones. */
export async function closeSimulatorSandbox(): Promise<void> {
  const closing = sandbox;
  sandbox = null;
  await closing?.close();
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

/**
 * A device's entry in a call's result (untrusted, checked in settle): 0 (the context did not hold it), its
 * onTick result alone (an object), [telemetry[], attributes[], hooked, reply?], [null, message, name?,
 * stack?] (it threw), or [false, message] (its result alone is beyond the bound: it is stopped).
 */
type Entry = unknown;

/** A device's onTick result sent as doubles, read back: its values, or why they are refused. */
class Numeric {
  readonly values: JsonObject | null;
  readonly refused: string | null;
  constructor(values: JsonObject | null, refused: string | null) {
    this.values = values;
    this.refused = refused;
  }
}

/** The shapes (key lists) of a result with numbers, checked as a publish's keys are; null if not that. */
function shapesOf(s: unknown): string[][] | null {
  if (!Array.isArray(s) || s.length > MAX_SHAPES) return null;
  for (const keys of s as unknown[]) {
    if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_KEYS) return null;
    for (const k of keys as unknown[])
      if (typeof k !== 'string' || k.length === 0 || k.length > MAX_KEY_CHARS || k === '__proto__')
        return null;
    if (new Set(keys).size !== keys.length) return null;
  }
  return s as string[][];
}

/**
 * A shape's entries (1-based numbers) read back as Numeric, taking their values in order from the doubles;
 * false when they do not add up (an entry naming no shape, more values than doubles or doubles left over).
 */
function readNumbers(r: Entry[], shapes: string[][], numbers: Float64Array): boolean {
  let at = 0;
  for (let k = 0; k < r.length; k++) {
    const e = r[k];
    if (typeof e !== 'number' || e === 0) continue;
    const keys = Number.isInteger(e) ? shapes[e - 1] : undefined;
    if (!keys || at + keys.length > numbers.length) return false;
    const values: JsonObject = {};
    let refused: string | null = null;
    for (const key of keys) {
      const v = numbers[at++]!;
      // JSON has no NaN nor infinities: as the script's JSON would say, these are null
      if (!Number.isFinite(v))
        refused ??= `onTick's result: '${key}' must be a number, a string, a boolean or a JSON object`;
      values[key] = v;
    }
    r[k] = new Numeric(refused ? null : values, refused);
  }
  return at === numbers.length;
}

/**
 * A result of doubles' entries with their runs spread out (a shape then -n: n more devices of that shape),
 * at most `count`; null when they are not that (a run after no shape, more entries than devices).
 */
function spreadRuns(r: unknown[], count: number): Entry[] | null {
  if (r.length > count) return null;
  const out: Entry[] = [];
  for (let x = 0; x < r.length; x++) {
    const e = r[x];
    if (typeof e !== 'number' || e >= 0) {
      out.push(e);
      continue;
    }
    const id = r[x - 1];
    if (!Number.isInteger(e) || typeof id !== 'number' || !(id > 0) || out.length - e > count) return null;
    for (let n = 0; n < -e; n++) out.push(id);
  }
  return out;
}

/**
 * One text of a call's result (of `count` devices): its entries, the indexes of the devices taken afresh,
 * texts still to fetch. With numbers, the entries of results sent as doubles are read back (Numeric).
 */
function chunkOf(result: unknown, count: number): { r: Entry[]; i: number[]; m: number } | null {
  const numbers = result instanceof NumbersResult ? result : null;
  const text = numbers ? numbers.text : result;
  if (typeof text !== 'string') return null;
  try {
    const v = JSON.parse(text) as unknown;
    if (!isObject(v) || !Array.isArray(v.r) || !Array.isArray(v.i) || typeof v.m !== 'number') return null;
    if (numbers) {
      const shapes = shapesOf(v.s);
      const r = spreadRuns(v.r, count);
      if (!shapes || !r || v.m !== 0 || !readNumbers(r, shapes, numbers.numbers)) return null;
      return { r, i: v.i as number[], m: 0 };
    }
    return { r: v.r, i: v.i as number[], m: v.m };
  } catch {
    return null;
  }
}

const UNREADABLE = 'The script sandbox gave a result it cannot read';

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
  /** numbers the calls, so that the rest of a large result is fetched for its own call */
  private calls = 0;
  /**
   * Devices per tick call: they share its time limit, so a call that hit it halves the next ones (to half
   * the devices that ran in it), and calls that take little of it double them again, up to TICK_BATCH.
   */
  private tickBatch = TICK_BATCH;
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
        { pinned: true, numbers: NUMBERS },
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
   * onTick of many devices, in calls of up to 5000 devices each: `onOutcome` gets each device's outcome.
   * When a device runs past the time limit, the devices before it in its call keep what they did, it runs
   * again alone (and is stopped if it does again) and those after it run in a call of their own. When a call
   * fails otherwise (memory, a result too large), its devices run again one call each, so that only the
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
      const slot = this.devices.get(d);
      if (script && slot && !slot.stopped && slot.queued === 0) ready.push(slot);
      else onOutcome(d, null);
    }
    if (script) this.tickCalls(script, ready, now, elapsedMs, onOutcome);
  }

  /** onTick of the slots, in calls of up to 5000 devices and a bounded input. */
  private tickCalls(
    script: SandboxScript,
    ready: DeviceSlot[],
    now: number,
    elapsedMs: number,
    onOutcome: (device: string, out: ScriptOutcome | null) => void,
  ): void {
    // a call's input is bounded: devices that pass their init count for theirs
    const room = this.sandbox.limits.maxArgsChars / 2;
    for (let i = 0; i < ready.length;) {
      const slots: DeviceSlot[] = [];
      for (let chars = 0; i < ready.length && slots.length < this.tickBatch && chars < room; i++) {
        const slot = ready[i]!;
        chars += slot.residence === 'resident' ? 6 : 200 + slot.sharedChars + slot.info.name.length;
        slots.push(slot);
      }
      this.tickCall(script, slots, now, elapsedMs, onOutcome);
    }
  }

  /** One call of onTick for the slots. */
  private tickCall(
    script: SandboxScript,
    slots: DeviceSlot[],
    now: number,
    elapsedMs: number,
    onOutcome: (device: string, out: ScriptOutcome | null) => void,
  ): void {
    for (const slot of slots) slot.queued++;
    const message = this.message('onTick', slots, now, elapsedMs);
    const sent = performance.now();
    const release = () => {
      for (const slot of slots) {
        slot.queued--;
        if (slot.residence === 'resident') slot.residence = 'unsure';
      }
    };
    const done = this.collect(script, message, 'onTick', slots.length).then(
      (res) => {
        if (!res) {
          release();
          this.oneByOne(slots, now, elapsedMs, onOutcome);
          return;
        }
        for (const slot of slots) slot.queued--;
        if (performance.now() - sent < this.sandbox.limits.timeoutMs / 8)
          this.tickBatch = Math.min(TICK_BATCH, this.tickBatch * 2);
        this.settleAll(slots, res, onOutcome);
      },
      async (err: unknown) => {
        if (err instanceof ScriptError && err.reason === 'timeout') {
          // the devices before the one that ran away keep what they did; it runs alone, those after it again
          const partial = await this.collect(
            script,
            { h: 'partial', b: [], p: message.q, max: message.max, q: this.calls++ },
            'onTick',
            slots.length,
            true,
          ).catch(() => null);
          const n = partial?.r.length ?? 0;
          this.tickBatch = Math.max(MIN_TICK_BATCH, Math.floor(n / 2));
          if (n === 0) {
            release();
            return this.oneByOne(slots, now, elapsedMs, onOutcome);
          }
          // the context still holds the devices: those after the one at fault go without their init
          for (const slot of slots) slot.queued--;
          this.settleAll(slots.slice(0, n), partial!, onOutcome);
          this.oneByOne(slots.slice(n, n + 1), now, elapsedMs, onOutcome);
          this.tickCalls(script, slots.slice(n + 1), now, elapsedMs, onOutcome);
          return;
        }
        release();
        if (err instanceof ScriptError && err.reason === 'overloaded') {
          for (const slot of slots) onOutcome(slot.info.name, null);
          return;
        }
        this.oneByOne(slots, now, elapsedMs, onOutcome);
      },
    );
    const tail = done.catch(() => undefined);
    for (const slot of slots) slot.tail = tail;
  }

  /** A call's result: each device's outcome. */
  private settleAll(
    slots: DeviceSlot[],
    res: { r: Entry[]; fresh: Set<number> },
    onOutcome: (device: string, out: ScriptOutcome | null) => void,
  ): void {
    const lost: DeviceSlot[] = [];
    slots.forEach((slot, k) => {
      this.onCall();
      const out = this.settle(slot, res.r[k], res.fresh.has(k), 'onTick', lost);
      onOutcome(slot.info.name, out);
    });
    this.reportLost(lost, 'onTick');
  }

  /** One device ran away (or the result was too large): each device on its own finds which. */
  private oneByOne(
    slots: DeviceSlot[],
    now: number,
    elapsedMs: number,
    onOutcome: (device: string, out: ScriptOutcome | null) => void,
  ): void {
    for (const slot of slots)
      void this.call(slot.info.name, 'onTick', now, elapsedMs, {}).then((out) =>
        onOutcome(slot.info.name, out),
      );
  }

  /**
   * A call's entries, one per device (fetching the rest of a result too large for one text), and which
   * devices the context took afresh; null when the result is not that (unreadable). `upTo`: fewer entries
   * than `count` are the first devices' (a partial call).
   */
  private async collect(
    script: SandboxScript,
    message: JsonObject,
    hook: ScriptHook,
    count: number,
    upTo = false,
  ): Promise<{ r: Entry[]; fresh: Set<number> } | null> {
    let chunk = chunkOf(await this.sandbox.invoke(script, message, {}, hook), count);
    if (!chunk) return null;
    const r = chunk.r;
    const fresh = new Set(chunk.i);
    for (let fetched = 0; chunk.m > 0 && fetched < count; fetched++) {
      chunk = chunkOf(await this.sandbox.invoke(script, { h: 'more', b: [], q: message.q }, {}, hook), count);
      if (!chunk) return null;
      for (const e of chunk.r) r.push(e);
    }
    return r.length === count || (upTo && r.length < count) ? { r, fresh } : null;
  }

  /**
   * A call's message: the hook, its devices' numbers (in runs: first, count), and the init of those the
   * context may not hold.
   */
  private message(
    hook: ScriptHook,
    slots: DeviceSlot[],
    now: number,
    elapsedMs: number,
    extra: JsonObject = {},
  ) {
    let init: Record<number, unknown> | undefined;
    const b: number[] = [];
    for (const slot of slots) {
      if (slot.residence !== 'resident') {
        init ??= {};
        init[slot.k] = { r: slot.seed, d: slot.info, sh: slot.shared };
      }
      const n = b.length;
      if (n > 0 && b[n - 2]! + b[n - 1]! === slot.k) b[n - 1]!++;
      else b.push(slot.k, 1);
    }
    return {
      h: hook,
      b,
      ...(init ? { i: init } : {}),
      now,
      el: elapsedMs,
      max: this.sandbox.limits.maxResultChars,
      q: this.calls++,
      ...extra,
    };
  }

  /**
   * One device's entry of a call's result: its outcome, or its throw reported (the device skips the call).
   * A device the context no longer held (0) or took afresh while it should have held it goes to `lost`.
   */
  private settle(
    slot: DeviceSlot,
    entry: Entry,
    fresh: boolean,
    hook: ScriptHook,
    lost: DeviceSlot[],
  ): ScriptOutcome | null {
    const device = slot.info.name;
    if (entry === 0) {
      slot.residence = 'unsure';
      lost.push(slot);
      return null;
    }
    if (fresh) {
      if (slot.residence === 'unsure') lost.push(slot);
      slot.residence = 'resident';
    } else slot.residence = 'resident';
    try {
      // the common case: onTick's result alone, its values all numbers
      if (entry instanceof Numeric) {
        if (!entry.values) throw new Error(entry.refused ?? UNREADABLE);
        return { telemetry: [entry.values], attributes: [] };
      }
      if (isObject(entry)) {
        if (nestsDeeper(entry, MAX_JSON_DEPTH)) throw new Error(UNREADABLE);
        return { telemetry: [checkValues(entry, `${hook}'s result`)], attributes: [] };
      }
      if (!Array.isArray(entry)) return this.unreadable(device, hook);
      const [p, a, h] = entry as unknown[];
      if (p === null || p === false) return this.failed(slot, hook, entry, p === false);
      if (!Array.isArray(p) || !Array.isArray(a) || nestsDeeper(entry, MAX_JSON_DEPTH + 2))
        return this.unreadable(device, hook);
      const telemetry = p.map((v) => checkValues(v, `${hook}'s result`));
      const attributes = a.map((v) => checkValues(v, 'ctx.publishAttributes()'));
      if (h !== true) return null;
      return { telemetry, attributes, ...(entry.length > 3 ? { reply: entry[3] } : {}) };
    } catch (err) {
      this.onError({ device, hook, line: null, message: (err as Error).message, stopped: false });
      return null;
    }
  }

  /** What a device threw (it skips the call), or a result of its too large (it is stopped). */
  private failed(slot: DeviceSlot, hook: ScriptHook, entry: unknown[], stop: boolean): null {
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const [, x, n, t] = entry;
    const message =
      n === undefined && t === undefined
        ? (str(x) ?? 'The script failed')
        : describeThrown({ name: str(n), message: str(x) ?? 'The script failed', stack: str(t) });
    this.onError({ device: slot.info.name, hook, line: lineOf(message), message, stopped: stop });
    if (stop) this.stop(slot);
    return null;
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
      let res: { r: Entry[]; fresh: Set<number> } | null;
      try {
        const send = () => this.collect(script, this.message(hook, [slot], now, elapsedMs, extra), hook, 1);
        res = await send();
        // the sandbox no longer held the device (its worker was replaced): the call runs again with its init
        if (res?.r[0] === 0) {
          slot.residence = 'unsure';
          res = await send();
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
      const lost: DeviceSlot[] = [];
      const out = res
        ? this.settle(slot, res.r[0], res.fresh.has(0), hook, lost)
        : this.unreadable(device, hook);
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
}
