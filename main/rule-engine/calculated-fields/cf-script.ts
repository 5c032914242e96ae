import { ScriptCompileError } from '../script/script-compile-error.ts';
import { compileProgram } from '../script/script-program.ts';
import { translateTbel } from '../script/tbel-translator.ts';
import { JsonText, type SandboxScript, type ScriptSandbox } from '../script/script-sandbox.ts';

/** The three parameters a calculated field's script is compiled with: ctx, the argument values, unused. */
const ARG_NAMES = ['ctx', '__cfArgs', '__cfUnused'] as const;

/**
 * A SCRIPT field's TBEL as ThingsBoard runs it: the body of `calculate(ctx, arg1, arg2, ...)`, each argument
 * bound to its value (a rolling one to {timeWindow, values}), ctx.args to the entries ({ts, value}) and
 * ctx.latestTs. Runs in the rule engine's QuickJS sandbox with its limits.
 */
export function compileCfScript(source: string, argNames: string[]): string {
  const prelude = argNames.map((n) => `var ${n} = __cfArgs.${n};`).join(' ');
  return compileProgram('TBEL', `${prelude}\n${source}`, ARG_NAMES);
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

/** Calls one batch takes at most: the batch shares one time limit and one argument size limit. */
const MAX_BATCH_CALLS = 64;
const MAX_BATCH_CHARS = 60_000;

interface BatchCall {
  /** the call ({f, ctx, args}) as JSON: serialized once, to measure it and to send it */
  json: string;
  resolve(v: unknown): void;
  reject(e: Error): void;
}

/**
 * The SCRIPT fields of one entity or profile as one sandbox program: the calls of a turn of the event loop
 * (every field, every entity) go to the sandbox together, each script in its own function with its own
 * error. One round trip instead of one per field and entity; a script that runs away fails its batch.
 */
export class CfScriptBatch {
  private readonly sandbox: ScriptSandbox;
  private readonly handle: SandboxScript;
  private pending: BatchCall[] = [];
  private pendingChars = 0;
  private scheduled = false;

  constructor(sandbox: ScriptSandbox, scripts: { source: string; argNames: string[] }[]) {
    this.sandbox = sandbox;
    const fns = scripts.map(({ source, argNames }) => {
      const prelude = argNames.map((n) => `var ${n} = __cfArgs.${n};`).join(' ');
      return `function (${ARG_NAMES.join(', ')}) {\n${translateTbel(`${prelude}\n${source}`, ARG_NAMES)}\n}`;
    });
    const body = [
      `var __cfFns = [${fns.join(',\n')}];`,
      'var __cfOut = [];',
      'for (var __i = 0; __i < __cfBatch.calls.length; __i++) {',
      '  var __c = __cfBatch.calls[__i];',
      '  try { __cfOut.push({ v: __cfFns[__c.f](__c.ctx, __c.args, null) }); }',
      '  catch (__e) { __cfOut.push({ e: String(__e && __e.message ? __e.message : __e) }); }',
      '}',
      'return __cfOut;',
    ].join('\n');
    const program = `(function () {\nfunction __fn(__cfBatch, __cfMeta, __cfType) {\n${body}\n}\nreturn __fn;\n})()`;
    this.handle = sandbox.load('TBEL', program);
  }

  run(field: number, ctx: unknown, args: Record<string, unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const json = JSON.stringify({ f: field, ctx, args });
      const chars = json.length;
      if (this.pendingChars + chars > MAX_BATCH_CHARS || this.pending.length >= MAX_BATCH_CALLS) this.flush();
      this.pending.push({ json, resolve, reject });
      this.pendingChars += chars;
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const calls = this.pending;
    if (calls.length === 0) return;
    this.pending = [];
    this.pendingChars = 0;
    const data = new JsonText(`{"calls":[${calls.map((c) => c.json).join(',')}]}`);
    this.sandbox.invoke(this.handle, data, {}, 'CF').then(
      (out) => {
        const results = Array.isArray(out) ? (out as { v?: unknown; e?: string }[]) : [];
        calls.forEach((c, i) => {
          const r = results[i];
          if (!r) c.reject(new Error('The script batch returned no result'));
          else if (r.e !== undefined) c.reject(new Error(r.e));
          else c.resolve(r.v);
        });
      },
      (err: Error) => {
        for (const c of calls) c.reject(err);
      },
    );
  }

  release(): void {
    this.sandbox.release(this.handle);
  }
}
