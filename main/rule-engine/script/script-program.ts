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
 * wraps rule node scripts (RuleNodeScriptFactory), and a runner taking the calls of one batch as one JSON
 * array of [msg, metadata, msgType] and answering one JSON array (see GroupItem): one crossing into QuickJS
 * per batch instead of several per message. What a call throws stays with that call; running out of memory
 * (and the time limit, which cannot be caught) fails the batch, whose calls are then run one by one.
 */
function wrap(body: string, argNames: readonly string[]): string {
  return (
    `(function () {\nfunction __fn(${argNames.join(', ')}) {\n${body}\n}\n` +
    'return function (s, max) {\n' +
    '  var calls = JSON.parse(s), out = [];\n' +
    '  for (var i = 0; i < calls.length; i++) {\n' +
    '    var c = calls[i], j;\n' +
    '    try {\n' +
    '      var t = JSON.stringify(__fn(c[0], c[1], c[2]));\n' +
    "      j = t === undefined ? '{}' : '{\"v\":' + t + '}';\n" +
    "      if (j.length > max) j = JSON.stringify({ e: 'Script invocation result exceeds maximum allowed size of ' + max + ' symbols', k: 'size' });\n" +
    '    } catch (e) {\n' +
    "      if (e instanceof InternalError && e.message === 'out of memory') throw e;\n" +
    '      j = e instanceof Error ? JSON.stringify({ e: String(e.message), n: e.name, s: e.stack }) : JSON.stringify({ e: String(e) });\n' +
    '    }\n' +
    '    out.push(j);\n' +
    '  }\n' +
    "  return '[' + out.join(',') + ']';\n" +
    '};\n})()'
  );
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
