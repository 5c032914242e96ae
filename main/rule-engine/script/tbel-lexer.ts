import { ScriptCompileError } from './script-compile-error.ts';

export type TokenKind = 'ident' | 'number' | 'string' | 'punct' | 'eof';

export interface Token {
  kind: TokenKind;
  /** identifier name, punctuator text, or the JavaScript source of a literal */
  text: string;
  line: number;
  /** for strings: the decoded value */
  value?: string;
}

/** Longest first, so that `>>>=` is not read as `>>` `>=`. */
const PUNCTUATORS = [
  '>>>=',
  '===',
  '!==',
  '>>>',
  '<<=',
  '>>=',
  '...',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '<<',
  '>>',
  '->',
  '=>',
  '?.',
  '.?',
  '**',
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  ';',
  ',',
  '.',
  ':',
  '?',
  '+',
  '-',
  '*',
  '/',
  '%',
  '=',
  '<',
  '>',
  '!',
  '~',
  '&',
  '|',
  '^',
];

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };

/** Splits TBEL source into tokens; refuses what TBEL cannot contain (template strings, BigDecimal literals). */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  const fail = (construct: string, message: string): never => {
    throw new ScriptCompileError(line, construct, message);
  };
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\uFEFF' || c === '\u00A0') {
      i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      if (end < 0) fail('/*', 'unterminated comment');
      for (let k = i; k < end; k++) if (source[k] === '\n') line++;
      i = end + 2;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      let j = i + 1;
      while (j < source.length && /[A-Za-z0-9_$]/.test(source[j]!)) j++;
      tokens.push({ kind: 'ident', text: source.slice(i, j), line });
      i = j;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const m = /^(0[xX][0-9a-fA-F]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)([A-Za-z]?)/.exec(
        source.slice(i),
      )!;
      const [all, digits, suffix] = m as unknown as [string, string, string];
      if (suffix === 'B' || suffix === 'I')
        fail(all, `${suffix === 'B' ? 'BigDecimal' : 'BigInteger'} literals are not supported`);
      if (suffix && !/^[dDfFlL]$/.test(suffix)) fail(all, `'${all}' is not a number`);
      let text = digits;
      if (/^0[0-7]+$/.test(digits)) text = String(parseInt(digits, 8));
      tokens.push({ kind: 'number', text, line });
      i += all.length;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      let value = '';
      while (j < source.length && source[j] !== c) {
        const ch = source[j]!;
        if (ch === '\n') fail(c, 'unterminated string');
        if (ch !== '\\') {
          value += ch;
          j++;
          continue;
        }
        const e = source[j + 1] ?? '';
        if (e in ESCAPES) {
          value += ESCAPES[e];
          j += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(j + 2, j + 6))) {
          value += String.fromCharCode(parseInt(source.slice(j + 2, j + 6), 16));
          j += 6;
        } else if (/[0-7]/.test(e)) {
          const oct = /^[0-7]{1,3}/.exec(source.slice(j + 1))![0];
          value += String.fromCharCode(parseInt(oct, 8));
          j += 1 + oct.length;
        } else {
          value += e;
          j += 2;
        }
      }
      if (j >= source.length) fail(c, 'unterminated string');
      tokens.push({ kind: 'string', text: JSON.stringify(value), value, line });
      i = j + 1;
      continue;
    }
    if (c === '`') fail('`', 'template strings are not TBEL');
    const p = PUNCTUATORS.find((t) => source.startsWith(t, i));
    if (!p) fail(c, `unexpected character '${c}'`);
    tokens.push({ kind: 'punct', text: p!, line });
    i += p!.length;
  }
  tokens.push({ kind: 'eof', text: '', line });
  return tokens;
}
