/**
 * A value an alarm condition reads (ThingsBoard's EntityKeyValue): a telemetry or attribute value with its
 * type, and the conversions its predicates apply (a string "25" compares as a number, a number > 0 as true).
 */
export type KeyValue =
  | { type: 'LONG' | 'DOUBLE'; value: number }
  | { type: 'BOOLEAN'; value: boolean }
  | { type: 'STRING' | 'JSON'; value: string };

/** A value as a message or the store holds it (JSON), typed as ThingsBoard types it; null for null. */
export function keyValueOf(v: unknown): KeyValue | null {
  switch (typeof v) {
    case 'number':
      if (!Number.isFinite(v)) return { type: 'STRING', value: String(v) };
      return { type: Number.isSafeInteger(v) ? 'LONG' : 'DOUBLE', value: v };
    case 'boolean':
      return { type: 'BOOLEAN', value: v };
    case 'string':
      return { type: 'STRING', value: v };
    case 'bigint':
      return { type: 'STRING', value: v.toString() };
    case 'object':
      return v === null ? null : { type: 'JSON', value: JSON.stringify(v) };
    default:
      return null;
  }
}

export function sameValue(a: KeyValue, b: KeyValue): boolean {
  return a.type === b.type && a.value === b.value;
}

/** Java's Double.parseDouble (surrounding blanks allowed, a d / f suffix too). */
function parseDouble(text: string): number | null {
  const t = text.trim();
  if (t === '') return null;
  const n = Number(t.replace(/[dDfF]$/, ''));
  return Number.isNaN(n) && t !== 'NaN' ? null : n;
}

/** Java's Long.parseLong: digits with an optional sign, nothing else. */
function parseLong(text: string): number | null {
  return /^[+-]?\d{1,19}$/.test(text) ? Number(text) : null;
}

export function asDouble(kv: KeyValue): number | null {
  switch (kv.type) {
    case 'LONG':
    case 'DOUBLE':
      return kv.value;
    case 'BOOLEAN':
      return kv.value ? 1 : 0;
    default:
      return parseDouble(kv.value);
  }
}

export function asLong(kv: KeyValue): number | null {
  switch (kv.type) {
    case 'LONG':
      return kv.value;
    case 'DOUBLE':
      return Math.trunc(kv.value);
    case 'BOOLEAN':
      return kv.value ? 1 : 0;
    default:
      return parseLong(kv.value);
  }
}

export function asBoolean(kv: KeyValue): boolean {
  switch (kv.type) {
    case 'LONG':
    case 'DOUBLE':
      return kv.value > 0;
    case 'BOOLEAN':
      return kv.value;
    default:
      // Java's Boolean.parseBoolean: "true" in any case, anything else false
      return kv.value.toLowerCase() === 'true';
  }
}

/** Java's Double.toString for the values a double takes here: 25.0, 25.5, 1.0E21. */
function javaDouble(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e7) return `${n}.0`;
  const abs = Math.abs(n);
  if (abs !== 0 && (abs >= 1e7 || abs < 1e-3)) {
    const [m, e] = n.toExponential().split('e');
    return `${m!.includes('.') ? m : `${m}.0`}E${Number(e)}`;
  }
  return String(n);
}

export function asString(kv: KeyValue): string {
  switch (kv.type) {
    case 'LONG':
      return String(kv.value);
    case 'DOUBLE':
      return javaDouble(kv.value);
    case 'BOOLEAN':
      return kv.value ? 'true' : 'false';
    default:
      return kv.value;
  }
}
