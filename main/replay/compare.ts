import type { AssertOptions } from '../../shared/schemas/recording.ts';

/** What a check ignores and allows, merged from the header, the record and the command line. */
export interface CompareOptions {
  ignore: string[];
  /** one for every number, or by key / path */
  tolerance: number | Record<string, number>;
}

/** The header's options, then the record's, then the flags': ignores add up, a later tolerance wins by key. */
export function mergeAssertOptions(...layers: (AssertOptions | undefined)[]): CompareOptions {
  const ignore: string[] = [];
  const tolerance: Record<string, number> = {};
  for (const layer of layers) {
    if (!layer) continue;
    ignore.push(...(layer.ignore ?? []));
    const t = layer.tolerance;
    if (typeof t === 'number') tolerance['*'] = t;
    else if (t) Object.assign(tolerance, t);
  }
  return { ignore, tolerance };
}

const lastSegment = (path: string) => path.slice(path.lastIndexOf('.') + 1);

export function isIgnored(path: string, options: CompareOptions): boolean {
  return options.ignore.some(
    (i) => path === i || path.startsWith(`${i}.`) || path.startsWith(`${i}[`) || lastSegment(path) === i,
  );
}

function toleranceOf(path: string, options: CompareOptions): number {
  const t = options.tolerance;
  if (typeof t === 'number') return t;
  return t[path] ?? t[lastSegment(path)] ?? t['*'] ?? 0;
}

/** A number given as text ("21.5", as ThingsBoard answers latest values without strict types) is a number. */
function asNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

export const show = (v: unknown): string => {
  if (v === undefined) return 'nothing';
  const text = JSON.stringify(v);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
};

/**
 * The differences between what a recording expects and what the target did, one line each
 * ("temperature: expected 55, got 60"); a path the options ignore is not compared, numbers match within
 * the tolerance, a field the target adds to an object is no difference.
 */
export function differences(
  expected: unknown,
  actual: unknown,
  options: CompareOptions,
  path = '',
  out: string[] = [],
): string[] {
  if (path && isIgnored(path, options)) return out;
  const where = path ? `${path}: ` : '';
  const expNum = asNumber(expected);
  if (typeof expected === 'number' || (expNum !== undefined && typeof actual === 'number')) {
    const actNum = asNumber(actual);
    if (
      actNum === undefined ||
      expNum === undefined ||
      Math.abs(actNum - expNum) > toleranceOf(path, options)
    ) {
      const within = toleranceOf(path, options) ? ` (within ${toleranceOf(path, options)})` : '';
      out.push(`${where}expected ${show(expected)}${within}, got ${show(actual)}`);
    }
    return out;
  }
  if (typeof expected === 'boolean' && (actual === String(expected) || actual === expected)) return out;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) {
      out.push(`${where}expected ${show(expected)}, got ${show(actual)}`);
      return out;
    }
    if (actual.length !== expected.length)
      out.push(`${where}expected ${expected.length} items, got ${actual.length}`);
    expected.forEach((e, i) => differences(e, actual[i], options, `${path}[${i}]`, out));
    return out;
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) {
      out.push(`${where}expected ${show(expected)}, got ${show(actual)}`);
      return out;
    }
    for (const [k, v] of Object.entries(expected))
      differences(v, (actual as Record<string, unknown>)[k], options, path ? `${path}.${k}` : k, out);
    return out;
  }
  if (expected !== actual) out.push(`${where}expected ${show(expected)}, got ${show(actual)}`);
  return out;
}
