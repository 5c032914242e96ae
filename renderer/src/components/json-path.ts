/** Reading and writing JSON values at paths such as gateways[0].keys[2].generator.min (scenarioIssues' paths). */

export type PathSegment = string | number;

/** "gateways[0].periodMs" → ['gateways', 0, 'periodMs']; quoted keys (["a b"]) are kept whole. */
export function parsePath(path: string): PathSegment[] {
  const out: PathSegment[] = [];
  const re = /([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (const m of path.matchAll(re)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[3] !== undefined) out.push(JSON.parse(m[3]) as string);
  }
  return out;
}

export function formatPath(segments: PathSegment[]): string {
  let path = '';
  for (const s of segments) {
    if (typeof s === 'number') path += `[${s}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(s)) path += path ? `.${s}` : s;
    else path += `[${JSON.stringify(s)}]`;
  }
  return path;
}

export function getAt(value: unknown, path: PathSegment[]): unknown {
  let cur = value;
  for (const s of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[s];
  }
  return cur;
}

/** A copy of `value` with `next` at `path` (undefined removes the key); missing containers are created. */
export function setAt(value: unknown, path: PathSegment[], next: unknown): unknown {
  if (path.length === 0) return next;
  const [head, ...rest] = path as [PathSegment, ...PathSegment[]];
  if (typeof head === 'number') {
    const arr = Array.isArray(value) ? [...(value as unknown[])] : [];
    arr[head] = setAt(arr[head], rest, next);
    return arr;
  }
  const obj =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? { ...(value as Record<string, unknown>) }
      : {};
  const child = setAt(obj[head], rest, next);
  if (child === undefined) delete obj[head];
  else obj[head] = child;
  return obj;
}
