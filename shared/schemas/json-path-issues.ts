/**
 * The pieces of a validator whose messages name the JSON path of each bad value, in plain words
 * ("mapping[0].converter.type: must be a string"), shared by rest.json's and the scenario file's
 * validators. Each walks its own schema (they differ in what an unknown key or a union means).
 */
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';

export interface JsonPathIssue {
  /** JSON path such as mapping[0].converter.timeseries[1].type ('' is the whole document) */
  path: string;
  message: string;
}

/** The parts of a TypeBox schema a validator walks. */
export type SchemaNode = {
  type?: string;
  anyOf?: SchemaNode[];
  properties?: Record<string, SchemaNode>;
  required?: string[];
  items?: SchemaNode;
  additionalProperties?: boolean | SchemaNode;
  patternProperties?: Record<string, SchemaNode>;
  const?: unknown;
};

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** path.key, path[3], or path["odd key"]. */
export function joinPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (!/^[A-Za-z_$][\w$]*$/.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path ? `${path}.${key}` : key;
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** What one branch of a union asks for: its constant, or "a string", "an object"... */
export function describeBranch(b: SchemaNode): string {
  if (b.const !== undefined) return JSON.stringify(b.const);
  return typeof b.type === 'string' ? article(b.type) : 'a valid value';
}

/** "a", "a or b", "a, b or c" */
export function oneOf(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/** Value.Check without its type guard (it would narrow `unknown` to never in the callers). */
export const valid = (schema: SchemaNode, value: unknown): boolean => Value.Check(schema as TSchema, value);

/** TypeBox's own errors about the value itself (not its members), in plain words. */
export function ownErrors(schema: SchemaNode, value: unknown, path: string): JsonPathIssue[] {
  const issues: JsonPathIssue[] = [];
  for (const e of Value.Errors(schema as TSchema, value)) {
    if (e.instancePath !== '' || e.keyword === 'required' || e.keyword === 'additionalProperties') continue;
    if (e.keyword === 'boolean' || e.keyword === 'anyOf') continue;
    const params = e.params as Record<string, unknown>;
    const message =
      e.keyword === 'type' && typeof params.type === 'string' ? `must be ${article(params.type)}` : e.message;
    issues.push({ path, message });
    if (e.keyword === 'type') break;
  }
  return issues;
}

/** Explains a value that fits none of a union's branches; undefined leaves it to the default words. */
export type UnionExplainer = (
  schema: SchemaNode,
  value: unknown,
  path: string,
  explain: (schema: SchemaNode, value: unknown, path: string) => JsonPathIssue[],
) => JsonPathIssue[] | undefined;

/**
 * A schema's problems with a value, each naming its JSON path: required and unknown keys, members of
 * objects and arrays, and the value's own type and bounds. Unions are named by their branches, unless
 * `union` explains them better (a branch picked by a `kind`).
 */
export function schemaIssues(
  schema: SchemaNode,
  value: unknown,
  path: string,
  union?: UnionExplainer,
): JsonPathIssue[] {
  const explain = (s: SchemaNode, v: unknown, p: string) => schemaIssues(s, v, p, union);
  if (valid(schema, value)) return [];
  if (schema.anyOf)
    return (
      union?.(schema, value, path, explain) ?? [
        { path, message: `must be ${oneOf(schema.anyOf.map(describeBranch))}` },
      ]
    );
  const own = ownErrors(schema, value, path);
  if (schema.type === 'object' && isRecord(value)) {
    const issues = [...own];
    for (const key of schema.required ?? [])
      if (value[key] === undefined) issues.push({ path: joinPath(path, key), message: 'is required' });
    for (const [key, v] of Object.entries(value)) {
      const sub =
        schema.properties?.[key] ??
        Object.values(schema.patternProperties ?? {})[0] ??
        (isRecord(schema.additionalProperties) ? schema.additionalProperties : undefined);
      if (sub) issues.push(...explain(sub, v, joinPath(path, key)));
      else if (schema.additionalProperties === false)
        issues.push({ path: joinPath(path, key), message: 'is not allowed here' });
    }
    return issues;
  }
  if (schema.type === 'array' && Array.isArray(value) && schema.items) {
    const issues = [...own];
    value.forEach((item, i) => issues.push(...explain(schema.items!, item, joinPath(path, i))));
    return issues;
  }
  return own.length ? own : [{ path, message: 'is not valid' }];
}
