/**
 * The gateway's `${...}` expressions: a token is a top-level key of the data, else a JSONPath subset
 * (`${a.b}`, `${arr[1]}`, `${$.data.value}`, `${['odd key']}`). A template that is exactly one token keeps
 * the value's type; several tokens (or text around one) make a string. A missing value is undefined (the
 * gateway's None): the caller does not send it.
 */

type Segment = string | number;

const pathCache = new Map<string, Segment[] | null>();

/** Parses a JSONPath subset: $ . name [n] ['name'] ["name"]; null when it is not one. */
export function parsePath(expr: string): Segment[] | null {
  const cached = pathCache.get(expr);
  if (cached !== undefined) return cached;
  const segments: Segment[] = [];
  let i = 0;
  const s = expr.trim();
  if (s.startsWith('$')) i = 1;
  let ok = s.length > 0;
  while (ok && i < s.length) {
    const c = s[i]!;
    if (c === '.') {
      const m = /^[^.[\]]+/.exec(s.slice(i + 1));
      if (!m) ok = false;
      else {
        segments.push(m[0]);
        i += 1 + m[0].length;
      }
    } else if (c === '[') {
      const rest = s.slice(i);
      const num = /^\[\s*(-?\d+)\s*\]/.exec(rest);
      const str = /^\[\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*\]/.exec(rest);
      if (num) {
        segments.push(Number(num[1]));
        i += num[0].length;
      } else if (str) {
        segments.push((str[1] ?? str[2] ?? '').replace(/\\(.)/g, '$1'));
        i += str[0].length;
      } else ok = false;
    } else if (i === 0) {
      const m = /^[^.[\]]+/.exec(s);
      segments.push(m![0]);
      i = m![0].length;
    } else ok = false;
  }
  const result = ok ? segments : null;
  if (pathCache.size > 10_000) pathCache.clear();
  pathCache.set(expr, result);
  return result;
}

/** The value a token names in data: the top-level key, else the JSONPath; undefined when absent. */
export function lookup(data: unknown, token: string): unknown {
  if (data !== null && typeof data === 'object' && !Array.isArray(data) && Object.hasOwn(data, token))
    return (data as Record<string, unknown>)[token];
  const path = parsePath(token);
  if (!path) return undefined;
  let cur: unknown = data;
  for (const seg of path) {
    if (cur === null || cur === undefined) return undefined;
    if (typeof seg === 'number') {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[seg < 0 ? cur.length + seg : seg];
    } else if (typeof cur === 'object' && Object.hasOwn(cur, seg)) {
      cur = (cur as Record<string, unknown>)[seg];
    } else return undefined;
  }
  return cur;
}

export interface TemplatePart {
  text: string;
  token?: string;
}

const templateCache = new Map<string, TemplatePart[]>();

/** Splits a template into text and tokens. */
export function parseTemplate(template: string): TemplatePart[] {
  const cached = templateCache.get(template);
  if (cached) return cached;
  const parts: TemplatePart[] = [];
  let i = 0;
  while (i < template.length) {
    const start = template.indexOf('${', i);
    if (start === -1) {
      parts.push({ text: template.slice(i) });
      break;
    }
    const end = template.indexOf('}', start + 2);
    if (end === -1) {
      parts.push({ text: template.slice(i) });
      break;
    }
    if (start > i) parts.push({ text: template.slice(i, start) });
    parts.push({ text: template.slice(start, end + 1), token: template.slice(start + 2, end) });
    i = end + 1;
  }
  if (templateCache.size > 10_000) templateCache.clear();
  templateCache.set(template, parts);
  return parts;
}

/** The tokens of a template, in order. */
export function templateTokens(template: string): string[] {
  return parseTemplate(template)
    .filter((p) => p.token !== undefined)
    .map((p) => p.token!);
}

/** A value as it reads inside a string: JSON for objects, plain text otherwise. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null) return 'null';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export interface RenderOptions {
  /** resolves one token; default: lookup in data */
  resolve?: (token: string) => unknown;
  /** how a value reads inside a longer string (default textOf) */
  stringify?: (value: unknown) => string;
}

/**
 * Renders a template against data. One token alone: the value itself (typed). Otherwise a string, or
 * undefined when any token is missing (so "${hum}:${temp}" with no temp is not sent as "12:None").
 */
export function render(template: string, data: unknown, options: RenderOptions = {}): unknown {
  const parts = parseTemplate(template);
  const resolve = options.resolve ?? ((t: string) => lookup(data, t));
  if (parts.length === 1 && parts[0]!.token !== undefined) {
    const v = resolve(parts[0]!.token);
    return v === null ? undefined : v;
  }
  const stringify = options.stringify ?? textOf;
  let out = '';
  for (const p of parts) {
    if (p.token === undefined) out += p.text;
    else {
      const v = resolve(p.token);
      if (v === undefined || v === null) return undefined;
      out += stringify(v);
    }
  }
  return out;
}

/** Renders to a string (undefined when a token is missing). */
export function renderString(
  template: string,
  data: unknown,
  options: RenderOptions = {},
): string | undefined {
  const v = render(template, data, options);
  return v === undefined ? undefined : textOf(v);
}
