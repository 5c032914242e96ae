import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';

function pathOf(instancePath: string): string {
  let out = '';
  for (const part of instancePath.split('/').filter(Boolean)) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    out += /^\d+$/.test(key) ? `[${key}]` : out ? `.${key}` : key;
  }
  return out;
}

/**
 * The first problem of a node configuration against its schema, naming the field as ThingsBoard's JSON
 * names it ("'scope' must be one of CLIENT_SCOPE, SERVER_SCOPE, SHARED_SCOPE"); null when it fits.
 */
export function configurationProblem(schema: TSchema, configuration: unknown): string | null {
  if (Value.Check(schema, configuration)) return null;
  const errors = [...Value.Errors(schema, configuration)];
  const byPath = new Map<string, typeof errors>();
  for (const e of errors) byPath.set(e.instancePath, [...(byPath.get(e.instancePath) ?? []), e]);
  for (const [instancePath, list] of byPath) {
    const path = pathOf(instancePath);
    const required = list.find((e) => e.keyword === 'required');
    if (required) {
      const missing = (required.params as { requiredProperties?: string[] }).requiredProperties ?? [];
      return `'${[path, missing[0]].filter(Boolean).join('.')}' is required`;
    }
    const consts = list.filter((e) => e.keyword === 'const');
    if (consts.length > 0) {
      const allowed = consts.map((e) => String((e.params as { allowedValue?: unknown }).allowedValue));
      return `'${path}' must be one of ${allowed.join(', ')}`;
    }
    const first = list.find((e) => e.keyword !== 'anyOf') ?? list[0]!;
    return `'${path || 'configuration'}' ${first.message}`;
  }
  return 'configuration is invalid';
}

/** validate() of a node whose configuration is described by a schema. */
export const schemaValidator =
  (schema: TSchema) =>
  (configuration: Record<string, unknown>): string | null =>
    configurationProblem(schema, configuration);
