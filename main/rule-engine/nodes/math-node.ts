import { MATH_FUNCTIONS, RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import type { AttributeScope } from '../../../shared/schemas/telemetry.ts';
import type { TbMsg } from '../../platform/tb-msg.ts';
import { schemaValidator } from '../config-schema.ts';
import { attributeValues, entityExists, latestValues } from '../entity-data.ts';
import { compileMathExpression } from '../math-expression.ts';
import { processPattern } from '../msg-patterns.ts';
import { success, type NodeDefinition, type RuleEnv } from '../rule-node.ts';
import { PerOriginator } from '../per-originator.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.math]!;

interface Argument {
  name?: string | null;
  type: 'ATTRIBUTE' | 'TIME_SERIES' | 'MESSAGE_BODY' | 'MESSAGE_METADATA' | 'CONSTANT';
  key?: string | null;
  attributeScope?: string | null;
  defaultValue?: number | null;
}

interface Result {
  type: Argument['type'];
  key?: string | null;
  resultValuePrecision?: number;
  addToBody?: boolean;
  addToMetadata?: boolean;
  attributeScope?: string | null;
}

type Fn = (a: number, b: number) => number;
const ONE: Record<string, (x: number) => number> = {
  SIN: Math.sin,
  SINH: Math.sinh,
  COS: Math.cos,
  COSH: Math.cosh,
  TAN: Math.tan,
  TANH: Math.tanh,
  ACOS: Math.acos,
  ASIN: Math.asin,
  ATAN: Math.atan,
  EXP: Math.exp,
  EXPM1: Math.expm1,
  SQRT: Math.sqrt,
  CBRT: Math.cbrt,
  GET_EXP: (x) =>
    x === 0 || !Number.isFinite(x) ? (x === 0 ? -1023 : 1024) : Math.floor(Math.log2(Math.abs(x))),
  LOG: Math.log,
  LOG10: Math.log10,
  LOG1P: Math.log1p,
  CEIL: Math.ceil,
  FLOOR: Math.floor,
  ABS: Math.abs,
  SIGNUM: Math.sign,
  RAD: (x) => (x * Math.PI) / 180,
  DEG: (x) => (x * 180) / Math.PI,
};
const TWO: Record<string, Fn> = {
  ADD: (a, b) => a + b,
  SUB: (a, b) => a - b,
  MULT: (a, b) => a * b,
  DIV: (a, b) => a / b,
  ATAN2: Math.atan2,
  HYPOT: Math.hypot,
  FLOOR_DIV: (a, b) => {
    if (Math.trunc(b) === 0) throw new Error('/ by zero');
    return Math.floor(Math.trunc(a) / Math.trunc(b));
  },
  FLOOR_MOD: (a, b) => {
    const x = Math.trunc(a);
    const y = Math.trunc(b);
    if (y === 0) throw new Error('/ by zero');
    return ((x % y) + y) % y;
  },
  MIN: Math.min,
  MAX: Math.max,
  POW: Math.pow,
};
const INTEGER_RESULT = new Set(['GET_EXP', 'CEIL', 'FLOOR']);

function argCount(op: string): [number, number] {
  if (op === 'CUSTOM') return [0, 16];
  return TWO[op] ? [2, 2] : [1, 1];
}

function parseNumber(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new Error(`Can't convert value '${text}' to double!`);
  return n;
}

function orDefault(arg: Argument, error: string): number {
  if (arg.defaultValue !== undefined && arg.defaultValue !== null) return arg.defaultValue;
  throw new Error(error);
}

function scopeOf(scope: string | null | undefined): AttributeScope {
  return (scope ? scope : 'SERVER_SCOPE') as AttributeScope;
}

function argumentValue(
  env: RuleEnv,
  msg: TbMsg,
  body: Record<string, unknown> | null,
  arg: Argument,
): number {
  const key = arg.type === 'CONSTANT' ? String(arg.key ?? '') : processPattern(String(arg.key ?? ''), msg);
  switch (arg.type) {
    case 'CONSTANT':
      return parseNumber(key);
    case 'MESSAGE_BODY': {
      if (!body) return orDefault(arg, 'Message body is empty!');
      if (!Object.hasOwn(body, key)) return orDefault(arg, `Message body has no '${key}'!`);
      const v = body[key];
      if (v === null) return orDefault(arg, `Message body has null '${key}'!`);
      if (typeof v === 'number') return v;
      if (typeof v === 'string')
        return v.trim() === '' ? orDefault(arg, `Message value is empty for '${key}'!`) : parseNumber(v);
      throw new Error(`Can't convert value '${JSON.stringify(v)}' to double!`);
    }
    case 'MESSAGE_METADATA': {
      const v = msg.metadata[key];
      if (v === undefined || v === '') return orDefault(arg, `Message metadata has no '${key}'!`);
      return parseNumber(v);
    }
    case 'ATTRIBUTE': {
      const scope = scopeOf(arg.attributeScope);
      const found = attributeValues(env.services, msg.originator.id, scope, [key]).get(key);
      if (found === undefined)
        return orDefault(
          arg,
          `Attribute: ${key} with scope: ${scope} not found for entity: ${msg.originator.entityType} ${msg.originator.id}`,
        );
      return typeof found === 'number' ? found : parseNumber(String(found));
    }
    case 'TIME_SERIES': {
      const found = latestValues(env.services, msg.originator, [key]).get(key);
      if (found === undefined)
        return orDefault(
          arg,
          `Time-series: ${key} not found for entity: ${msg.originator.entityType} ${msg.originator.id}`,
        );
      return typeof found.value === 'number' ? found.value : parseNumber(String(found.value));
    }
  }
}

/** Java's BigDecimal HALF_UP to the given decimals. */
function roundHalfUp(value: number, decimals: number): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** decimals;
  return (Math.sign(value) * Math.round(Math.abs(value) * f + 1e-9)) / f;
}

/**
 * Applies a math function (or a CUSTOM formula) to arguments from constants, the message, its metadata,
 * attributes or latest time series, and puts the result into the message, its metadata, an attribute or a
 * time series. Messages of one originator are handled one at a time.
 */
export const mathNode: NodeDefinition = {
  type: NODE_TYPES.math,
  label: 'Math Function',
  componentType: 'ACTION',
  description: 'Apply math function and save the result into the message and/or database',
  relations: ['Success', 'Failure'],
  defaultConfiguration: {
    operation: 'CUSTOM',
    customFunction: '(x - 32) / 1.8',
    arguments: [{ name: 'x', type: 'MESSAGE_BODY', key: 'temperature' }],
    result: {
      type: 'MESSAGE_BODY',
      key: 'temperatureCelsius',
      resultValuePrecision: 2,
      addToBody: false,
      addToMetadata: false,
      attributeScope: null,
    },
  },
  configurationSchema: schema,
  validate: (config) => {
    const problem = schemaValidator(schema)(config);
    if (problem) return problem;
    if (
      config.operation === 'CUSTOM' &&
      typeof config.customFunction === 'string' &&
      config.customFunction.trim()
    ) {
      const names = ((config.arguments as Argument[] | undefined) ?? []).map((a) => a.name ?? '');
      try {
        compileMathExpression(config.customFunction, names);
      } catch (err) {
        return `'customFunction' ${(err as Error).message}`;
      }
    }
    return null;
  },
  create: (config, env) => {
    const op = String(config.operation ?? '');
    if (!(MATH_FUNCTIONS as readonly string[]).includes(op))
      throw new Error(`Not supported operation: ${op}`);
    const args = (config.arguments as Argument[] | undefined) ?? [];
    const [min, max] = argCount(op);
    if (args.length < min || args.length > max)
      throw new Error(`Args count: ${args.length} does not match operation: ${op}`);
    const result = config.result as Result | undefined;
    if (!result) throw new Error('Result should be specified!');
    let formula: ReturnType<typeof compileMathExpression> | null = null;
    if (op === 'CUSTOM') {
      const text = String(config.customFunction ?? '');
      if (!text.trim()) throw new Error('Custom function is blank!');
      if (text.length > 256) throw new Error('Custom function is too complex (length > 256)!');
      formula = compileMathExpression(
        text,
        args.map((a) => a.name ?? ''),
      );
    }
    const needsBody = args.some((a) => a.type === 'MESSAGE_BODY') || result.type === 'MESSAGE_BODY';
    const precision = result.resultValuePrecision ?? 0;
    const integer = INTEGER_RESULT.has(op) || precision === 0;
    const shape = (v: number) => (integer ? Math.trunc(v) : roundHalfUp(v, precision));
    const queue = new PerOriginator();
    return {
      process: (msg) =>
        queue.run(msg.originator.id, async () => {
          let body: Record<string, unknown> | null = null;
          if (needsBody) {
            if (msg.data === null || typeof msg.data !== 'object' || Array.isArray(msg.data))
              throw new Error('Message body is not a JSON object!');
            body = { ...(msg.data as Record<string, unknown>) };
          }
          const values = args.map((a) => argumentValue(env, msg, body, a));
          let value: number;
          if (formula) {
            const vars: Record<string, number> = {};
            args.forEach((a, i) => (vars[a.name ?? ''] = values[i]!));
            value = formula.evaluate(vars);
          } else if (TWO[op]) value = TWO[op](values[0]!, values[1]!);
          else value = ONE[op]!(values[0]!);
          const key = processPattern(String(result.key ?? ''), msg);
          if (!Number.isFinite(value)) throw new Error(`The result is not a finite number (${value})`);
          const shaped = shape(value);
          let out: TbMsg = msg;
          const toBody = () => {
            body![key] = shaped;
            out = { ...out, data: body };
          };
          const toMeta = () => {
            out = {
              ...out,
              metadata: { ...out.metadata, [key]: integer ? String(shaped) : javaDouble(shaped) },
            };
          };
          switch (result.type) {
            case 'MESSAGE_BODY':
              toBody();
              break;
            case 'MESSAGE_METADATA':
              toMeta();
              break;
            case 'ATTRIBUTE':
              await env.services.telemetry.saveAttributes(msg.originator.id, scopeOf(result.attributeScope), {
                [String(result.key)]: shaped,
              });
              break;
            case 'TIME_SERIES': {
              const { entityType, id } = msg.originator;
              if (!entityExists(env.services, msg.originator))
                throw new Error(`${entityType} ${id} not found`);
              const num = env.services.directory.telemetryNum(entityType, id);
              await env.services.telemetry.saveTimeseries({ id, entityType, num }, [
                { ts: Date.now(), values: { [String(result.key)]: value } },
              ]);
              break;
            }
            default:
              throw new Error(`Result type is not supported: ${String(result.type)}!`);
          }
          if (result.type === 'ATTRIBUTE' || result.type === 'TIME_SERIES') {
            if (result.addToBody === true) {
              body ??=
                msg.data !== null && typeof msg.data === 'object' && !Array.isArray(msg.data)
                  ? { ...(msg.data as Record<string, unknown>) }
                  : null;
              if (!body) throw new Error('Message body is not a JSON object!');
              toBody();
            }
            if (result.addToMetadata === true) toMeta();
          }
          return success(out);
        }),
    };
  },
};

/** Java's Double.toString for the values a math result has: 21.5 -> "21.5", 21 -> "21.0". */
function javaDouble(v: number): string {
  return Number.isInteger(v) ? `${v}.0` : String(v);
}
