import { Script } from 'node:vm';
import { ScriptCompileError } from './script-compile-error.ts';
import { PROGRAM_LINE_OFFSET } from './script-protocol.ts';
import { translateTbel } from './tbel-translator.ts';

export type ScriptLang = 'JS' | 'TBEL';

/** ThingsBoard's max_script_body_size. */
export const MAX_SCRIPT_CHARS = 50_000;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The program the sandbox evaluates: the script as a function of (msg, metadata, msgType), as ThingsBoard
 * wraps rule node scripts (RuleNodeScriptFactory). The sandbox's runner (script-runner.js) calls it; nothing
 * here is trusted: a script that closes the function early only runs its own code sooner.
 */
function wrap(body: string, argNames: readonly string[]): string {
  return `(function () {\nfunction __fn(${argNames.join(', ')}) {\n${body}\n}\nreturn __fn;\n})()`;
}

/**
 * Checks a script and builds its program: TBEL is translated (refusing what is not supported), JavaScript
 * is parsed by V8 only to report syntax errors at save time with their line; it is never run here (it runs
 * in QuickJS, in the sandbox). Throws ScriptCompileError.
 */
export function compileProgram(lang: ScriptLang, source: string, argNames: readonly string[]): string {
  if (source.length > MAX_SCRIPT_CHARS)
    throw new ScriptCompileError(1, 'script', `the script is longer than ${MAX_SCRIPT_CHARS} characters`);
  if (argNames.length !== 3 || !argNames.every((n) => IDENTIFIER.test(n)))
    throw new ScriptCompileError(1, argNames.join(', '), 'argNames must be three identifiers');
  if (lang === 'TBEL') return wrap(translateTbel(source, argNames), argNames);
  const program = wrap(source, argNames);
  try {
    new Script(program, { filename: 'script' });
  } catch (err) {
    const m = /^script:(\d+)/.exec((err as Error).stack ?? '');
    const lines = source.split('\n');
    // an unclosed block is reported on the wrapper's closing line: name the script's last line instead
    const line = m ? Math.min(lines.length, Math.max(1, Number(m[1]) - PROGRAM_LINE_OFFSET)) : 1;
    const text = lines[line - 1]?.trim() ?? '';
    throw new ScriptCompileError(line, text.slice(0, 80), (err as Error).message);
  }
  return program;
}
