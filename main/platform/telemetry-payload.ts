import { checkName, epochMsOf, MAX_EPOCH_MS } from '../../shared/limits.ts';
import type { TsEntry } from './telemetry-repository.ts';

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The keys of a telemetry or attribute object trimmed; an error when one is blank or too long. */
export function keyedValues(
  values: Record<string, unknown>,
  where: string,
): ParseResult<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const checked = checkName(key, `${where}: key '${key.slice(0, 40)}'`);
    if (!checked.ok) return checked;
    out[checked.name] = value;
  }
  return { ok: true, value: out };
}

/** One {ts, values} entry's timestamp: a number or string of digits within what the store keeps. */
export function entryTs(value: unknown, where: string): ParseResult<number> {
  const ts = epochMsOf(value);
  return ts === undefined
    ? { ok: false, error: `${where}.ts must be a number of milliseconds from 0 to ${MAX_EPOCH_MS}` }
    : { ok: true, value: ts };
}

/**
 * ThingsBoard's telemetry shapes: {"k":v}, {"ts":ms,"values":{...}} or an array of those.
 * Entries without ts get `now`.
 */
export function parseTelemetry(body: unknown, now: number): ParseResult<TsEntry[]> {
  const items = Array.isArray(body) ? body : [body];
  const entries: TsEntry[] = [];
  for (const [i, item] of items.entries()) {
    const where = Array.isArray(body) ? `[${i}]` : 'body';
    if (!isObject(item)) return { ok: false, error: `${where} must be a JSON object` };
    if ('ts' in item && 'values' in item) {
      const ts = entryTs(item.ts, where);
      if (!ts.ok) return ts;
      if (!isObject(item.values)) return { ok: false, error: `${where}.values must be a JSON object` };
      const values = keyedValues(item.values, `${where}.values`);
      if (!values.ok) return values;
      entries.push({ ts: ts.value, values: values.value });
    } else {
      const values = keyedValues(item, where);
      if (!values.ok) return values;
      entries.push({ ts: now, values: values.value });
    }
  }
  if (entries.every((e) => Object.keys(e.values).length === 0))
    return { ok: false, error: 'No telemetry data in the request' };
  return { ok: true, value: entries };
}

export function parseAttributes(body: unknown): ParseResult<Record<string, unknown>> {
  if (!isObject(body)) return { ok: false, error: 'Attributes must be a JSON object of key: value' };
  if (Object.keys(body).length === 0) return { ok: false, error: 'No attributes in the request' };
  return keyedValues(body, 'attributes');
}
