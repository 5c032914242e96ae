import type { SqlValue } from 'sql.js';
import { jsonTooDeep, tooDeepMessage } from '../../shared/limits.ts';
import { invalidArgument } from './errors.ts';

/** How a telemetry or attribute value is kept: t is b(oolean), l(ong), d(ouble), s(tring) or j(son). */
export type KvType = 'b' | 'l' | 'd' | 's' | 'j';
export type KvValue = string | number | boolean | object | null;

export function encodeKv(value: unknown): { t: KvType; v: string | number } {
  switch (typeof value) {
    case 'boolean':
      return { t: 'b', v: value ? 1 : 0 };
    case 'number':
      if (Number.isSafeInteger(value)) return { t: 'l', v: value };
      // NaN and Infinity have no JSON form, so the journal could not replay them: keep them as text.
      return Number.isFinite(value) ? { t: 'd', v: value } : { t: 's', v: String(value) };
    case 'string':
      return { t: 's', v: value };
    case 'bigint':
      return { t: 's', v: value.toString() };
    default:
      return { t: 'j', v: jsonText(value ?? null) };
  }
}

/** JSON text of a value, refused (400) rather than overflowing the stack when it nests too deep. */
export function jsonText(value: unknown): string {
  const deep = jsonTooDeep(value, 'value');
  if (deep) throw invalidArgument(tooDeepMessage(deep));
  return JSON.stringify(value);
}

export function decodeKv(t: string, v: SqlValue): KvValue {
  switch (t) {
    case 'b':
      return v === 1;
    case 'l':
    case 'd':
      return Number(v);
    case 'j':
      return JSON.parse(String(v)) as KvValue;
    default:
      return v === null ? null : String(v);
  }
}

/** ThingsBoard's REST answers carry telemetry values as strings unless strict data types are asked for. */
export function kvAsString(t: string, v: SqlValue): string {
  if (t === 'b') return v === 1 ? 'true' : 'false';
  return String(v);
}
