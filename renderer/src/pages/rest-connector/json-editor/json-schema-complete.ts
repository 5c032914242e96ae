/**
 * Completion from a JSON Schema (the subset TypeBox writes: type, properties, required, items, anyOf,
 * const, enum, patternProperties, additionalProperties, default, description): the keys an object may
 * have, the values a field takes, and the description of the field at a path.
 */
import type { PathSegment } from '../../../components/json-path.ts';
import type { CursorContext } from './json-text.ts';

export interface JsonSchema {
  type?: string | string[];
  description?: string;
  title?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  default?: unknown;
  patternProperties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
}

export interface Completion {
  label: string;
  /** a short description (the schema's) */
  detail?: string;
  /** key or value */
  kind: 'key' | 'value';
  required?: boolean;
  /** the text that replaces ctx.from..ctx.to */
  insert: string;
  /** where the cursor goes, relative to the start of insert */
  cursor: number;
  /** a comma to insert before (at ctx.commaAt) */
  commaAt: number | null;
}

const asSchema = (v: unknown): JsonSchema | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonSchema) : null;

/** A schema and its anyOf / oneOf branches, flattened. */
function branches(schema: JsonSchema): JsonSchema[] {
  const alts = schema.anyOf ?? schema.oneOf;
  if (!alts) return [schema];
  return alts.flatMap((b) => branches(b));
}

function typesOf(s: JsonSchema): string[] {
  if (Array.isArray(s.type)) return s.type;
  if (s.type) return [s.type];
  if (s.properties || s.patternProperties) return ['object'];
  if (s.items) return ['array'];
  return [];
}

function child(s: JsonSchema, seg: PathSegment): JsonSchema[] {
  const out: JsonSchema[] = [];
  if (typeof seg === 'number') {
    if (s.items) out.push(s.items);
    return out;
  }
  const prop = s.properties?.[seg];
  if (prop) return [prop];
  for (const [pattern, sub] of Object.entries(s.patternProperties ?? {})) {
    try {
      if (new RegExp(pattern).test(seg)) out.push(sub);
    } catch {
      /* a pattern JavaScript cannot read */
    }
  }
  if (out.length === 0 && asSchema(s.additionalProperties)) out.push(s.additionalProperties as JsonSchema);
  return out;
}

/** The schemas (branches flattened) that describe the value at a path. */
export function schemasAt(root: unknown, path: PathSegment[]): JsonSchema[] {
  const start = asSchema(root);
  if (!start) return [];
  let current = branches(start);
  for (const seg of path) current = current.flatMap((s) => child(s, seg)).flatMap((s) => branches(s));
  return current;
}

/** The description of the field at a path (the first branch that has one). */
export function describeAt(root: unknown, path: PathSegment[]): string | null {
  const start = asSchema(root);
  if (!start) return null;
  let current: JsonSchema[] = [start];
  for (const seg of path) current = current.flatMap((s) => branches(s)).flatMap((s) => child(s, seg));
  for (const s of current) if (s.description) return s.description;
  for (const s of current.flatMap((x) => branches(x))) if (s.description) return s.description;
  return null;
}

/** A value to insert for a field: its default, its first allowed constant, or an empty one of its type. */
export function skeleton(schema: JsonSchema): { text: string; cursor: number } {
  const all = branches(schema);
  if (schema.default !== undefined) {
    const text = JSON.stringify(schema.default);
    if (typeof schema.default === 'string') return { text, cursor: text.length - 1 };
    return { text, cursor: text.length };
  }
  const constant = all.find((b) => b.const !== undefined);
  if (constant) {
    const text = JSON.stringify(constant.const);
    return { text, cursor: typeof constant.const === 'string' ? text.length - 1 : text.length };
  }
  const types = all.flatMap(typesOf);
  if (types.includes('object')) return { text: '{}', cursor: 1 };
  if (types.includes('array')) return { text: '[]', cursor: 1 };
  if (types.includes('string')) return { text: '""', cursor: 1 };
  if (types.includes('boolean')) return { text: 'false', cursor: 5 };
  if (types.includes('integer') || types.includes('number')) return { text: '0', cursor: 1 };
  return { text: 'null', cursor: 4 };
}

function firstLine(text: string | undefined): string | undefined {
  if (!text) return undefined;
  return text.length > 140 ? `${text.slice(0, 137)}…` : text;
}

function matches(label: string, prefix: string): number {
  if (!prefix) return 1;
  const l = label.toLowerCase();
  const p = prefix.toLowerCase();
  if (l.startsWith(p)) return 2;
  if (l.includes(p)) return 1;
  return 0;
}

/** The keys that may go where the cursor is (not those the object has), best matches first. */
export function keyCompletions(root: unknown, ctx: CursorContext): Completion[] {
  const seen = new Set(ctx.existingKeys);
  const out: (Completion & { score: number; order: number })[] = [];
  let order = 0;
  for (const s of schemasAt(root, ctx.path)) {
    for (const [key, sub] of Object.entries(s.properties ?? {})) {
      if (seen.has(key)) continue;
      if (out.some((c) => c.label === key)) continue;
      const score = matches(key, ctx.prefix);
      if (score === 0) continue;
      const quoted = JSON.stringify(key);
      let insert: string;
      let cursor: number;
      if (ctx.colonFollows) {
        insert = quoted;
        cursor = insert.length;
      } else {
        const value = skeleton(sub);
        insert = `${quoted}: ${value.text}`;
        cursor = quoted.length + 2 + value.cursor;
        if (ctx.moreFollows) insert += ',';
      }
      out.push({
        label: key,
        detail: firstLine(sub.description ?? branches(sub).find((b) => b.description)?.description),
        kind: 'key',
        required: s.required?.includes(key) ?? false,
        insert,
        cursor,
        commaAt: ctx.commaAt,
        score,
        order: order++,
      });
    }
  }
  return out
    .sort((a, b) => b.score - a.score || Number(b.required) - Number(a.required) || a.order - b.order)
    .map(({ score: _s, order: _o, ...c }) => c);
}

/** The values the field at the cursor takes: its constants, enum, booleans, default, or an empty container. */
export function valueCompletions(root: unknown, ctx: CursorContext): Completion[] {
  const out: Completion[] = [];
  const add = (text: string, cursor: number, detail?: string) => {
    if (out.some((c) => c.insert === text || c.insert === `${text},`)) return;
    const label = text;
    if (matches(label.replace(/^"/, ''), ctx.prefix) === 0) return;
    out.push({
      label,
      detail,
      kind: 'value',
      insert: ctx.moreFollows ? `${text},` : text,
      cursor,
      commaAt: null,
    });
  };
  const schemas = schemasAt(root, ctx.path);
  for (const s of schemas) {
    if (s.const !== undefined) {
      const t = JSON.stringify(s.const);
      add(t, t.length, firstLine(s.description));
    }
    for (const e of s.enum ?? []) {
      const t = JSON.stringify(e);
      add(t, t.length);
    }
  }
  for (const s of schemas) {
    if (s.default !== undefined) {
      const t = JSON.stringify(s.default);
      add(t, t.length, 'default');
    }
    for (const type of typesOf(s)) {
      if (type === 'boolean') {
        add('true', 4);
        add('false', 5);
      } else if (type === 'object' && s.const === undefined) add('{}', 1, firstLine(s.description));
      else if (type === 'array') add('[]', 1, firstLine(s.description));
    }
  }
  return out;
}

/** Completions for the cursor's context (keys or values). */
export function completionsAt(root: unknown, ctx: CursorContext): Completion[] {
  if (ctx.mode === 'key') return keyCompletions(root, ctx);
  if (ctx.mode === 'value') return valueCompletions(root, ctx);
  return [];
}
