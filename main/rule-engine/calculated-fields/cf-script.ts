import { ScriptCompileError } from '../script/script-compile-error.ts';
import { compileProgram } from '../script/script-program.ts';
import { tokenize } from '../script/tbel-lexer.ts';
import { translateTbel } from '../script/tbel-translator.ts';
import { arithmeticScriptOf, type ArithmeticScript } from './cf-arithmetic.ts';
import { MAX_JSON_DEPTH } from '../../../shared/limits.ts';
import {
  JsonText,
  nestsDeeper,
  NumbersResult,
  ScriptError,
  type SandboxScript,
  type ScriptSandbox,
} from '../script/script-sandbox.ts';

/** The three parameters a calculated field's script is compiled with: ctx, the argument values, unused. */
const ARG_NAMES = ['ctx', '__cfArgs', '__cfUnused'] as const;

/**
 * A SCRIPT field's TBEL as ThingsBoard runs it: the body of `calculate(ctx, arg1, arg2, ...)`, each argument
 * bound to its value (a rolling one to {timeWindow, values}), ctx.args to the entries ({ts, value}) and
 * ctx.latestTs. Runs in the rule engine's QuickJS sandbox with its limits.
 */
export function compileCfScript(source: string, argNames: string[]): string {
  return compileProgram('TBEL', withPrelude(source, argNames), ARG_NAMES);
}

/** The script with its arguments bound: `var <arg> = __cfArgs.<arg>;` each, then the user's lines. */
const withPrelude = (source: string, argNames: readonly string[]) =>
  `${argNames.map((n) => `var ${n} = __cfArgs.${n};`).join(' ')}\n${source}`;

/** The script's body as the sandbox runs it (translated TBEL); throws ScriptCompileError. */
const translateCfScript = (source: string, argNames: readonly string[]) =>
  translateTbel(withPrelude(source, argNames), ARG_NAMES);

/** The script as arithmetic computed without the sandbox (cf-arithmetic.ts), or null when it is more. */
export function arithmeticOfCfScript(source: string, argNames: readonly string[]): ArithmeticScript | null {
  try {
    return arithmeticScriptOf(translateCfScript(source, argNames), argNames);
  } catch {
    return null;
  }
}

/** null, or why the script does not compile (line numbers are the user's). */
export function checkCfScript(source: string, argNames: string[]): string | null {
  try {
    compileCfScript(source, argNames);
    return null;
  } catch (err) {
    if (err instanceof ScriptCompileError)
      return `Failed to compile script: ${err.message.replace(/line (\d+)/, (_, n: string) => `line ${Number(n) - 1}`)}`;
    throw err;
  }
}

/** Whether an expression is TBEL (statements, comparisons, strings) rather than a formula. */
export const looksLikeScript = (expr: string): boolean => /\breturn\b|[;{}=<>!&|"'[\]]/.test(expr);

export class CfScript {
  private readonly sandbox: ScriptSandbox;
  private readonly handle: SandboxScript;

  constructor(sandbox: ScriptSandbox, source: string, argNames: string[]) {
    this.sandbox = sandbox;
    this.handle = sandbox.load('TBEL', compileCfScript(source, argNames));
  }

  run(ctx: unknown, args: Record<string, unknown>): Promise<unknown> {
    return this.sandbox.invoke(this.handle, ctx, args as Record<string, string>, 'CF');
  }

  release(): void {
    this.sandbox.release(this.handle);
  }
}

/**
 * Calls one batch takes at most: the batch shares one time limit and one argument size limit. A batch that
 * hits the time limit halves the calls the next ones take (down to one), a batch that ran in time doubles
 * them again (up to the most).
 */
const MAX_BATCH_CALLS = 1024;
const FIRST_BATCH_CALLS = 64;
const MAX_BATCH_CHARS = 60_000;
/** doubles a batch's results may write (the rest go as JSON) */
const BATCH_NUMBERS = 8192;

/** A field's outcome in runMany: its result, or why it failed. */
export type ScriptOutcome = { ok: true; value: unknown } | { ok: false; error: Error };

interface BatchCall {
  resolve(v: unknown): void;
  reject(e: Error): void;
}

/**
 * The calls of a batch with the same input: fields whose arguments are all single values (numbers, strings,
 * booleans), sent once as names, ts, values and latestTs ({"n","t","v","l"}); the sandbox builds each
 * field's ctx and arguments afresh from them. Any other call is a group of its own, its ctx and arguments
 * sent as they are ({"c","a"}).
 */
interface BatchGroup {
  /** the group's input as JSON, without its field list */
  json: string;
  fields: number[];
  calls: BatchCall[];
}

const isPrimitive = (v: unknown) => typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean';

/** The compact input of a call whose ctx.args are exactly its single-valued arguments, else null. */
function compactInput(ctx: unknown, args: Record<string, unknown>): string | null {
  const c = ctx as { args?: Record<string, { ts?: unknown; value?: unknown }>; latestTs?: unknown } | null;
  if (!c || typeof c !== 'object' || !c.args || typeof c.latestTs !== 'number') return null;
  const names = Object.keys(args);
  if (Object.keys(c.args).length !== names.length) return null;
  const ts: number[] = [];
  const values: unknown[] = [];
  for (const n of names) {
    const e = c.args[n];
    const v = args[n];
    if (!e || typeof e.ts !== 'number' || e.value !== v || !isPrimitive(v)) return null;
    ts.push(e.ts);
    values.push(v);
  }
  return `"n":${JSON.stringify(names)},"t":${JSON.stringify(ts)},"v":${JSON.stringify(values)},"l":${c.latestTs}`;
}

/**
 * How often each identifier occurs in a translated script (property names included: it only over-counts),
 * or null when its text cannot be read so (it may then name anything).
 */
function namesIn(body: string): Map<string, number> | null {
  const names = new Map<string, number>();
  try {
    for (const t of tokenize(body)) if (t.kind === 'ident') names.set(t.text, (names.get(t.text) ?? 0) + 1);
  } catch {
    return null;
  }
  return names;
}

/** A call's answer in a batch's text: its value (v) or error (e), or a shape (s) whose values are doubles. */
interface BatchAnswer {
  v?: unknown;
  e?: unknown;
  s?: unknown;
}

/**
 * A batch's answers as the program wrote them ({"r": answers, "s": shapes} and the doubles), each checked:
 * null when the text, a shape or the count of doubles does not fit (nothing of the sandbox is trusted).
 * A shape's answer becomes the object JSON would have given: NaN and infinities null, -0 as 0.
 */
function readBatch(out: unknown, calls: number): (BatchAnswer | null)[] | null {
  const text = out instanceof NumbersResult ? out.text : out;
  const numbers = out instanceof NumbersResult ? out.numbers : new Float64Array(0);
  if (typeof text !== 'string') return null;
  let parsed: { r?: unknown; s?: unknown };
  try {
    parsed = JSON.parse(text) as { r?: unknown; s?: unknown };
  } catch {
    return null;
  }
  const list = parsed?.r;
  const shapes = parsed?.s;
  if (!Array.isArray(list) || !Array.isArray(shapes) || list.length !== calls) return null;
  const checked: (string[] | undefined)[] = [];
  let at = 0;
  const answers = (list as (BatchAnswer | null)[]).map((r) => {
    if (!r || typeof r !== 'object') return null;
    if (r.s === undefined) return r;
    const i = r.s as number;
    let keys = checked[i];
    if (keys === undefined && Number.isInteger(i) && i >= 0 && i < shapes.length) {
      const k = shapes[i] as unknown;
      if (Array.isArray(k) && k.every((x) => typeof x === 'string' && x !== '__proto__'))
        keys = k as string[];
      checked[i] = keys;
    }
    if (!keys || at + keys.length > numbers.length) return null;
    const v: Record<string, number | null> = {};
    for (const key of keys) {
      const n = numbers[at++]!;
      v[key] = Number.isFinite(n) ? n + 0 : null;
    }
    return { v };
  });
  return at === numbers.length ? answers : null;
}

/**
 * The SCRIPT fields of one entity or profile as one sandbox program: the calls of a turn of the event loop
 * (every field, every entity) go to the sandbox together, each script in its own function with its own
 * error. One round trip instead of one per field and entity; a script that runs away fails its batch. The
 * fields of an entity reading the same values get them once, and each result is written as JSON by the
 * program (with the JSON.stringify it kept before any script ran) into one text, read and checked here.
 */
export class CfScriptBatch {
  private readonly sandbox: ScriptSandbox;
  private readonly handle: SandboxScript;
  private groups: BatchGroup[] = [];
  private byInput = new Map<string, BatchGroup>();
  private pendingCalls = 0;
  /** the last call's ctx, arguments and compact input: a group's fields are called with the same objects */
  private last: { ctx: unknown; args: unknown; compact: string | null } | null = null;
  private pendingChars = 0;
  private scheduled = false;
  /** batches sent and not answered: while one is, calls gather for the next (one round trip for many) */
  private inFlight = 0;
  private maxCalls = FIRST_BATCH_CALLS;

  constructor(sandbox: ScriptSandbox, scripts: { source: string; argNames: string[] }[]) {
    this.sandbox = sandbox;
    const bodies = scripts.map(({ source, argNames }) => translateCfScript(source, argNames));
    const fns = bodies.map((body) => `function (${ARG_NAMES.join(', ')}) {\n${body}\n}`);
    // What a script does not name it cannot reach: a call of a script that never names ctx gets none built,
    // and when no script names __cfArgs beyond its prelude, a group's calls share one arguments object.
    const named = bodies.map(namesIn);
    const needsCtx = named.map((n) => !n || n.has('ctx'));
    const ownArgs = named.some((n, i) => !n || (n.get('__cfArgs') ?? 0) > scripts[i]!.argNames.length);
    const body = [
      'var __cfOut = "";',
      'var __cfShapes = [];',
      'var __cfShapeOut = "";',
      'var __cfShapeCount = 0;',
      'var __n = 0;',
      'if (__cfF === null || __cfFBuf !== __cfNums) { __cfF = new __cfF64(__cfNums); __cfFBuf = __cfNums; }',
      // a plain object of numbers: its values go as doubles, its keys once per field and batch ({"s": shape})
      'function __cfPack(__f, __r) {',
      '  if (typeof __r !== "object" || __r === null || __cfIsArray(__r)) return null;',
      '  if (__cfProto(__r) !== __cfObjProto || __r.toJSON !== undefined) return null;',
      '  var __ks = __cfKeys(__r);',
      `  if (__n + __ks.length > ${BATCH_NUMBERS}) return null;`,
      '  var __sh = __cfShapes[__f];',
      '  var __same = __sh !== undefined && __sh.k.length === __ks.length;',
      '  for (var __m = 0; __m < __ks.length; __m++) {',
      '    var __k = __ks[__m];',
      '    var __v = __r[__k];',
      '    if (typeof __v !== "number" || __k === "__proto__") return null;',
      '    __cfF[__n + __m] = __v;',
      '    if (__same && __sh.k[__m] !== __k) __same = false;',
      '  }',
      '  if (!__same) {',
      '    __sh = { k: __ks, t: \'{"s":\' + __cfShapeCount + "}" };',
      '    __cfShapes[__f] = __sh;',
      '    __cfShapeOut += (__cfShapeCount ? "," : "") + __cfQuote(__ks);',
      '    __cfShapeCount++;',
      '  }',
      '  __n += __ks.length;',
      '  return __sh.t;',
      '}',
      'var __cfGs = __cfBatch.g;',
      'for (var __i = 0; __i < __cfGs.length; __i++) {',
      '  var __g = __cfGs[__i];',
      '  var __shared = null;',
      '  for (var __j = 0; __j < __g.f.length; __j++) {',
      '    var __s;',
      '    try {',
      '      var __fi = __g.f[__j];',
      '      var __x = __g.c, __a = __g.a;',
      '      if (__g.n) {',
      `        __a = ${ownArgs ? 'null' : '__shared'};`,
      '        if (__a === null) {',
      '          __a = {};',
      '          for (var __k = 0; __k < __g.n.length; __k++) __a[__g.n[__k]] = __g.v[__k];',
      '          __shared = __a;',
      '        }',
      '        __x = null;',
      '        if (__cfCtx[__fi]) {',
      '          var __e = {};',
      '          for (var __q = 0; __q < __g.n.length; __q++)',
      '            __e[__g.n[__q]] = { ts: __g.t[__q], value: __g.v[__q] };',
      '          __x = { args: __e, latestTs: __g.l };',
      '        }',
      '      }',
      '      var __res = __cfFns[__fi](__x, __a, null);',
      '      __s = __cfPack(__fi, __res);',
      '      if (__s === null) __s = __cfQuote({ v: __res });',
      '    } catch (__err) {',
      '      try { __s = __cfQuote({ e: __cfText(__err && __err.message ? __err.message : __err) }); }',
      '      catch (__e2) { __s = \'{"e":"The script threw a value that cannot be read"}\'; }',
      '    }',
      '    __cfOut += (__cfOut ? "," : "") + (typeof __s === "string" ? __s : "{}");',
      '  }',
      '}',
      'return [\'{"r":[\' + __cfOut + \'],"s":[\' + __cfShapeOut + "]}", __n];',
    ].join('\n');
    const program =
      '(function () {\nvar __cfQuote = JSON.stringify; var __cfText = String; var __cfIsArray = Array.isArray;\n' +
      'var __cfKeys = Object.keys; var __cfProto = Object.getPrototypeOf; var __cfObjProto = Object.prototype;\n' +
      'var __cfF64 = Float64Array; var __cfF = null; var __cfFBuf = null;\n' +
      `var __cfFns = [${fns.join(',\n')}];\n` +
      `var __cfCtx = ${JSON.stringify(needsCtx)};\n` +
      `function __fn(__cfBatch, __cfMeta, __cfType, __cfNums) {\n${body}\n}\nreturn __fn;\n})()`;
    this.handle = sandbox.load('TBEL', program, { numbers: BATCH_NUMBERS });
  }

  run(field: number, ctx: unknown, args: Record<string, unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => this.add(field, ctx, args, { resolve, reject }));
  }

  /**
   * Several fields on the same ctx and arguments (an entity's fields of one state): one promise for all,
   * each field's outcome in its place.
   */
  runMany(fields: number[], ctx: unknown, args: Record<string, unknown>): Promise<ScriptOutcome[]> {
    return new Promise((resolve) => {
      const out: ScriptOutcome[] = new Array<ScriptOutcome>(fields.length);
      let left = fields.length;
      const settle = (k: number, o: ScriptOutcome) => {
        out[k] = o;
        if (--left === 0) resolve(out);
      };
      fields.forEach((f, k) =>
        this.add(f, ctx, args, {
          resolve: (value) => settle(k, { ok: true, value }),
          reject: (error) => settle(k, { ok: false, error }),
        }),
      );
    });
  }

  private add(field: number, ctx: unknown, args: Record<string, unknown>, call: BatchCall): void {
    const last = this.last;
    const compact = last && last.ctx === ctx && last.args === args ? last.compact : compactInput(ctx, args);
    this.last = { ctx, args, compact };
    let group = compact === null ? undefined : this.byInput.get(compact);
    const json = group ? '' : (compact ?? `"c":${JSON.stringify(ctx)},"a":${JSON.stringify(args)}`);
    const chars = group ? 4 : json.length + 16;
    if (this.pendingChars + chars > MAX_BATCH_CHARS || this.pendingCalls >= this.maxCalls) {
      this.flush();
      if (group) {
        this.add(field, ctx, args, call);
        return;
      }
    }
    if (!group) {
      group = { json, fields: [], calls: [] };
      this.groups.push(group);
      if (compact !== null) this.byInput.set(compact, group);
    }
    group.fields.push(field);
    group.calls.push(call);
    this.pendingCalls++;
    this.pendingChars += chars;
    this.flushSoon();
  }

  /** At the end of this turn, unless a batch is out: its answer sends what gathered meanwhile. */
  private flushSoon(): void {
    if (this.scheduled || this.inFlight > 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.inFlight === 0) this.flush();
    });
  }

  private flush(): void {
    const groups = this.groups;
    if (groups.length === 0) return;
    this.groups = [];
    this.byInput = new Map();
    this.last = null;
    this.pendingCalls = 0;
    this.pendingChars = 0;
    const calls = groups.flatMap((g) => g.calls);
    const data = new JsonText(
      `{"g":[${groups.map((g) => `{"f":${JSON.stringify(g.fields)},${g.json}}`).join(',')}]}`,
    );
    const sent = calls.length;
    this.inFlight++;
    const answered = () => {
      this.inFlight--;
      if (this.groups.length > 0) this.flushSoon();
    };
    this.sandbox.invoke(this.handle, data, {}, 'CF').then(
      (out) => {
        if (sent >= this.maxCalls) this.maxCalls = Math.min(MAX_BATCH_CALLS, this.maxCalls * 2);
        const results = readBatch(out, calls.length);
        calls.forEach((c, i) => {
          const r = results?.[i];
          if (!r) c.reject(new Error('The script batch returned no result'));
          else if (r.e !== undefined) c.reject(new Error(String(r.e)));
          else if (nestsDeeper(r.v, MAX_JSON_DEPTH))
            c.reject(new Error('Script result is nested too deeply'));
          else c.resolve(r.v);
        });
        answered();
      },
      (err: Error) => {
        if (err instanceof ScriptError && err.reason === 'timeout')
          this.maxCalls = Math.max(1, Math.floor(sent / 2));
        for (const c of calls) c.reject(err);
        answered();
      },
    );
  }

  /** Starts the sandbox and loads the program with an empty batch (no script runs). */
  warm(): void {
    this.sandbox.invoke(this.handle, new JsonText('{"g":[]}'), {}, 'CF').catch(() => {});
  }

  release(): void {
    this.sandbox.release(this.handle);
  }
}
