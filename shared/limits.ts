import { Type } from 'typebox';

/**
 * The bounds every input is checked against before any work is done with it, in one place so that the
 * REST schemas, the MQTT transport and the validators of rest.json and rule chains agree.
 */

/** deepest JSON nesting accepted anywhere (V8's JSON.stringify overflows its stack near 4,500 levels) */
export const MAX_JSON_DEPTH = 64;
/** largest epoch ms accepted: 9999-12-31T23:59:59.999Z, far inside SQLite's and JavaScript's integers */
export const MAX_EPOCH_MS = 253_402_300_799_999;
/** ThingsBoard's int page number */
export const MAX_PAGE = 2_147_483_647;
export const MAX_PAGE_SIZE = 10_000;
/** names of devices, profiles, customers and telemetry or attribute keys (ThingsBoard's varchar(255)) */
export const MAX_NAME_LENGTH = 255;

export const EpochMs = (description?: string) =>
  Type.Integer({ minimum: 0, maximum: MAX_EPOCH_MS, ...(description ? { description } : {}) });
export const PageNumber = (description = 'Sequence number of the page, starting from 0') =>
  Type.Integer({ minimum: 0, maximum: MAX_PAGE, description });
export const PageSize = (description = 'Maximum amount of entities in one page') =>
  Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, description });

/**
 * Where a JSON value nests deeper than maxDepth, as a path (body.a[0].b...), or null when it does not.
 * Iterative, so it cannot itself overflow the stack on the input it guards against.
 */
export function jsonTooDeep(value: unknown, root = 'body', maxDepth = MAX_JSON_DEPTH): string | null {
  // Every device message passes here: the walk that names the path allocates per node, so it runs only
  // for the rare value that is too deep.
  return nestsDeeper(value, maxDepth) ? deepPath(value, root, maxDepth) : null;
}

/** Whether an object or array nests maxDepth levels or more, allocating nothing per node. */
function nestsDeeper(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const values: object[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop()!;
    const depth = depths.pop()!;
    if (depth >= maxDepth) return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (typeof item === 'object' && item !== null) {
          values.push(item);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        const item: unknown = (v as Record<string, unknown>)[k];
        if (typeof item === 'object' && item !== null) {
          values.push(item);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

function deepPath(value: unknown, root: string, maxDepth: number): string | null {
  const stack: { v: unknown; depth: number; path: string }[] = [{ v: value, depth: 0, path: root }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= maxDepth) return path;
    if (Array.isArray(v))
      v.forEach((item, i) => stack.push({ v: item, depth: depth + 1, path: `${path}[${i}]` }));
    else
      for (const [k, item] of Object.entries(v))
        stack.push({ v: item, depth: depth + 1, path: `${path}.${k}` });
  }
  return null;
}

export const tooDeepMessage = (path: string) =>
  `JSON is nested deeper than ${MAX_JSON_DEPTH} levels at '${path.length > 200 ? `${path.slice(0, 200)}...` : path}'`;

/**
 * An epoch-ms timestamp from a payload: an integer (fractions dropped) or a string of digits, between 0
 * and MAX_EPOCH_MS. Anything else (null, "", true, 1e300, "0x10") is undefined: no silent 1970.
 */
export function epochMsOf(value: unknown): number | undefined {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d{1,16}$/.test(value)
        ? Number(value)
        : NaN;
  if (!Number.isFinite(n)) return undefined;
  const ts = Math.trunc(n);
  return ts >= 0 && ts <= MAX_EPOCH_MS ? ts : undefined;
}

/** A name trimmed, or why it cannot be one: blank, or longer than MAX_NAME_LENGTH. */
export function checkName(
  value: unknown,
  what: string,
): { ok: true; name: string } | { ok: false; error: string } {
  if (typeof value !== 'string') return { ok: false, error: `${what} must be a string` };
  const name = value.trim();
  if (name === '') return { ok: false, error: `${what} must not be blank` };
  if (name.length > MAX_NAME_LENGTH)
    return { ok: false, error: `${what} is longer than ${MAX_NAME_LENGTH} characters` };
  return { ok: true, name };
}
