/**
 * What an alarm rule's condition reads and how it is judged, as ThingsBoard's AlarmRuleState does: the
 * device's latest values of the profile's keys (DataSnapshot), dynamic values from the device's, its
 * customer's or the tenant's attributes, and the key filters with their NUMERIC, STRING, BOOLEAN and
 * COMPLEX predicates.
 */
import type {
  AlarmCondition,
  ConditionFilter,
  ConditionKeyType,
  DynamicValue,
  KeyFilterPredicate,
} from '../../../shared/schemas/device-profile-alarms.ts';
import { numericHolds, stringHolds } from '../../../shared/predicate-operations.ts';
import { asBoolean, asDouble, asString, sameValue, type KeyValue } from './key-value.ts';

/** A condition key (type and name) as one string, for sets and maps. */
export const conditionKey = (type: ConditionKeyType, key: string): string => `${type}\u0000${key}`;

/** A condition key's type and name. */
export const splitConditionKey = (key: string): [ConditionKeyType, string] =>
  key.split('\u0000') as [ConditionKeyType, string];

/** The server attributes of the device's customer and of the tenant, read when a dynamic value asks. */
export interface DynamicSource {
  customerValue(key: string): KeyValue | null;
  tenantValue(key: string): KeyValue | null;
}

/** The device's latest values of the keys its profile's rules read, and the time of the last update. */
export class DataSnapshot {
  ts = 0;
  private readonly keys: Set<string>;
  private readonly values = new Map<string, KeyValue>();

  constructor(keys: Set<string>) {
    this.keys = keys;
  }

  /** Sets a value of a key the rules read; true when it is an update (a new time, or a new value). */
  putValue(key: string, ts: number, value: KeyValue): boolean {
    if (!this.keys.has(key)) return false;
    const old = this.values.get(key);
    this.values.set(key, value);
    if (this.ts !== ts) return true;
    return old === undefined || !sameValue(old, value);
  }

  getValue(key: string): KeyValue | undefined {
    return this.values.get(key);
  }

  removeValue(key: string): void {
    this.values.delete(key);
  }

  /** The keys the rules read now (after a profile change). */
  retarget(keys: Set<string>): void {
    for (const k of [...this.keys]) if (!keys.has(k)) this.keys.delete(k);
    for (const k of keys) this.keys.add(k);
  }
}

/** A dynamic value: the device's attribute, else (inherit) its customer's, else the tenant's. */
export function dynamicValueOf(
  data: DataSnapshot,
  dv: DynamicValue | null | undefined,
  source: DynamicSource,
): KeyValue | null {
  if (!dv || !dv.sourceType || !dv.sourceAttribute) return null;
  const attr = dv.sourceAttribute;
  // CURRENT_DEVICE falls back to the customer, the customer to the tenant, when inherit is set.
  const order = ['CURRENT_DEVICE', 'CURRENT_CUSTOMER', 'CURRENT_TENANT'];
  const from = order.indexOf(dv.sourceType);
  if (from < 0) return null;
  for (let i = from; i < order.length; i++) {
    const value =
      i === 0
        ? (data.getValue(conditionKey('ATTRIBUTE', attr)) ?? null)
        : i === 1
          ? source.customerValue(attr)
          : source.tenantValue(attr);
    if (value || !dv.inherit) return value;
  }
  return null;
}

function constantValue(filter: ConditionFilter): KeyValue | null {
  const raw = filter.value;
  if (raw === undefined || raw === null) return null;
  const text = String(raw);
  switch (filter.valueType) {
    case 'STRING':
      return { type: 'STRING', value: text };
    case 'DATE_TIME': {
      const n = Number(text);
      return Number.isFinite(n) ? { type: 'LONG', value: Math.trunc(n) } : null;
    }
    case 'NUMERIC': {
      const n = Number(text);
      return Number.isFinite(n) ? { type: 'DOUBLE', value: n } : null;
    }
    case 'BOOLEAN':
      return { type: 'BOOLEAN', value: text.toLowerCase() === 'true' };
    default:
      return null;
  }
}

/**
 * The predicate's operand: the dynamic value when it resolves, else the default (a CONSTANT key has no
 * default: it compares with the attribute alone).
 */
function operand<T>(
  data: DataSnapshot,
  pv: { defaultValue: T | null; dynamicValue?: DynamicValue | null },
  filter: ConditionFilter,
  source: DynamicSource,
  convert: (kv: KeyValue) => T | null,
): T | null {
  const dynamic = dynamicValueOf(data, pv.dynamicValue, source);
  if (dynamic) {
    const v = convert(dynamic);
    if (v !== null) return v;
  }
  return filter.key.type !== 'CONSTANT' ? pv.defaultValue : null;
}

/**
 * "a, b" → [a, b]; "'a', 'b'" → [a, b] (ThingsBoard's splitByCommaWithoutQuotes: the quotes come off
 * only when every item is quoted the same way).
 */
function listOf(text: string): string[] {
  const parts = text.trim().split(/\s*,\s*/);
  const out: string[] = [];
  let quote = '';
  for (const part of parts) {
    const first = part.charAt(0);
    if ((first !== "'" && first !== '"') || part.length < 2 || part.at(-1) !== first) return parts;
    if (quote && first !== quote) return parts;
    out.push(part.slice(1, -1));
    quote = first;
  }
  return out;
}

function evalPredicate(
  data: DataSnapshot,
  value: KeyValue,
  p: KeyFilterPredicate,
  filter: ConditionFilter,
  source: DynamicSource,
): boolean {
  switch (p.type) {
    case 'NUMERIC': {
      const v = asDouble(value);
      const target = operand(data, p.value, filter, source, asDouble);
      if (v === null || target === null) return false;
      return numericHolds(p.operation, v, target);
    }
    case 'STRING': {
      let v = asString(value);
      let target = operand(data, p.value, filter, source, asString);
      if (target === null) return false;
      if (p.ignoreCase) {
        v = v.toLowerCase();
        target = target.toLowerCase();
      }
      const t = target;
      return stringHolds(p.operation, v, t, () => listOf(t));
    }
    case 'BOOLEAN': {
      const v = asBoolean(value);
      const target = operand(data, p.value, filter, source, asBoolean);
      if (target === null) return false;
      return p.operation === 'EQUAL' ? v === target : v !== target;
    }
    case 'COMPLEX':
      return p.operation === 'OR'
        ? p.predicates.some((q) => evalPredicate(data, value, q, filter, source))
        : p.predicates.every((q) => evalPredicate(data, value, q, filter, source));
  }
}

/** Every key filter holds (a key without a value fails the condition). */
export function evalCondition(condition: AlarmCondition, data: DataSnapshot, source: DynamicSource): boolean {
  for (const filter of condition.condition) {
    const value =
      filter.key.type === 'CONSTANT'
        ? constantValue(filter)
        : (data.getValue(conditionKey(filter.key.type, filter.key.key)) ?? null);
    if (value === null) return false;
    if (!evalPredicate(data, value, filter.predicate, filter, source)) return false;
  }
  return true;
}
