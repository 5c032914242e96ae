/**
 * Where a time series has no data for much longer than it usually does: a line drawn across such a gap
 * would show values nobody measured, so the chart breaks it there.
 */

/** A gap is this many times the key's usual (median) interval, or more. */
export const GAP_FACTOR = 5;

/** The median of the intervals between successive timestamps (sorted ascending), or undefined. */
export function usualInterval(ts: number[]): number | undefined {
  const steps: number[] = [];
  for (let i = 1; i < ts.length; i++) if (ts[i]! > ts[i - 1]!) steps.push(ts[i]! - ts[i - 1]!);
  if (steps.length === 0) return undefined;
  steps.sort((a, b) => a - b);
  const mid = steps.length >> 1;
  return steps.length % 2 ? steps[mid]! : (steps[mid - 1]! + steps[mid]!) / 2;
}

/**
 * The timestamps (sorted ascending) cut into runs with no gap inside: a new run starts after an interval
 * of GAP_FACTOR times the usual one or more. Fewer than three points have no usual interval: one run.
 */
export function splitAtGaps(ts: number[], factor = GAP_FACTOR): number[][] {
  if (ts.length === 0) return [];
  const usual = ts.length >= 3 ? usualInterval(ts) : undefined;
  const runs: number[][] = [[ts[0]!]];
  for (let i = 1; i < ts.length; i++) {
    if (usual !== undefined && ts[i]! - ts[i - 1]! >= factor * usual) runs.push([]);
    runs.at(-1)!.push(ts[i]!);
  }
  return runs;
}
