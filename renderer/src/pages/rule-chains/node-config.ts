/**
 * Rule node configuration forms, generated from the TypeBox schema of each node type
 * (shared/rule-node-schemas.ts): a union of literals becomes a dropdown, a boolean a switch, an integer a
 * number input. Validation is TypeBox's own (Value.Check / Value.Errors), in words a person can act on.
 */

import '../../components/typebox-csp.ts';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../../shared/rule-node-schemas.ts';

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  const?: unknown;
  title?: string;
  description?: string;
  additionalProperties?: boolean | JsonSchema;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
}

export type FieldKind =
  'enum' | 'enumList' | 'stringList' | 'boolean' | 'integer' | 'number' | 'string' | 'json';

export interface FieldSpec {
  key: string;
  label: string;
  description?: string;
  required: boolean;
  kind: FieldKind;
  options?: string[];
  min?: number;
  max?: number;
}

export interface ConfigProblems {
  /** problem per configuration key */
  fields: Record<string, string>;
  /** problems of the configuration as a whole (a property that is not allowed) */
  general: string[];
}

export function configSchema(nodeType: string): TSchema | undefined {
  return RULE_NODE_CONFIGURATION_SCHEMAS[nodeType];
}

/** "timeoutInSeconds" → "Timeout in seconds" */
function humanize(key: string): string {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const constants = (s: JsonSchema | undefined) =>
  s?.anyOf && s.anyOf.length > 0 && s.anyOf.every((b) => b.const !== undefined)
    ? s.anyOf.map((b) => String(b.const))
    : undefined;

function kindOf(s: JsonSchema): { kind: FieldKind; options?: string[] } {
  // a nullable value (anyOf [x, null]) is edited as x
  const nonNull = s.anyOf?.filter((b) => b.type !== 'null');
  if (nonNull && nonNull.length === 1 && s.anyOf!.length === 2) return kindOf(nonNull[0]!);
  const options = constants(s);
  if (options) return { kind: 'enum', options };
  if (s.type === 'array') {
    const items = constants(s.items);
    if (items) return { kind: 'enumList', options: items };
    if (s.items?.type === 'string') return { kind: 'stringList' };
  }
  if (s.type === 'boolean') return { kind: 'boolean' };
  if (s.type === 'integer') return { kind: 'integer' };
  if (s.type === 'number') return { kind: 'number' };
  if (s.type === 'string') return { kind: 'string' };
  return { kind: 'json' };
}

/** The form's fields, in the schema's order. */
export function fieldsOf(schema: TSchema): FieldSpec[] {
  const s = schema as unknown as JsonSchema;
  const required = new Set(s.required ?? []);
  return Object.entries(s.properties ?? {}).map(([key, prop]) => ({
    key,
    label: prop.title ?? prop.anyOf?.find((b) => b.title)?.title ?? humanize(key),
    description: prop.description ?? prop.anyOf?.find((b) => b.description)?.description,
    required: required.has(key),
    min: prop.minimum,
    max: prop.maximum,
    ...kindOf(prop),
  }));
}

/** Whether the schema refuses properties it does not name. */
export function isClosed(schema: TSchema): boolean {
  return (schema as unknown as JsonSchema).additionalProperties === false;
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** What is wrong with a configuration, per field; empty when it is valid. */
export function configProblems(schema: TSchema, configuration: unknown): ConfigProblems {
  const problems: ConfigProblems = { fields: {}, general: [] };
  if (Value.Check(schema, configuration)) return problems;
  const props = (schema as unknown as JsonSchema).properties ?? {};
  for (const e of Value.Errors(schema, configuration)) {
    const params = e.params as Record<string, unknown>;
    if (e.keyword === 'const' || e.keyword === 'boolean') continue;
    if (e.instancePath === '') {
      if (e.keyword === 'required') {
        for (const key of (params.requiredProperties as string[] | undefined) ?? [])
          problems.fields[key] ??= 'is required';
      } else if (e.keyword === 'additionalProperties') {
        for (const key of (params.additionalProperties as string[] | undefined) ?? [])
          problems.general.push(`'${key}' is not allowed here`);
      } else if (e.keyword === 'type') {
        problems.general.push('must be a JSON object');
      } else problems.general.push(e.message);
      continue;
    }
    const key = decodeURIComponent(e.instancePath.split('/')[1] ?? '');
    if (problems.fields[key]) continue;
    const prop = props[key];
    if (e.keyword === 'anyOf' && prop) {
      const { options } = kindOf(prop);
      problems.fields[key] = options ? `must be one of ${options.join(', ')}` : 'is not valid';
    } else if (e.keyword === 'type' && typeof params.type === 'string') {
      problems.fields[key] = `must be ${article(params.type)}`;
    } else {
      problems.fields[key] = e.message;
    }
  }
  return problems;
}

export function problemCount(p: ConfigProblems): number {
  return Object.keys(p.fields).length + p.general.length;
}

/** Every problem as a line: "scope: is required". */
export function problemLines(p: ConfigProblems): string[] {
  return [...Object.entries(p.fields).map(([k, m]) => `${k}: ${m}`), ...p.general];
}
