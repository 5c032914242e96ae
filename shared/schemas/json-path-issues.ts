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
