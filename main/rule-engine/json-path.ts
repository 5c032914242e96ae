/**
 * A small JSONPath evaluator with Jayway's (ThingsBoard's) results: a definite path ($.a.b, $.a[0]) gives
 * the value itself and fails when it is missing; an indefinite one (*, .., slices, unions, filters) gives
 * the list of what matched, possibly empty.
 */

type Segment =
  | { kind: 'name'; names: string[]; deep: boolean }
  | { kind: 'wildcard'; deep: boolean }
  | { kind: 'index'; indexes: number[]; deep: boolean }
  | { kind: 'slice'; start: number | null; end: number | null; step: number; deep: boolean }
  | { kind: 'filter'; expr: Expr; deep: boolean }
  | { kind: 'length' };

type Expr =
  | { op: 'or' | 'and'; left: Expr; right: Expr }
  | { op: 'not'; expr: Expr }
  | { op: 'cmp'; cmp: string; left: Operand; right: Operand }
  | { op: 'exists'; operand: Operand };

type Operand = { path: Segment[]; root: boolean } | { value: unknown };

export class JsonPathError extends Error {}

const MAX_PATH_LENGTH = 1024;

class Parser {
  private i = 0;
  private readonly s: string;
  constructor(s: string) {
    this.s = s;
  }

  path(inFilter: boolean): { segments: Segment[]; root: boolean } {
    const c = this.s[this.i];
    if (c !== '$' && c !== '@') throw new JsonPathError(`Path must start with '$' or '@': ${this.s}`);
    const root = c === '$';
    this.i++;
    const segments: Segment[] = [];
    for (;;) {
      this.space(inFilter);
      const ch = this.s[this.i];
      if (ch === '.') {
        let deep = false;
        this.i++;
        if (this.s[this.i] === '.') {
          deep = true;
          this.i++;
        }
        if (this.s[this.i] === '[') {
          segments.push(this.bracket(deep));
          continue;
        }
        if (this.s[this.i] === '*') {
          this.i++;
          segments.push({ kind: 'wildcard', deep });
          continue;
        }
        const name = this.name();
        if (name === 'length' && this.s.startsWith('()', this.i)) {
          this.i += 2;
          segments.push({ kind: 'length' });
          continue;
        }
        segments.push({ kind: 'name', names: [name], deep });
      } else if (ch === '[') {
        segments.push(this.bracket(false));
      } else {
        break;
      }
    }
    return { segments, root };
  }

  done(): boolean {
    return this.i >= this.s.length;
  }

  rest(): string {
    return this.s.slice(this.i);
  }

  private space(inFilter: boolean): void {
    if (inFilter) return;
    while (this.s[this.i] === ' ') this.i++;
  }

  private name(): string {
    const m = /^[^.[\]()\s=<>!&|]+/.exec(this.s.slice(this.i));
    if (!m) throw new JsonPathError(`Expected a property name at position ${this.i} of ${this.s}`);
    this.i += m[0].length;
    return m[0];
  }

  private skipWs(): void {
    while (this.s[this.i] === ' ') this.i++;
  }

  private quoted(): string {
    const q = this.s[this.i];
    this.i++;
    let out = '';
    while (this.i < this.s.length && this.s[this.i] !== q) {
      if (this.s[this.i] === '\\') this.i++;
      out += this.s[this.i];
      this.i++;
    }
    if (this.s[this.i] !== q) throw new JsonPathError(`Unterminated string in ${this.s}`);
    this.i++;
    return out;
  }

  private bracket(deep: boolean): Segment {
    this.i++; // [
    this.skipWs();
    let seg: Segment;
    const c = this.s[this.i];
    if (c === '*') {
      this.i++;
      seg = { kind: 'wildcard', deep };
    } else if (c === '?') {
      this.i++;
      this.skipWs();
      if (this.s[this.i] !== '(') throw new JsonPathError(`Expected '(' after '?' in ${this.s}`);
      this.i++;
      const expr = this.or();
      this.skipWs();
      if (this.s[this.i] !== ')') throw new JsonPathError(`Expected ')' in filter of ${this.s}`);
      this.i++;
      seg = { kind: 'filter', expr, deep };
    } else if (c === "'" || c === '"') {
      const names = [this.quoted()];
      this.skipWs();
      while (this.s[this.i] === ',') {
        this.i++;
        this.skipWs();
        names.push(this.quoted());
        this.skipWs();
      }
      seg = { kind: 'name', names, deep };
    } else {
      const m = /^[-\d:,\s]+/.exec(this.s.slice(this.i));
      if (!m) throw new JsonPathError(`Unexpected '${c ?? 'end'}' in brackets of ${this.s}`);
      this.i += m[0].length;
      const text = m[0].replace(/\s/g, '');
      if (text.includes(':')) {
        const [a, b, st] = text.split(':');
        const num = (x: string | undefined) => (x === undefined || x === '' ? null : Number(x));
        seg = { kind: 'slice', start: num(a), end: num(b), step: num(st) ?? 1, deep };
      } else {
        seg = { kind: 'index', indexes: text.split(',').map(Number), deep };
      }
    }
    this.skipWs();
    if (this.s[this.i] !== ']') throw new JsonPathError(`Expected ']' in ${this.s}`);
    this.i++;
    return seg;
  }

  private or(): Expr {
    let left = this.and();
    for (;;) {
      this.skipWs();
      if (!this.s.startsWith('||', this.i)) return left;
      this.i += 2;
      left = { op: 'or', left, right: this.and() };
    }
  }

  private and(): Expr {
    let left = this.unary();
    for (;;) {
      this.skipWs();
      if (!this.s.startsWith('&&', this.i)) return left;
      this.i += 2;
      left = { op: 'and', left, right: this.unary() };
    }
  }

  private unary(): Expr {
    this.skipWs();
    if (this.s[this.i] === '!' && this.s[this.i + 1] !== '=') {
      this.i++;
      return { op: 'not', expr: this.unary() };
    }
    if (this.s[this.i] === '(') {
      this.i++;
      const e = this.or();
      this.skipWs();
      if (this.s[this.i] !== ')') throw new JsonPathError(`Expected ')' in ${this.s}`);
      this.i++;
      return e;
    }
    const left = this.operand();
    this.skipWs();
    const m = /^(==|!=|<=|>=|<|>)/.exec(this.s.slice(this.i));
    if (!m) return { op: 'exists', operand: left };
    this.i += m[0].length;
    return { op: 'cmp', cmp: m[0], left, right: this.operand() };
  }

  private operand(): Operand {
    this.skipWs();
    const c = this.s[this.i];
    if (c === '@' || c === '$') {
      const p = this.path(true);
      return { path: p.segments, root: p.root };
    }
    if (c === "'" || c === '"') return { value: this.quoted() };
    const m = /^(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null)/.exec(this.s.slice(this.i));
    if (!m) throw new JsonPathError(`Unexpected '${c ?? 'end'}' in filter of ${this.s}`);
    this.i += m[0].length;
    return { value: JSON.parse(m[0]) as unknown };
  }
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function descendants(v: unknown, out: unknown[]): void {
  out.push(v);
  if (Array.isArray(v)) for (const x of v) descendants(x, out);
  else if (isObj(v)) for (const x of Object.values(v)) descendants(x, out);
}

function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (isObj(v)) return Object.values(v);
  return [];
}

interface Found {
  values: unknown[];
  missing: boolean;
}

function step(nodes: unknown[], seg: Segment, root: unknown): Found {
  if (seg.kind === 'length')
    return {
      values: nodes.map((n) =>
        Array.isArray(n)
          ? n.length
          : isObj(n)
            ? Object.keys(n).length
            : typeof n === 'string'
              ? n.length
              : null,
      ),
      missing: false,
    };
  const scope: unknown[] = [];
  if (seg.deep) for (const n of nodes) descendants(n, scope);
  else scope.push(...nodes);
  const out: unknown[] = [];
  let missing = false;
  for (const n of scope) {
    switch (seg.kind) {
      case 'name':
        for (const name of seg.names) {
          if (isObj(n) && Object.hasOwn(n, name)) out.push(n[name]);
          else if (!seg.deep) missing = true;
        }
        break;
      case 'wildcard':
        out.push(...children(n));
        break;
      case 'index':
        if (!Array.isArray(n)) {
          if (!seg.deep) missing = true;
          break;
        }
        for (const i of seg.indexes) {
          const at = i < 0 ? n.length + i : i;
          if (at >= 0 && at < n.length) out.push(n[at]);
          else if (!seg.deep) missing = true;
        }
        break;
      case 'slice': {
        if (!Array.isArray(n)) break;
        const len = n.length;
        const norm = (x: number) => (x < 0 ? Math.max(len + x, 0) : Math.min(x, len));
        const start = seg.start === null ? 0 : norm(seg.start);
        const end = seg.end === null ? len : norm(seg.end);
        for (let i = start; i < end; i += Math.max(seg.step, 1)) out.push(n[i]);
        break;
      }
      case 'filter':
        for (const c of Array.isArray(n) ? n : isObj(n) && !seg.deep ? [n] : [])
          if (test(seg.expr, c, root)) out.push(c);
        break;
    }
  }
  return { values: out, missing };
}

function resolve(op: Operand, current: unknown, root: unknown): { found: boolean; value: unknown } {
  if ('value' in op) return { found: true, value: op.value };
  let nodes = [op.root ? root : current];
  for (const seg of op.path) {
    const r = step(nodes, seg, root);
    if (r.missing || r.values.length === 0) return { found: false, value: undefined };
    nodes = r.values;
  }
  return { found: true, value: nodes.length === 1 ? nodes[0] : nodes };
}

function compare(cmp: string, a: unknown, b: unknown): boolean {
  if (cmp === '==') return JSON.stringify(a) === JSON.stringify(b);
  if (cmp === '!=') return JSON.stringify(a) !== JSON.stringify(b);
  if (typeof a === 'number' && typeof b === 'number') {
    return cmp === '<' ? a < b : cmp === '<=' ? a <= b : cmp === '>' ? a > b : a >= b;
  }
  if (typeof a === 'string' && typeof b === 'string') {
    return cmp === '<' ? a < b : cmp === '<=' ? a <= b : cmp === '>' ? a > b : a >= b;
  }
  return false;
}

function test(e: Expr, current: unknown, root: unknown): boolean {
  switch (e.op) {
    case 'or':
      return test(e.left, current, root) || test(e.right, current, root);
    case 'and':
      return test(e.left, current, root) && test(e.right, current, root);
    case 'not':
      return !test(e.expr, current, root);
    case 'exists':
      return resolve(e.operand, current, root).found;
    case 'cmp': {
      const l = resolve(e.left, current, root);
      const r = resolve(e.right, current, root);
      return l.found && r.found && compare(e.cmp, l.value, r.value);
    }
  }
}

export interface CompiledJsonPath {
  read(document: unknown): unknown;
}

/** Compiles a JSONPath; throws JsonPathError naming the problem. */
export function compileJsonPath(path: string): CompiledJsonPath {
  if (path.length > MAX_PATH_LENGTH)
    throw new JsonPathError(`A JSONPath is at most ${MAX_PATH_LENGTH} characters`);
  const parser = new Parser(path.trim());
  const { segments } = parser.path(false);
  if (!parser.done()) throw new JsonPathError(`Unexpected '${parser.rest()}' in JSONPath ${path}`);
  const definite = segments.every(
    (s) =>
      s.kind === 'length' ||
      (!('deep' in s && s.deep) &&
        ((s.kind === 'name' && s.names.length === 1) || (s.kind === 'index' && s.indexes.length === 1))),
  );
  return {
    read(document) {
      let nodes = [document];
      for (const seg of segments) {
        const r = step(nodes, seg, document);
        if (definite && (r.missing || r.values.length === 0)) {
          const shown =
            seg.kind === 'name' ? `['${seg.names[0]}']` : seg.kind === 'index' ? `[${seg.indexes[0]}]` : '';
          throw new JsonPathError(`No results for path: ${path}${shown ? ` (missing ${shown})` : ''}`);
        }
        nodes = r.values;
      }
      return definite ? nodes[0] : nodes;
    },
  };
}
