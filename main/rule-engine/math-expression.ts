/**
 * The formula language of ThingsBoard's math node (CUSTOM), written after exp4j: + - * / % ^, unary signs,
 * implicit multiplication (2x, 3(x + 1)), the constants pi, π, e and φ, and exp4j's functions plus
 * ThingsBoard's ln, lg and logab. Parsed once into a tree; no eval.
 */

type Node = (vars: Record<string, number>) => number;

export class MathExpressionError extends Error {}

const FUNCTIONS: Record<string, [number, (...a: number[]) => number]> = {
  ln: [1, Math.log],
  lg: [1, Math.log10],
  logab: [2, (a, b) => Math.log(b) / Math.log(a)],
  sin: [1, Math.sin],
  cos: [1, Math.cos],
  tan: [1, Math.tan],
  cot: [1, (x) => 1 / Math.tan(x)],
  log: [1, Math.log],
  log2: [1, Math.log2],
  log10: [1, Math.log10],
  log1p: [1, Math.log1p],
  abs: [1, Math.abs],
  acos: [1, Math.acos],
  asin: [1, Math.asin],
  atan: [1, Math.atan],
  cbrt: [1, Math.cbrt],
  floor: [1, Math.floor],
  sinh: [1, Math.sinh],
  sqrt: [1, Math.sqrt],
  tanh: [1, Math.tanh],
  cosh: [1, Math.cosh],
  ceil: [1, Math.ceil],
  pow: [2, Math.pow],
  exp: [1, Math.exp],
  expm1: [1, Math.expm1],
  signum: [1, Math.sign],
};

const CONSTANTS: Record<string, number> = { pi: Math.PI, π: Math.PI, e: Math.E, φ: 1.61803398874 };

type Token =
  | { t: 'num'; v: number; pos: number }
  | { t: 'id'; v: string; pos: number }
  | { t: 'op'; v: string; pos: number };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(src.slice(i));
    if (num) {
      out.push({ t: 'num', v: Number(num[0]), pos: i });
      i += num[0].length;
      continue;
    }
    const id = /^[\p{L}_][\p{L}\p{N}_]*/u.exec(src.slice(i));
    if (id) {
      out.push({ t: 'id', v: id[0], pos: i });
      i += id[0].length;
      continue;
    }
    if ('+-*/%^(),'.includes(c)) {
      out.push({ t: 'op', v: c, pos: i });
      i++;
      continue;
    }
    throw new MathExpressionError(`Unknown character '${c}' at position ${i} of '${src}'`);
  }
  return out;
}

const BINARY: Record<string, [number, (a: number, b: number) => number]> = {
  '+': [500, (a, b) => a + b],
  '-': [500, (a, b) => a - b],
  '*': [1000, (a, b) => a * b],
  '/': [
    1000,
    (a, b) => {
      if (b === 0) throw new MathExpressionError('Division by zero!');
      return a / b;
    },
  ],
  '%': [
    1000,
    (a, b) => {
      if (b === 0) throw new MathExpressionError('Division by zero!');
      return a % b;
    },
  ],
};

class Parser {
  private i = 0;
  private readonly tokens: Token[];
  private readonly src: string;
  private readonly variables: Set<string>;
  constructor(tokens: Token[], src: string, variables: Set<string>) {
    this.tokens = tokens;
    this.src = src;
    this.variables = variables;
  }

  parse(): Node {
    if (this.tokens.length === 0) throw new MathExpressionError('The formula is empty');
    const node = this.expr(0);
    const rest = this.tokens[this.i];
    if (rest)
      throw new MathExpressionError(
        `Unexpected '${String(rest.v)}' at position ${rest.pos} of '${this.src}'`,
      );
    return node;
  }

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }

  private startsOperand(tok: Token | undefined): boolean {
    return !!tok && (tok.t === 'num' || tok.t === 'id' || (tok.t === 'op' && tok.v === '('));
  }

  private expr(minPrec: number): Node {
    let left = this.unary();
    for (;;) {
      const tok = this.peek();
      let op: string;
      if (tok?.t === 'op' && BINARY[tok.v]) op = tok.v;
      else if (this.startsOperand(tok)) op = '*';
      else break;
      const [prec, fn] = BINARY[op]!;
      if (prec < minPrec) break;
      if (tok!.t === 'op' && tok!.v === op) this.i++;
      const right = this.expr(prec + 1);
      const l = left;
      left = (v) => fn(l(v), right(v));
    }
    return left;
  }

  private unary(): Node {
    const tok = this.peek();
    if (tok?.t === 'op' && (tok.v === '-' || tok.v === '+')) {
      this.i++;
      const operand = this.unary();
      return tok.v === '-' ? (v) => -operand(v) : operand;
    }
    return this.power();
  }

  private power(): Node {
    const base = this.primary();
    const tok = this.peek();
    if (tok?.t === 'op' && tok.v === '^') {
      this.i++;
      const exponent = this.unary();
      return (v) => Math.pow(base(v), exponent(v));
    }
    return base;
  }

  private primary(): Node {
    const tok = this.tokens[this.i++];
    if (!tok) throw new MathExpressionError(`The formula '${this.src}' ends too early`);
    if (tok.t === 'num') {
      const value = tok.v;
      return () => value;
    }
    if (tok.t === 'op' && tok.v === '(') {
      const inner = this.expr(0);
      this.expect(')');
      return inner;
    }
    if (tok.t === 'id') {
      const name = tok.v;
      const fn = FUNCTIONS[name];
      if (fn && this.peek()?.t === 'op' && this.peek()!.v === '(') {
        this.i++;
        const args: Node[] = [this.expr(0)];
        while (this.peek()?.t === 'op' && this.peek()!.v === ',') {
          this.i++;
          args.push(this.expr(0));
        }
        this.expect(')');
        if (args.length !== fn[0])
          throw new MathExpressionError(`Function '${name}' takes ${fn[0]} argument(s), got ${args.length}`);
        const f = fn[1];
        return (v) => f(...args.map((a) => a(v)));
      }
      if (this.variables.has(name)) return (v) => v[name] ?? NaN;
      const constant = CONSTANTS[name];
      if (constant !== undefined) return () => constant;
      throw new MathExpressionError(
        `Unknown function or variable '${name}' at pos ${tok.pos} in expression '${this.src}'`,
      );
    }
    throw new MathExpressionError(`Unexpected '${tok.v}' at position ${tok.pos} of '${this.src}'`);
  }

  private expect(op: string): void {
    const tok = this.tokens[this.i++];
    if (!tok || tok.t !== 'op' || tok.v !== op)
      throw new MathExpressionError(
        `Expected '${op}' ${tok ? `at position ${tok.pos}` : 'at the end'} of '${this.src}'`,
      );
  }
}

export interface MathExpression {
  evaluate(vars: Record<string, number>): number;
}

/** Parses a formula over the given variable names; throws MathExpressionError naming what is wrong. */
export function compileMathExpression(src: string, variables: Iterable<string>): MathExpression {
  const root = new Parser(tokenize(src), src, new Set(variables)).parse();
  return { evaluate: (vars) => root(vars) };
}
