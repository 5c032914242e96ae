import { tokenize, type Token } from '../script/tbel-lexer.ts';

/** A compiled arithmetic expression over the arguments, by their index. */
type Expr = (args: readonly number[]) => number;

/**
 * The most output keys and operators (numbers, names, operations) computed here: a result far below the
 * sandbox's size limit, an evaluation far from any stack limit. Larger scripts go to the sandbox.
 */
const MAX_KEYS = 64;
const MAX_NODES = 512;

/**
 * A SCRIPT field whose translated program is only `return {key: arithmetic, ...};` over its arguments:
 * numbers, the arguments, unary and binary + - * / % and parentheses. With every argument a finite number,
 * the sandbox can do nothing but JavaScript's double arithmetic on them (no call, no loop, no allocation
 * that grows, nothing that throws), so its result is computed here, as the sandbox would write it: keys in
 * the script's order, NaN and infinities as null, -0 as 0. Any other value goes to the sandbox.
 */
export class ArithmeticScript {
  private readonly argNames: readonly string[];
  private readonly keys: string[];
  private readonly exprs: Expr[];

  constructor(argNames: readonly string[], keys: string[], exprs: Expr[]) {
    this.argNames = argNames;
    this.keys = keys;
    this.exprs = exprs;
  }

  /**
   * The result for the arguments' values (each as the field's state holds it), or null when one is not a
   * finite number (the sandbox computes that call).
   */
  evaluate(values: (name: string) => unknown): Record<string, number | null> | null {
    const args: number[] = [];
    for (const n of this.argNames) {
      const v = values(n);
      if (!isScriptNumber(v)) return null;
      // the sandbox gets its arguments as JSON: -0 arrives as 0
      args.push(v + 0);
    }
    const out: Record<string, number | null> = {};
    this.resultInto(args, out);
    return out;
  }

  /**
   * Writes the result's keys, in the script's order, into `out` (which may hold other fields' results): for
   * arguments in the order of the field's argument names, each one a finite number with -0 made 0.
   */
  resultInto(args: readonly number[], out: Record<string, unknown>): void {
    for (let i = 0; i < this.keys.length; i++) {
      const r = this.exprs[i]!(args);
      out[this.keys[i]!] = Number.isFinite(r) ? r + 0 : null;
    }
  }
}

/** Whether an argument's value is one an arithmetic script computes without the sandbox. */
export const isScriptNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * The arithmetic of a translated script body (the `var <arg> = __cfArgs.<arg>;` prelude, then the user's
 * script as translated), or null when it is anything more.
 */
export function arithmeticScriptOf(translated: string, argNames: readonly string[]): ArithmeticScript | null {
  let tokens: Token[];
  try {
    tokens = tokenize(translated);
  } catch {
    return null;
  }
  return new Parser(tokens, argNames).script();
}

class Parser {
  private readonly tokens: Token[];
  private readonly argNames: readonly string[];
  private pos = 0;
  private nodes = 0;

  constructor(tokens: Token[], argNames: readonly string[]) {
    this.tokens = tokens;
    this.argNames = argNames;
  }

  script(): ArithmeticScript | null {
    for (const n of this.argNames) if (!this.seq(['var', n, '=', '__cfArgs', '.', n, ';'])) return null;
    if (!this.take('return') || !this.take('{')) return null;
    const keys: string[] = [];
    const exprs: Expr[] = [];
    do {
      const k = this.tokens[this.pos++]!;
      const key = k.kind === 'string' ? k.value! : k.kind === 'ident' ? k.text : null;
      // keys JavaScript would reorder (array indices) or treat otherwise (__proto__) go to the sandbox
      if (key === null || /^\d+$/.test(key) || key === '__proto__' || keys.includes(key)) return null;
      if (keys.length >= MAX_KEYS || !this.take(':')) return null;
      const e = this.additive();
      if (!e) return null;
      keys.push(key);
      exprs.push(e);
    } while (this.take(','));
    if (!this.take('}')) return null;
    this.take(';');
    if (this.tokens[this.pos]?.kind !== 'eof') return null;
    return new ArithmeticScript(this.argNames, keys, exprs);
  }

  private take(text: string): boolean {
    const t = this.tokens[this.pos]!;
    if ((t.kind !== 'punct' && t.kind !== 'ident') || t.text !== text) return false;
    this.pos++;
    return true;
  }

  private seq(texts: string[]): boolean {
    return texts.every((t) => this.take(t));
  }

  private additive(): Expr | null {
    let left = this.multiplicative();
    while (left) {
      const op = this.take('+') ? '+' : this.take('-') ? '-' : null;
      if (!op) return left;
      const right = this.multiplicative();
      if (!right) return null;
      const l: Expr = left;
      left = op === '+' ? (a) => l(a) + right(a) : (a) => l(a) - right(a);
    }
    return null;
  }

  private multiplicative(): Expr | null {
    let left = this.unary();
    while (left) {
      const op = this.take('*') ? '*' : this.take('/') ? '/' : this.take('%') ? '%' : null;
      if (!op) return left;
      const right = this.unary();
      if (!right) return null;
      const l: Expr = left;
      left =
        op === '*' ? (a) => l(a) * right(a) : op === '/' ? (a) => l(a) / right(a) : (a) => l(a) % right(a);
    }
    return null;
  }

  private unary(): Expr | null {
    if (++this.nodes > MAX_NODES) return null;
    if (this.take('-')) {
      const e = this.unary();
      return e && ((a) => -e(a));
    }
    if (this.take('+')) return this.unary();
    return this.primary();
  }

  private primary(): Expr | null {
    const t = this.tokens[this.pos]!;
    if (t.kind === 'number') {
      this.pos++;
      const v = Number(t.text);
      return Number.isNaN(v) ? null : () => v;
    }
    if (t.kind === 'ident') {
      const i = this.argNames.indexOf(t.text);
      if (i < 0) return null;
      this.pos++;
      return (a) => a[i]!;
    }
    if (!this.take('(')) return null;
    const e = this.additive();
    return e && this.take(')') ? e : null;
  }
}
