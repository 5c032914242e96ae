import { ScriptCompileError } from '../script/script-compile-error.ts';
import { compileProgram } from '../script/script-program.ts';
import type { SandboxScript, ScriptSandbox } from '../script/script-sandbox.ts';

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
