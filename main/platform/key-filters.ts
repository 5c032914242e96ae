/**
 * ThingsBoard's key filter predicates (STRING, NUMERIC, BOOLEAN, COMPLEX), checked once against the
 * query and then evaluated against an entity's values (as text, the way the entity query answers them).
 */
import type { KeyFilter } from '../../shared/schemas/entity-query.ts';
import {
  BOOLEAN_OPERATIONS,
  COMPLEX_OPERATIONS,
  NUMERIC_OPERATIONS,
  STRING_OPERATIONS,
  type NumericOperation,
  type StringOperation,
} from '../../shared/schemas/device-profile-alarms.ts';
import { numericHolds, stringHolds } from '../../shared/predicate-operations.ts';
import { badRequestParams } from './errors.ts';

const MAX_DEPTH = 8;

/** A checked predicate: evaluates a value (undefined when the entity has none). */
export type Predicate = (value: string | undefined) => boolean;

interface RawPredicate {
  type?: unknown;
  operation?: unknown;
  value?: { defaultValue?: unknown } | null;
  ignoreCase?: unknown;
  predicates?: unknown;
}

/** Compiles a key filter's predicate, or throws a 400 naming the path of what is wrong. */
export function compilePredicate(raw: unknown, path: string, depth = 0): Predicate {
  if (depth > MAX_DEPTH) throw badRequestParams(`${path}: predicates nest deeper than ${MAX_DEPTH} levels`);
  if (!raw || typeof raw !== 'object') throw badRequestParams(`${path}: must be an object`);
  const p = raw as RawPredicate;
  const op = typeof p.operation === 'string' ? p.operation : undefined;
  const need = <T extends string>(ops: readonly T[]): T => {
    if (!op || !(ops as readonly string[]).includes(op))
      throw badRequestParams(`${path}.operation: one of ${ops.join(', ')}`);
    return op as T;
  };
  const given = p.value?.defaultValue;
  switch (p.type) {
    case 'STRING': {
      const operation: StringOperation = need(STRING_OPERATIONS);
      if (given === undefined || given === null)
        throw badRequestParams(`${path}.value.defaultValue is required`);
      const ignoreCase = p.ignoreCase === true;
      const norm = (s: string) => (ignoreCase ? s.toLowerCase() : s);
      const target = norm(String(given));
      const list = target.split(',').map((s) => s.trim());
      return (value) => {
        if (value === undefined) return false;
        return stringHolds(operation, norm(value), target, () => list);
      };
    }
    case 'NUMERIC': {
      const operation: NumericOperation = need(NUMERIC_OPERATIONS);
      const target = Number(given);
      if (given === undefined || given === null || given === '' || !Number.isFinite(target)) {
        throw badRequestParams(`${path}.value.defaultValue must be a number`);
      }
      return (value) => {
        if (value === undefined || value === '') return false;
        const v = Number(value);
        return Number.isFinite(v) && numericHolds(operation, v, target);
      };
    }
    case 'BOOLEAN': {
      const operation = need(BOOLEAN_OPERATIONS);
      if (typeof given !== 'boolean' && given !== 'true' && given !== 'false') {
        throw badRequestParams(`${path}.value.defaultValue must be true or false`);
      }
      const target = String(given) === 'true';
      return (value) => {
        if (value === undefined || (value !== 'true' && value !== 'false')) return false;
        return operation === 'EQUAL' ? (value === 'true') === target : (value === 'true') !== target;
      };
    }
    case 'COMPLEX': {
      const operation = need(COMPLEX_OPERATIONS);
      if (!Array.isArray(p.predicates)) throw badRequestParams(`${path}.predicates must be an array`);
      const parts = p.predicates.map((q, i) => compilePredicate(q, `${path}.predicates[${i}]`, depth + 1));
      return operation === 'AND' ? (v) => parts.every((f) => f(v)) : (v) => parts.some((f) => f(v));
    }
    default:
      throw badRequestParams(`${path}.type: one of STRING, NUMERIC, BOOLEAN, COMPLEX`);
  }
}

export interface CompiledKeyFilter {
  key: KeyFilter['key'];
  test: Predicate;
}

export function compileKeyFilters(filters: KeyFilter[] | null | undefined): CompiledKeyFilter[] {
  return (filters ?? []).map((f, i) => ({
    key: f.key,
    test: compilePredicate(f.predicate, `keyFilters[${i}].predicate`),
  }));
}
