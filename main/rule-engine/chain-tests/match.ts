/** How a rule chain test compares what it expected with what happened: paths named, tolerances, ignores. */

export interface MatchOptions {
  /** paths left out (with everything under them) */
  ignore?: readonly string[];
  /** numbers within this of the expected value match: one for all, or by path */
  tolerance?: number | Record<string, number>;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (!/^[A-Za-z_$][\w$]*$/.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path ? `${path}.${key}` : key;
}

function ignored(path: string, ignore: readonly string[]): boolean {
  return ignore.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`));
}

function toleranceAt(path: string, tolerance: MatchOptions['tolerance']): number {
  if (tolerance === undefined) return 0;
  if (typeof tolerance === 'number') return tolerance;
  return tolerance[path] ?? 0;
}

const show = (v: unknown) => (v === undefined ? 'nothing' : JSON.stringify(v));

/**
 * The differences between an expected and an actual JSON value, each naming its path ("temperature:
 * expected 55, got 54.2"); empty when they match. Objects must have the same keys, arrays the same length.
 */
export function differences(
  expected: unknown,
  actual: unknown,
  options: MatchOptions = {},
  path = '',
  limit = 20,
): string[] {
  const out: string[] = [];
  const at = (p: string) => p || '(value)';
  const walk = (e: unknown, a: unknown, p: string) => {
    if (out.length >= limit || ignored(p, options.ignore ?? [])) return;
    if (typeof e === 'number' && typeof a === 'number') {
      const tol = toleranceAt(p, options.tolerance);
      if (Math.abs(e - a) > tol || Number.isNaN(a))
        out.push(`${at(p)}: expected ${show(e)}${tol ? ` ±${tol}` : ''}, got ${show(a)}`);
      return;
    }
    if (Array.isArray(e) && Array.isArray(a)) {
      if (e.length !== a.length) {
        out.push(`${at(p)}: expected ${e.length} items, got ${a.length}`);
        return;
      }
      e.forEach((item, i) => walk(item, a[i], child(p, i)));
      return;
    }
    if (isObject(e) && isObject(a)) {
      for (const key of Object.keys(e)) walk(e[key], a[key], child(p, key));
      for (const key of Object.keys(a))
        if (!(key in e) && !ignored(child(p, key), options.ignore ?? []) && out.length < limit)
          out.push(`${at(child(p, key))}: not expected, got ${show(a[key])}`);
      return;
    }
    if (JSON.stringify(e) !== JSON.stringify(a)) out.push(`${at(p)}: expected ${show(e)}, got ${show(a)}`);
  };
  walk(expected, actual, path);
  return out;
}

/** Only the keys the expectation names are compared (a message's metadata, an entity's saved values). */
export function listedDifferences(
  expected: Record<string, unknown>,
  actual: Record<string, unknown>,
  options: MatchOptions = {},
  path = '',
): string[] {
  return Object.entries(expected).flatMap(([key, value]) =>
    key in actual
      ? differences(value, actual[key], options, child(path, key))
      : [`${child(path, key)}: expected ${show(value)}, got nothing`],
  );
}
