/**
 * Output helpers shared by the benchmarks: readable `label: value unit` lines for people, and one last
 * machine-readable line `BENCH {json}` for scripts (always the last line a benchmark prints).
 */

/** The p-th percentile (0..100) of values, interpolated linearly between the closest ranks. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lower = Math.floor(rank);
  const upper = Math.ceil(rank);
  const lo = sorted[lower]!;
  const hi = sorted[upper]!;
  return lo + (hi - lo) * (rank - lower);
}

/** Rounds for display: integers above 100, otherwise 3 significant digits. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  if (Math.abs(value) >= 100) return Math.round(value);
  return Number(value.toPrecision(3));
}

function formatValue(value: number | string): string {
  if (typeof value === 'string') return value;
  const r = round(value);
  return Math.abs(r) >= 10_000 ? r.toLocaleString('en-US') : String(r);
}

/** Prints one readable figure: `label: value unit`. */
export function printFigure(label: string, value: number | string, unit = ''): void {
  console.log(`${label}: ${formatValue(value)}${unit ? ` ${unit}` : ''}`);
}

/** Prints several figures, given as label -> [value, unit] (or a bare value). */
export function printFigures(figures: Record<string, number | string | [number | string, string]>): void {
  for (const [label, figure] of Object.entries(figures)) {
    if (Array.isArray(figure)) printFigure(label, figure[0], figure[1]);
    else printFigure(label, figure);
  }
}

/** Prints the final `BENCH {json}` line; numbers are rounded like the readable figures. */
export function printBench(result: { name: string } & Record<string, unknown>): void {
  const rounded = JSON.stringify(result, (_key, value: unknown) =>
    typeof value === 'number' ? round(value) : value,
  );
  console.log(`BENCH ${rounded}`);
}

/** Milliseconds elapsed since start (a performance.now() value). */
export function elapsedMs(start: number): number {
  return performance.now() - start;
}
