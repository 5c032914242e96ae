/**
 * JSON text with positions: a tolerant tokenizer, where each JSON path sits in the text (to jump to an
 * error), what the cursor is on (the path and whether a key or a value is being typed, for completion),
 * and line / column arithmetic. Pure functions, independent of the editor that shows the text.
 */
import { parsePath, type PathSegment } from '../../../components/json-path.ts';

export type TokenKind = '{' | '}' | '[' | ']' | ':' | ',' | 'string' | 'number' | 'literal' | 'invalid';

export interface Token {
  kind: TokenKind;
  start: number;
  /** exclusive */
  end: number;
  /** a string token without its closing quote */
  unterminated?: boolean;
}

const PUNCTUATION = new Set(['{', '}', '[', ']', ':', ',']);

/** Splits JSON text into tokens, never failing: what it cannot read becomes an 'invalid' token. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
      i++;
      continue;
    }
    if (PUNCTUATION.has(c)) {
      tokens.push({ kind: c as TokenKind, start: i, end: i + 1 });
      i++;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let closed = false;
      while (j < n) {
        const d = text[j]!;
        if (d === '\\') {
          j += 2;
          continue;
        }
        if (d === '"') {
          closed = true;
          j++;
          break;
        }
        if (d === '\n') break;
        j++;
      }
      tokens.push({
        kind: 'string',
        start: i,
        end: Math.min(j, n),
        ...(closed ? {} : { unterminated: true }),
      });
      i = Math.min(j, n);
      continue;
    }
    let j = i;
    while (j < n && !/[\s{}[\]:,"]/.test(text[j]!)) j++;
    if (j === i) j = i + 1;
    const word = text.slice(i, j);
    const kind: TokenKind = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(word)
      ? 'number'
      : word === 'true' || word === 'false' || word === 'null'
        ? 'literal'
        : 'invalid';
    tokens.push({ kind, start: i, end: j });
    i = j;
  }
  return tokens;
}

/** The string a string token holds (its escapes decoded); unterminated: what was typed so far. */
export function stringValue(text: string, token: Token): string {
  const raw = text.slice(token.start, token.end);
  const closed = token.unterminated ? `${raw}"` : raw;
  try {
    return JSON.parse(closed) as string;
  } catch {
    return raw.replace(/^"/, '').replace(/"$/, '');
  }
}

// ---------------------------------------------------------------------------------------------------
// Where values are

export interface ValueNode {
  start: number;
  end: number;
  /** where the key of this value starts (object members) */
  keyStart?: number;
  children?: Map<string | number, ValueNode>;
}

/**
 * Reads the text as JSON, keeping where each value is; stops at the first syntax error (what was read
 * before it is kept) and says where that error is.
 */
export function parseWithPositions(text: string): { root: ValueNode | null; errorAt: number | null } {
  const tokens = tokenize(text);
  let k = 0;
  let errorAt: number | null = null;
  const fail = (at: number): null => {
    if (errorAt === null) errorAt = at;
    return null;
  };
  const peek = () => tokens[k];

  const value = (): ValueNode | null => {
    const t = tokens[k];
    if (!t) return fail(text.length);
    if (t.kind === '{') {
      k++;
      const node: ValueNode = { start: t.start, end: t.end, children: new Map() };
      if (peek()?.kind === '}') {
        node.end = tokens[k++]!.end;
        return node;
      }
      for (;;) {
        const key = tokens[k];
        if (!key || key.kind !== 'string' || key.unterminated) return (fail(key?.start ?? text.length), node);
        k++;
        if (peek()?.kind !== ':') return (fail(peek()?.start ?? text.length), node);
        k++;
        const child = value();
        if (!child) return node;
        child.keyStart = key.start;
        node.children!.set(stringValue(text, key), child);
        node.end = child.end;
        const sep = tokens[k];
        if (sep?.kind === ',') {
          k++;
          continue;
        }
        if (sep?.kind === '}') {
          k++;
          node.end = sep.end;
          return node;
        }
        return (fail(sep?.start ?? text.length), node);
      }
    }
    if (t.kind === '[') {
      k++;
      const node: ValueNode = { start: t.start, end: t.end, children: new Map() };
      if (peek()?.kind === ']') {
        node.end = tokens[k++]!.end;
        return node;
      }
      for (let i = 0; ; i++) {
        const child = value();
        if (!child) return node;
        node.children!.set(i, child);
        node.end = child.end;
        const sep = tokens[k];
        if (sep?.kind === ',') {
          k++;
          continue;
        }
        if (sep?.kind === ']') {
          k++;
          node.end = sep.end;
          return node;
        }
        return (fail(sep?.start ?? text.length), node);
      }
    }
    if ((t.kind === 'string' && !t.unterminated) || t.kind === 'number' || t.kind === 'literal') {
      k++;
      return { start: t.start, end: t.end };
    }
    return fail(t.start);
  };

  const root = value();
  if (errorAt === null && k < tokens.length) errorAt = tokens[k]!.start;
  return { root, errorAt };
}

/**
 * Where a JSON path (mapping[0].converter.type) is in the text: its key, else its value; a path that is
 * not there (a missing required key) gives its nearest existing parent.
 */
export function locatePath(text: string, path: string | PathSegment[]): number | null {
  const { root } = parseWithPositions(text);
  if (!root) return null;
  return locateInTree(root, typeof path === 'string' ? parsePath(path) : path);
}

/** locatePath on an already parsed text. */
export function locateInTree(root: ValueNode, segments: PathSegment[]): number {
  let node = root;
  for (const seg of segments) {
    const next = node.children?.get(seg);
    if (!next) break;
    node = next;
  }
  return node.keyStart ?? node.start;
}

/**
 * The text range to mark for a JSON path: a scalar member from its key to the end of its value, a
 * container by its key (else its opening bracket); a path that is not there marks its nearest parent.
 */
export function rangeInTree(
  text: string,
  root: ValueNode,
  segments: PathSegment[],
): { from: number; to: number } {
  let node = root;
  for (const seg of segments) {
    const next = node.children?.get(seg);
    if (!next) break;
    node = next;
  }
  if (!node.children) return { from: node.keyStart ?? node.start, to: node.end };
  if (node.keyStart !== undefined) {
    const key = tokenize(text.slice(node.keyStart, node.start))[0];
    return { from: node.keyStart, to: node.keyStart + (key?.end ?? 1) };
  }
  return { from: node.start, to: node.start + 1 };
}

// ---------------------------------------------------------------------------------------------------
// What the cursor is on

export interface CursorContext {
  /** key: a member name is being typed (path is the object); value: a value (path is the value's) */
  mode: 'key' | 'value' | 'none';
  path: PathSegment[];
  /** what was typed of the current token (without its opening quote) */
  prefix: string;
  /** the whole current string token's value (the key or string under the cursor) */
  word: string | null;
  /** the text range a completion replaces */
  from: number;
  to: number;
  /** keys the object at path already has (key mode) */
  existingKeys: string[];
  /** key mode after a value with no comma yet: where a comma must go */
  commaAt: number | null;
  /** a ':' already follows the key being typed */
  colonFollows: boolean;
  /** the next token is a member or an item (the inserted one needs a comma after it) */
  moreFollows: boolean;
}

interface Frame {
  kind: 'object' | 'array';
  state: 'key' | 'colon' | 'value' | 'comma';
  key: string | null;
  index: number;
  keys: string[];
  /** end of the last value (for a missing comma) */
  lastEnd: number;
}

function afterValue(stack: Frame[], end: number): void {
  const top = stack.at(-1);
  if (!top) return;
  top.state = 'comma';
  top.lastEnd = end;
}

function framePath(stack: Frame[], upTo: number): PathSegment[] {
  const path: PathSegment[] = [];
  for (let i = 0; i < upTo; i++) {
    const f = stack[i]!;
    path.push(f.kind === 'object' ? (f.key ?? '') : f.index);
  }
  return path;
}

/** Keys of the object whose members continue at token k (the part after the cursor). */
function keysAfter(text: string, tokens: Token[], k: number, keyFirst: boolean): string[] {
  const keys: string[] = [];
  let depth = 0;
  let expectKey = keyFirst;
  for (let i = k; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === '{' || t.kind === '[') depth++;
    else if (t.kind === '}' || t.kind === ']') {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0 && t.kind === ',') expectKey = true;
    else if (depth === 0 && t.kind === 'string' && expectKey) {
      keys.push(stringValue(text, t));
      expectKey = false;
    }
  }
  return keys;
}

/** What the cursor at `offset` is on: the path, and whether a key or a value is being typed there. */
export function contextAt(text: string, offset: number): CursorContext {
  const tokens = tokenize(text);
  const stack: Frame[] = [];
  let current: Token | null = null;
  let k = 0;
  for (; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.start >= offset) break;
    const typing =
      t.end >= offset &&
      (t.kind === 'string' || t.kind === 'number' || t.kind === 'literal' || t.kind === 'invalid');
    if (typing && !(t.kind === 'string' && !t.unterminated && t.end === offset)) {
      current = t;
      k++;
      break;
    }
    const top = stack.at(-1);
    switch (t.kind) {
      case '{':
      case '[':
        if (top?.kind === 'array' && top.state === 'comma') top.index++;
        stack.push({
          kind: t.kind === '{' ? 'object' : 'array',
          state: t.kind === '{' ? 'key' : 'value',
          key: null,
          index: 0,
          keys: [],
          lastEnd: t.end,
        });
        break;
      case '}':
      case ']':
        stack.pop();
        afterValue(stack, t.end);
        break;
      case ':':
        if (top?.kind === 'object') top.state = 'value';
        break;
      case ',':
        if (top?.kind === 'object') {
          top.state = 'key';
          top.key = null;
        } else if (top?.kind === 'array') {
          top.state = 'value';
          top.index++;
        }
        break;
      case 'string':
        if (top?.kind === 'object' && (top.state === 'key' || top.state === 'comma')) {
          top.key = stringValue(text, t);
          top.keys.push(top.key);
          top.state = 'colon';
        } else afterValue(stack, t.end);
        break;
      default:
        afterValue(stack, t.end);
    }
  }

  const top = stack.at(-1);
  const none: CursorContext = {
    mode: 'none',
    path: framePath(stack, stack.length),
    prefix: '',
    word: null,
    from: offset,
    to: offset,
    existingKeys: [],
    commaAt: null,
    colonFollows: false,
    moreFollows: false,
  };
  const from = current ? current.start : offset;
  const to = current ? current.end : offset;
  const prefix = current ? text.slice(current.start + (current.kind === 'string' ? 1 : 0), offset) : '';
  const word = current?.kind === 'string' ? stringValue(text, current) : null;
  const next = tokens[k];
  const moreFollows = next !== undefined && next.kind !== '}' && next.kind !== ']' && next.kind !== ',';

  if (!top) return { ...none, mode: 'value', path: [], prefix, word, from, to, moreFollows: false };
  if (top.kind === 'object') {
    const keyish =
      top.state === 'key' ||
      (top.state === 'comma' && current === null) ||
      (top.state === 'comma' && current?.kind === 'string');
    if (keyish) {
      const existing = [...top.keys, ...keysAfter(text, tokens, k, current === null && top.state === 'key')];
      return {
        mode: 'key',
        path: framePath(stack, stack.length - 1),
        prefix,
        word,
        from,
        to,
        existingKeys: existing,
        commaAt: top.state === 'comma' ? top.lastEnd : null,
        colonFollows: next?.kind === ':',
        moreFollows,
      };
    }
    if (top.state === 'value')
      return {
        ...none,
        mode: 'value',
        path: [...framePath(stack, stack.length - 1), top.key ?? ''],
        prefix,
        from,
        to,
        moreFollows,
      };
    return none;
  }
  if (top.state === 'value' || (top.state === 'comma' && current !== null))
    return {
      ...none,
      mode: 'value',
      path: [...framePath(stack, stack.length - 1), top.index],
      prefix,
      from,
      to,
      moreFollows,
    };
  return none;
}

/** The path of the value the cursor is on or in (for the status line). */
export function pathAt(text: string, offset: number): PathSegment[] {
  let ctx = contextAt(text, offset);
  // on the opening quote of a key: that key
  if (ctx.mode === 'key' && text[offset] === '"') ctx = contextAt(text, offset + 1);
  if (ctx.mode === 'key' && ctx.word) return [...ctx.path, ctx.word];
  return ctx.path;
}

// ---------------------------------------------------------------------------------------------------
// Lines

export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 0;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++)
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  return { line, column: offset - lineStart };
}

export function lineStartOffset(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The position JSON.parse names in its message ("... at position 42 (line 3 column 5)"), if any. */
export function parseErrorOffset(message: string, text: string): number | null {
  const pos = /position (\d+)/.exec(message);
  if (pos) return Math.min(Number(pos[1]), text.length);
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (lc) {
    const lines = text.split('\n');
    let offset = 0;
    for (let i = 0; i < Number(lc[1]) - 1 && i < lines.length; i++) offset += lines[i]!.length + 1;
    return Math.min(offset + Number(lc[2]) - 1, text.length);
  }
  return null;
}
