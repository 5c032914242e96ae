import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Request parameters read the way Spring MVC (ThingsBoard) reads them, for every route, before schema
 * validation: ThingsBoard's clients send what Spring accepts (the Python client sends `True`).
 *
 * - booleans: `true/on/yes/1` and `false/off/no/0` in any case, trimmed (Spring's StringToBooleanConverter)
 * - numbers: trimmed; the schema's validator then converts them
 * - lists: repeated (`ids=a&ids=b`) and comma-separated (`ids=a,b`) alike, items trimmed, empty ones dropped
 * - a repeated single-valued parameter: strings joined with commas (`keys=a&keys=b` is `keys=a,b`), other
 *   types take the first value (Spring's array-to-object conversion)
 * - enumerations (sortOrder, ...): matched without regard to case
 * - an empty value of a boolean, number, list or formatted (uuid) parameter counts as absent
 * - parameters a route does not know are ignored (schemas allow additional properties)
 */
type Kind =
  | { type: 'boolean' }
  | { type: 'number' }
  | { type: 'string'; formatted: boolean }
  | { type: 'enum'; values: string[] }
  | { type: 'array'; items: Kind }
  | { type: 'other' };

interface SchemaNode {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  allOf?: SchemaNode[];
  items?: SchemaNode;
  format?: unknown;
  properties?: Record<string, SchemaNode>;
}

const TRUE = new Set(['true', 'on', 'yes', '1']);
const FALSE = new Set(['false', 'off', 'no', '0']);

function kindOf(schema: SchemaNode | undefined): Kind {
  if (!schema) return { type: 'other' };
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const literals = alternatives.map((s) => s.const).filter((c): c is string => typeof c === 'string');
    if (literals.length && literals.length === alternatives.length) return { type: 'enum', values: literals };
    const first = alternatives.map(kindOf).find((k) => k.type !== 'other');
    return first ?? { type: 'other' };
  }
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string'))
    return { type: 'enum', values: schema.enum };
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'boolean':
      return { type: 'boolean' };
    case 'integer':
    case 'number':
      return { type: 'number' };
    case 'string':
      return { type: 'string', formatted: typeof schema.format === 'string' };
    case 'array':
      return { type: 'array', items: kindOf(schema.items) };
    default:
      return { type: 'other' };
  }
}

/** The kind of each property of an object schema (TypeBox objects, intersections of them). */
function propertyKinds(schema: SchemaNode): Map<string, Kind> {
  const kinds = new Map<string, Kind>();
  const walk = (s: SchemaNode) => {
    for (const [name, prop] of Object.entries(s.properties ?? {})) kinds.set(name, kindOf(prop));
    for (const part of s.allOf ?? []) walk(part);
  };
  walk(schema);
  return kinds;
}

/** undefined: the parameter counts as absent. */
function convertScalar(raw: string, kind: Kind): unknown {
  switch (kind.type) {
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (v === '') return undefined;
      if (TRUE.has(v)) return true;
      if (FALSE.has(v)) return false;
      return raw; // left for the validator to refuse
    }
    case 'number': {
      const v = raw.trim();
      return v === '' ? undefined : v;
    }
    case 'string':
      return kind.formatted && raw.trim() === '' ? undefined : raw;
    case 'enum': {
      const v = raw.trim();
      return kind.values.find((e) => e.toLowerCase() === v.toLowerCase()) ?? raw;
    }
    default:
      return raw;
  }
}

function convert(value: unknown, kind: Kind): unknown {
  const values = Array.isArray(value) ? (value as unknown[]) : [value];
  if (!values.every((v) => typeof v === 'string')) return value;
  const strings = values as string[];
  if (kind.type === 'array') {
    const items = strings
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map((s) => convertScalar(s, kind.items))
      .filter((v) => v !== undefined);
    return items.length ? items : undefined;
  }
  if (kind.type === 'other') return value;
  if (strings.length > 1)
    return kind.type === 'string' ? strings.join(',') : convertScalar(strings[0]!, kind);
  return convertScalar(strings[0]!, kind);
}

const plans = new WeakMap<object, Map<string, Kind>>();

function planFor(schema: unknown): Map<string, Kind> | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  let plan = plans.get(schema);
  if (!plan) plans.set(schema, (plan = propertyKinds(schema as SchemaNode)));
  return plan;
}

function apply(target: unknown, schema: unknown): void {
  const plan = planFor(schema);
  if (!plan || !target || typeof target !== 'object') return;
  const record = target as Record<string, unknown>;
  for (const [name, kind] of plan) {
    if (!(name in record)) continue;
    const converted = convert(record[name], kind);
    if (converted === undefined) delete record[name];
    else record[name] = converted;
  }
}

/** Converts the query string and path parameters of every route before its schema validates them. */
export function installSpringParams(app: FastifyInstance): void {
  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    const schema = request.routeOptions.schema;
    if (schema) {
      apply(request.query, schema.querystring);
      apply(request.params, schema.params);
    }
    done();
  });
}
