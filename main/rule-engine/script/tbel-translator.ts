import { ScriptCompileError } from './script-compile-error.ts';
import { TBEL_CLASSES, TBEL_HELPERS, TBEL_TYPE_NAMES } from './tbel-library.ts';
import { tokenize, type Token } from './tbel-lexer.ts';

/** Words that are not TBEL (or not supported here), refused where they would start a statement or operand. */
const REFUSED: Record<string, string> = {
  switch: 'switch statements are not TBEL (use if / else if)',
  case: 'switch statements are not TBEL',
  try: 'try / catch is not TBEL',
  catch: 'try / catch is not TBEL',
  finally: 'try / catch is not TBEL',
  throw: 'throw is not TBEL (use raiseError(message))',
  class: 'classes are not TBEL',
  import: 'imports are not allowed',
  export: 'exports are not TBEL',
  const: 'const is not TBEL (use var)',
  let: 'let is not TBEL (use var)',
  with: 'with is not TBEL',
  async: 'async code is not TBEL',
  await: 'async code is not TBEL',
  yield: 'generators are not TBEL',
  this: "'this' is not TBEL",
  super: "'super' is not TBEL",
  typeof: 'typeof is not TBEL',
  delete: 'delete is not TBEL (use map.remove(key))',
  void: 'void is not TBEL',
  instanceof: 'instanceof is not supported',
  in: "the 'in' operator is not supported",
  is: "the 'is' operator is not supported",
  assert: 'assert is not supported',
  package: 'packages are not allowed',
  interface: 'interfaces are not TBEL',
  enum: 'enums are not TBEL',
  goto: 'goto is not TBEL',
  synchronized: 'synchronized is not TBEL',
  isdef: 'isdef is not supported',
  empty: "the 'empty' literal is not supported (use isEmpty())",
};

/** JavaScript-only operators a TBEL script cannot contain. */
const REFUSED_PUNCT: Record<string, string> = {
  '===': "'===' is JavaScript; TBEL compares with ==",
  '!==': "'!==' is JavaScript; TBEL compares with !=",
  '=>': 'arrow functions are not TBEL',
  '->': 'lambdas are not supported',
  '?.': "'?.' is JavaScript; TBEL's null-safe access is '.?'",
  '**': "'**' is not TBEL (use Math.pow)",
  '...': 'spread is not TBEL',
};

/** Names that are fine in TBEL but reserved or special in JavaScript: renamed in the output. */
const JS_RESERVED = new Set([
  'arguments',
  'eval',
  'static',
  'implements',
  'private',
  'protected',
  'public',
  'debugger',
  'default',
  'extends',
  'globalThis',
  'undefined',
  'NaN',
  'Infinity',
  'Object',
  'Array',
  'Function',
  'Reflect',
  'Proxy',
  'Symbol',
  'Promise',
  'Error',
  'RegExp',
  'Number',
]);

const STATEMENT_KEYWORDS = new Set([
  'if',
  'else',
  'for',
  'foreach',
  'while',
  'until',
  'do',
  'return',
  'break',
  'continue',
  'function',
  'def',
  'var',
  'new',
  'true',
  'false',
  'null',
  'nil',
]);

const ASSIGN = new Set(['=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>=', '>>>=']);
const BINARY_LEVELS: string[][] = [
  ['||'],
  ['&&'],
  ['|'],
  ['^'],
  ['&'],
  ['==', '!='],
  ['<', '>', '<=', '>='],
  ['<<', '>>', '>>>'],
  ['+', '-'],
  ['*', '/', '%'],
];

/**
 * Translates a TBEL script (ThingsBoard's MVEL dialect) into the body of a JavaScript function that runs in
 * the sandbox with the TBEL runtime library (tbel-runtime.ts) loaded. Line N of the output is line N of
 * the script, so runtime errors name the user's line. Anything outside the supported subset throws a
 * ScriptCompileError naming the line and the construct.
 */
export function translateTbel(source: string, argNames: readonly string[]): string {
  return new Translator(tokenize(source), argNames).program();
}

class Translator {
  private readonly tokens: Token[];
  private pos = 0;
  private readonly out: string[] = [];
  private outLine = 1;
  private readonly known: Set<string>;
  private readonly implicit = new Set<string>();

  constructor(tokens: Token[], argNames: readonly string[]) {
    this.tokens = tokens;
    this.known = new Set([...argNames, ...this.declaredNames()]);
  }

  program(): string {
    while (this.peek().kind !== 'eof') this.statement(true);
    const text = this.out.join('');
    // Names assigned without `var` are variables of the script in MVEL; keep them local to one invocation.
    const implicit = [...this.implicit].filter((n) => !this.declared.has(n));
    return implicit.length ? `var ${implicit.map((n) => this.name(n)).join(', ')};${text}` : text;
  }

  // --- names -------------------------------------------------------------------------------------------

  private readonly declared = new Set<string>();

  /** Every name the script declares (var, typed declarations, functions, parameters, foreach variables). */
  private declaredNames(): Set<string> {
    const t = this.tokens;
    for (let i = 0; i < t.length - 1; i++) {
      const a = t[i]!;
      const b = t[i + 1]!;
      if (a.kind !== 'ident' || b.kind !== 'ident') continue;
      if (a.text === 'function' || a.text === 'def' || TBEL_TYPE_NAMES.has(a.text)) {
        this.declared.add(b.text);
        if ((a.text === 'function' || a.text === 'def') && t[i + 2]?.text === '(') {
          for (let k = i + 3; k < t.length && t[k]!.text !== ')'; k++)
            if (t[k]!.kind === 'ident' && (t[k + 1]?.text === ',' || t[k + 1]?.text === ')'))
              this.declared.add(t[k]!.text);
        }
      }
    }
    for (let i = 0; i < t.length - 2; i++) {
      if ((t[i]!.text === 'foreach' || t[i]!.text === 'for') && t[i + 1]!.text === '(') {
        const first = t[i + 2]!;
        const v = t[i + 3]?.text === ':' ? first : t[i + 4]?.text === ':' ? t[i + 3]! : null;
        if (v?.kind === 'ident') this.declared.add(v.text);
      }
    }
    return this.declared;
  }

  private name(n: string): string {
    return JS_RESERVED.has(n) ? `$_${n}` : n;
  }

  // --- tokens ------------------------------------------------------------------------------------------

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.pos++;
    return t;
  }

  private is(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return (t.kind === 'punct' || t.kind === 'ident') && t.text === text;
  }

  private accept(text: string): boolean {
    if (!this.is(text)) return false;
    this.pos++;
    return true;
  }

  private fail(token: Token, detail: string): never {
    throw new ScriptCompileError(token.line, token.kind === 'eof' ? 'end of script' : token.text, detail);
  }

  private expect(text: string): Token {
    const t = this.peek();
    if (!this.is(text)) this.fail(t, `expected '${text}'`);
    return this.next();
  }

  private refuseIfForeign(t: Token): void {
    if (t.kind === 'ident' && REFUSED[t.text]) this.fail(t, REFUSED[t.text]!);
    if (t.kind === 'punct' && REFUSED_PUNCT[t.text]) this.fail(t, REFUSED_PUNCT[t.text]!);
  }

  // --- output ------------------------------------------------------------------------------------------

  private emit(line: number, text: string): void {
    while (this.outLine < line) {
      this.out.push('\n');
      this.outLine++;
    }
    this.out.push(text);
  }

  // --- statements --------------------------------------------------------------------------------------

  private endStatement(): void {
    if (this.accept(';')) return;
    const t = this.peek();
    if (t.kind === 'eof' || this.is('}')) return;
    this.fail(t, "expected ';' (TBEL separates statements with semicolons)");
  }

  private statement(topLevel = false): void {
    const t = this.peek();
    this.refuseIfForeign(t);
    if (t.kind === 'punct') {
      if (t.text === '{') return this.block();
      if (t.text === ';') {
        this.next();
        return;
      }
    }
    if (t.kind === 'ident') {
      switch (t.text) {
        case 'if':
          return this.ifStatement();
        case 'for':
        case 'foreach':
          return this.forStatement();
        case 'while':
        case 'until':
          return this.whileStatement();
        case 'do':
          return this.doStatement();
        case 'return': {
          this.next();
          if (this.is(';') || this.is('}') || this.peek().kind === 'eof') {
            this.emit(t.line, 'return;');
          } else {
            this.emit(t.line, `return ${this.expression()};`);
          }
          return this.endStatement();
        }
        case 'break':
        case 'continue':
          this.next();
          this.emit(t.line, `${t.text};`);
          return this.endStatement();
        case 'function':
          return this.functionDeclaration();
        case 'def':
          if (this.peek(1).kind === 'ident' && this.is('(', 2)) return this.functionDeclaration();
          return this.declaration();
        default:
          if (TBEL_TYPE_NAMES.has(t.text) && this.peek(1).kind === 'ident' && !this.is('.', 1))
            return this.declaration();
      }
    }
    const expr = this.expression();
    const last = topLevel && this.is(';') ? this.peek(1).kind === 'eof' : this.peek().kind === 'eof';
    this.emit(t.line, topLevel && last ? `return ${expr};` : `${expr};`);
    this.endStatement();
  }

  private declaration(): void {
    const start = this.next();
    const parts: string[] = [];
    do {
      const id = this.next();
      if (id.kind !== 'ident') this.fail(id, 'expected a variable name');
      this.refuseIfForeign(id);
      parts.push(this.accept('=') ? `${this.name(id.text)} = ${this.assignment()}` : this.name(id.text));
    } while (this.accept(','));
    this.emit(start.line, `var ${parts.join(', ')};`);
    this.endStatement();
  }

  private block(): void {
    const open = this.expect('{');
    this.emit(open.line, '{');
    while (!this.is('}')) {
      if (this.peek().kind === 'eof') this.fail(this.peek(), "missing '}'");
      this.statement();
    }
    const close = this.next();
    this.emit(close.line, '}');
  }

  /** A statement used as a body: always emitted as a block. */
  private body(): void {
    if (this.is('{')) return this.block();
    this.emit(this.peek().line, '{');
    this.statement();
    this.out.push('}');
  }

  private condition(): string {
    this.expect('(');
    const c = this.expression();
    this.expect(')');
    return c;
  }

  private ifStatement(): void {
    const t = this.next();
    this.emit(t.line, `if (${this.condition()}) `);
    this.body();
    if (this.is('else')) {
      const e = this.next();
      this.emit(e.line, ' else ');
      if (this.is('if')) this.ifStatement();
      else this.body();
    }
  }

  private forStatement(): void {
    const t = this.next();
    this.expect('(');
    const colonAt = this.is(':', 1) ? 0 : this.is(':', 2) ? 1 : -1;
    if (colonAt >= 0) {
      if (colonAt === 1) this.next();
      const v = this.next();
      if (v.kind !== 'ident') this.fail(v, 'expected the loop variable');
      this.expect(':');
      const collection = this.expression();
      this.expect(')');
      this.emit(t.line, `for (var ${this.name(v.text)} of __tb.iter(${collection})) `);
      return this.body();
    }
    if (t.text === 'foreach') this.fail(this.peek(), "expected 'foreach (item : collection)'");
    let init = '';
    if (!this.is(';')) {
      if (
        (this.is('var') || TBEL_TYPE_NAMES.has(this.peek().text)) &&
        this.peek(1).kind === 'ident' &&
        !this.is('.', 1)
      ) {
        this.next();
        const parts: string[] = [];
        do {
          const id = this.next();
          parts.push(this.accept('=') ? `${this.name(id.text)} = ${this.assignment()}` : this.name(id.text));
        } while (this.accept(','));
        init = `var ${parts.join(', ')}`;
      } else init = this.expression();
    }
    this.expect(';');
    const test = this.is(';') ? '' : this.expression();
    this.expect(';');
    const update = this.is(')') ? '' : this.expression();
    this.expect(')');
    this.emit(t.line, `for (${init}; ${test}; ${update}) `);
    this.body();
  }

  private whileStatement(): void {
    const t = this.next();
    const c = this.condition();
    this.emit(t.line, t.text === 'until' ? `while (!(${c})) ` : `while (${c}) `);
    this.body();
  }

  private doStatement(): void {
    const t = this.next();
    this.emit(t.line, 'do ');
    this.body();
    const w = this.next();
    if (w.text !== 'while' && w.text !== 'until') this.fail(w, "expected 'while' or 'until' after do { }");
    const c = this.condition();
    this.emit(w.line, w.text === 'until' ? ` while (!(${c}));` : ` while (${c});`);
    this.endStatement();
  }

  private functionDeclaration(): void {
    const t = this.next();
    const id = this.next();
    if (id.kind !== 'ident') this.fail(id, 'expected a function name');
    this.refuseIfForeign(id);
    this.expect('(');
    const params: string[] = [];
    while (!this.is(')')) {
      if (TBEL_TYPE_NAMES.has(this.peek().text) && this.peek(1).kind === 'ident') this.next();
      const p = this.next();
      if (p.kind !== 'ident') this.fail(p, 'expected a parameter name');
      params.push(this.name(p.text));
      if (!this.is(')')) this.expect(',');
    }
    this.next();
    this.emit(t.line, `function ${this.name(id.text)}(${params.join(', ')}) `);
    this.block();
  }

  // --- expressions -------------------------------------------------------------------------------------

  private expression(): string {
    return this.assignment();
  }

  private assignment(): string {
    const startTok = this.peek();
    const left = this.ternary();
    const op = this.peek();
    if (op.kind === 'punct' && ASSIGN.has(op.text)) {
      this.next();
      if (startTok.kind === 'ident' && left === this.name(startTok.text) && !this.known.has(startTok.text)) {
        this.implicit.add(startTok.text);
        this.known.add(startTok.text);
      }
      return `${left} ${op.text} ${this.assignment()}`;
    }
    return left;
  }

  private ternary(): string {
    const cond = this.binary(0);
    if (!this.accept('?')) return cond;
    const a = this.assignment();
    this.expect(':');
    const b = this.assignment();
    return `(${cond} ? ${a} : ${b})`;
  }

  private binary(level: number): string {
    if (level >= BINARY_LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const t = this.peek();
      this.refuseIfForeign(t);
      if (t.kind !== 'punct' || !BINARY_LEVELS[level]!.includes(t.text)) return left;
      this.next();
      left = `${left} ${t.text} ${this.binary(level + 1)}`;
    }
  }

  private unary(): string {
    const t = this.peek();
    if (t.kind === 'punct' && ['!', '-', '+', '~', '++', '--'].includes(t.text)) {
      this.next();
      const operand = this.unary();
      // `- -x` and `+ +x` keep their space: written together they are JavaScript's -- and ++
      const merges =
        (t.text.endsWith('-') && operand.startsWith('-')) ||
        (t.text.endsWith('+') && operand.startsWith('+'));
      return merges ? `${t.text} ${operand}` : `${t.text}${operand}`;
    }
    return this.postfix();
  }

  /**
   * Member access, indexing, calls. MVEL's `a.?b.c` marks b as possibly null: the access after it
   * becomes JavaScript's `?.`, so the whole expression is null (undefined) when b is.
   */
  private postfix(): string {
    let expr = this.primary();
    let nullSafe = false;
    for (;;) {
      const t = this.peek();
      this.refuseIfForeign(t);
      if (t.text === '.' || t.text === '.?') {
        this.next();
        const member = this.next();
        if (member.kind !== 'ident') this.fail(member, 'expected a property or method name');
        const access = nullSafe ? '?.' : '.';
        nullSafe = t.text === '.?';
        if (this.is('(')) {
          const args = this.args();
          if (member.text === 'length' && args === '') expr = `__tb.len(${expr})`;
          else expr = `${expr}${access}${member.text}(${args})`;
        } else if (member.text === 'size') {
          expr = `__tb.size(${expr})`;
        } else {
          expr = `${expr}${access}${member.text}`;
        }
      } else if (t.text === '[') {
        this.next();
        const index = this.expression();
        this.expect(']');
        expr = `${expr}${nullSafe ? '?.' : ''}[${index}]`;
        nullSafe = false;
      } else if (t.text === '++' || t.text === '--') {
        this.next();
        expr = `${expr}${t.text}`;
      } else if (t.text === '(') {
        this.fail(t, 'only named functions can be called');
      } else {
        return expr;
      }
    }
  }

  private args(): string {
    this.expect('(');
    const list: string[] = [];
    while (!this.is(')')) {
      list.push(this.assignment());
      if (!this.is(')')) this.expect(',');
    }
    this.next();
    return list.join(', ');
  }

  private primary(): string {
    const t = this.peek();
    this.refuseIfForeign(t);
    if (t.kind === 'number' || t.kind === 'string') {
      this.next();
      return t.text;
    }
    if (t.kind === 'eof') this.fail(t, 'the script ends in the middle of an expression');
    if (t.kind === 'punct') {
      if (t.text === '(') {
        this.next();
        const e = this.expression();
        this.expect(')');
        return `(${e})`;
      }
      if (t.text === '[') return this.listOrMap();
      if (t.text === '{') return this.mapLiteral();
      this.fail(t, `unexpected '${t.text}'`);
    }
    // identifiers
    this.next();
    switch (t.text) {
      case 'true':
      case 'false':
      case 'null':
        return t.text;
      case 'nil':
        return 'null';
      case 'new':
        return this.newExpression(t);
      case 'function':
      case 'def':
        return this.fail(t, 'functions must be declared as statements');
      case 'java':
        return this.javaClass(t);
    }
    if (STATEMENT_KEYWORDS.has(t.text)) this.fail(t, `'${t.text}' cannot be used here`);
    if (TBEL_CLASSES[t.text] && !this.known.has(t.text)) return this.classMember(t.text);
    if (this.is('(')) {
      if (!this.declared.has(t.text) && !TBEL_HELPERS.has(t.text))
        this.fail(t, `unknown function '${t.text}'`);
      return `${this.name(t.text)}(${this.args()})`;
    }
    if (!this.known.has(t.text)) {
      if (ASSIGN.has(this.peek().text) && this.peek().text === '=') return this.name(t.text);
      this.fail(t, `unknown variable '${t.text}'`);
    }
    return this.name(t.text);
  }

  private classMember(className: string): string {
    this.expect('.');
    const m = this.next();
    if (!TBEL_CLASSES[className]!.has(m.text)) this.fail(m, `${className}.${m.text} is not supported`);
    const target = className === 'Math' || className === 'JSON' ? className : `__tbc.${className}`;
    return this.is('(') ? `${target}.${m.text}(${this.args()})` : `${target}.${m.text}`;
  }

  /** `java.util.Collections.reverse(list)`: the classes TBEL exposes, by their full name. */
  private javaClass(t: Token): string {
    const path = ['java'];
    while (this.is('.') && this.peek(1).kind === 'ident') {
      this.next();
      path.push(this.next().text);
      const last = path[path.length - 1]!;
      if (
        TBEL_CLASSES[last] &&
        (path.join('.') === `java.util.${last}` || path.join('.') === `java.lang.${last}`)
      )
        return this.classMember(last);
    }
    return this.fail(t, `class ${path.join('.')} is not available`);
  }

  private newExpression(t: Token): string {
    const type = this.next();
    if (type.kind !== 'ident') this.fail(type, "expected a type after 'new'");
    if (this.is('[')) {
      this.next();
      const size = this.expression();
      this.expect(']');
      return `__tb.newArray(${size})`;
    }
    if (type.text === 'Date' && this.is('(')) return `new __tbc.Date(${this.args()})`;
    const full = [type.text];
    while (this.is('.') && this.peek(1).kind === 'ident') {
      this.next();
      full.push(this.next().text);
    }
    return this.fail(t, `new ${full.join('.')}: TBEL creates maps with {} and lists with [] only`);
  }

  /** `[1, 2]` is a list; MVEL's `["a": 1]` is a map. */
  private listOrMap(): string {
    this.expect('[');
    const items: string[] = [];
    const pairs: string[] = [];
    while (!this.is(']')) {
      const value = this.assignment();
      if (this.accept(':')) pairs.push(`[${value}]: ${this.assignment()}`);
      else items.push(value);
      if (!this.is(']')) this.expect(',');
    }
    const close = this.next();
    if (pairs.length && items.length) this.fail(close, 'a literal cannot mix list items and map entries');
    return pairs.length ? `{${pairs.join(', ')}}` : `[${items.join(', ')}]`;
  }

  private mapLiteral(): string {
    this.expect('{');
    const entries: string[] = [];
    while (!this.is('}')) {
      const key = this.next();
      let k: string;
      if (key.kind === 'string') k = key.text;
      else if (key.kind === 'ident' || key.kind === 'number') k = JSON.stringify(key.text);
      else return this.fail(key, 'expected a map key');
      this.expect(':');
      entries.push(`${k}: ${this.assignment()}`);
      if (!this.is('}')) this.expect(',');
    }
    this.next();
    return `{${entries.join(', ')}}`;
  }
}
