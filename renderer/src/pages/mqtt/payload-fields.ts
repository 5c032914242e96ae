import { formatPath, getAt, parsePath, type PathSegment } from '../../components/json-path.ts';

const MAX_LEAVES = 200;

/** Every leaf of a JSON value as path → value (arrays by index), at most MAX_LEAVES. */
export function flatten(value: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const walk = (v: unknown, path: PathSegment[]) => {
    if (out.size >= MAX_LEAVES) return;
    if (v !== null && typeof v === 'object') {
      const entries = Array.isArray(v) ? v.map((x, i) => [i, x] as const) : Object.entries(v);
      if (entries.length === 0) out.set(formatPath(path), v);
      for (const [k, x] of entries) walk(x, [...path, k]);
    } else out.set(formatPath(path) || '(value)', v);
  };
  walk(value, []);
  return out;
}

/** Paths of the numeric leaves (numbers or numeric strings), for the field chart's picker. */
export function numericPaths(value: unknown): string[] {
  return [...flatten(value)]
    .filter(
      ([, v]) =>
        typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))),
    )
    .map(([p]) => p);
}

/** The number at a path, or undefined. */
export function numberAt(value: unknown, path: string): number | undefined {
  const v = path === '(value)' ? value : getAt(value, parsePath(path));
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

export interface FieldChange {
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

/** What changed from one JSON payload to the next, leaf by leaf. */
export function jsonDiff(before: unknown, after: unknown): FieldChange[] {
  const a = flatten(before);
  const b = flatten(after);
  const changes: FieldChange[] = [];
  for (const [path, v] of b) {
    if (!a.has(path)) changes.push({ path, kind: 'added', after: v });
    else if (JSON.stringify(a.get(path)) !== JSON.stringify(v))
      changes.push({ path, kind: 'changed', before: a.get(path), after: v });
  }
  for (const [path, v] of a) if (!b.has(path)) changes.push({ path, kind: 'removed', before: v });
  return changes;
}
