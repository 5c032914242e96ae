import type { TsEntry } from './telemetry-repository.ts';

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

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
      const ts = typeof item.ts === 'string' ? Number(item.ts) : item.ts;
      if (typeof ts !== 'number' || !Number.isFinite(ts))
        return { ok: false, error: `${where}.ts must be a number of milliseconds` };
      if (!isObject(item.values)) return { ok: false, error: `${where}.values must be a JSON object` };
      entries.push({ ts: Math.trunc(ts), values: item.values });
    } else {
      entries.push({ ts: now, values: item });
    }
  }
  if (entries.every((e) => Object.keys(e.values).length === 0))
    return { ok: false, error: 'No telemetry data in the request' };
  return { ok: true, value: entries };
}

export function parseAttributes(body: unknown): ParseResult<Record<string, unknown>> {
  if (!isObject(body)) return { ok: false, error: 'Attributes must be a JSON object of key: value' };
  if (Object.keys(body).length === 0) return { ok: false, error: 'No attributes in the request' };
  return { ok: true, value: body };
}
