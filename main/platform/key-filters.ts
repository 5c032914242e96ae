/**
 * ThingsBoard's key filter predicates (STRING, NUMERIC, BOOLEAN, COMPLEX), checked once against the
 * query and then evaluated against an entity's values (as text, the way the entity query answers them).
 */
import type { KeyFilter } from '../../shared/schemas/entity-query.ts';
import { badRequestParams } from './errors.ts';

const STRING_OPS = [
  'EQUAL',
  'NOT_EQUAL',
  'STARTS_WITH',
  'ENDS_WITH',
  'CONTAINS',
  'NOT_CONTAINS',
  'IN',
  'NOT_IN',
];
const NUMERIC_OPS = ['EQUAL', 'NOT_EQUAL', 'GREATER', 'LESS', 'GREATER_OR_EQUAL', 'LESS_OR_EQUAL'];
const BOOLEAN_OPS = ['EQUAL', 'NOT_EQUAL'];
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
  const need = (ops: string[]) => {
    if (!op || !ops.includes(op)) throw badRequestParams(`${path}.operation: one of ${ops.join(', ')}`);
    return op;
  };
  const given = p.value?.defaultValue;
  switch (p.type) {
    case 'STRING': {
      const operation = need(STRING_OPS);
      if (given === undefined || given === null)
        throw badRequestParams(`${path}.value.defaultValue is required`);
      const ignoreCase = p.ignoreCase === true;
      const norm = (s: string) => (ignoreCase ? s.toLowerCase() : s);
      const target = norm(String(given));
      const list = target.split(',').map((s) => s.trim());
      return (value) => {
        if (value === undefined) return false;
        const v = norm(value);
        switch (operation) {
          case 'EQUAL':
            return v === target;
          case 'NOT_EQUAL':
            return v !== target;
          case 'STARTS_WITH':
            return v.startsWith(target);
          case 'ENDS_WITH':
            return v.endsWith(target);
          case 'CONTAINS':
            return v.includes(target);
          case 'NOT_CONTAINS':
            return !v.includes(target);
          case 'IN':
            return list.includes(v);
          default:
            return !list.includes(v);
        }
      };
    }
    case 'NUMERIC': {
      const operation = need(NUMERIC_OPS);
      const target = Number(given);
      if (given === undefined || given === null || given === '' || !Number.isFinite(target)) {
        throw badRequestParams(`${path}.value.defaultValue must be a number`);
      }
      return (value) => {
        if (value === undefined || value === '') return false;
        const v = Number(value);
        if (!Number.isFinite(v)) return false;
        switch (operation) {
          case 'EQUAL':
            return v === target;
          case 'NOT_EQUAL':
            return v !== target;
          case 'GREATER':
            return v > target;
          case 'LESS':
            return v < target;
          case 'GREATER_OR_EQUAL':
            return v >= target;
          default:
            return v <= target;
        }
      };
    }
    case 'BOOLEAN': {
      const operation = need(BOOLEAN_OPS);
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
      const operation = need(['AND', 'OR']);
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
