/** Where a time axis puts its labels: round times, several of them, whatever the span. */
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const STEPS = [
  SECOND,
  2 * SECOND,
  5 * SECOND,
  10 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
];

/** The shortest span a time chart shows: a first sample gets a minute to grow into, not a dot. */
export const MIN_TIME_SPAN_MS = MINUTE;

/** Round times between from and to (ms), about `count` of them (never fewer than two on a real span). */
export function timeTicks(from: number, to: number, count = 6): number[] {
  const span = to - from;
  if (!(span > 0)) return [from];
  const step = STEPS.find((s) => span / s <= count) ?? Math.ceil(span / count / DAY) * DAY;
  // round in local time, so 10:15 is a tick where the clock says 10:15
  const offset = new Date(from).getTimezoneOffset() * MINUTE;
  const ticks: number[] = [];
  for (let t = Math.ceil((from - offset) / step) * step + offset; t <= to; t += step) ticks.push(t);
  return ticks;
}

/**
 * The window a live time chart shows: from its first sample (or the range back from the end, whichever
 * is later) to now, at least MIN_TIME_SPAN_MS wide. Fresh data fills the chart and the window grows
 * with it until it reaches the range, then slides.
 */
export function growingWindow(
  firstTs: number | undefined,
  lastTs: number | undefined,
  now: number,
  rangeMs: number,
): [number, number] {
  const end = Math.max(now, lastTs ?? now);
  const from = Math.max(end - rangeMs, firstTs ?? end - rangeMs);
  return [from, Math.max(end, from + MIN_TIME_SPAN_MS)];
}

/**
 * The window of a chart of what happened up to now (the Overview's rate): from the first sample to now,
 * at least MIN_TIME_SPAN_MS wide by reaching back before it, never into the future.
 */
export function windowUntilNow(firstTs: number | undefined, now: number): [number, number] {
  return [Math.min(firstTs ?? now, now - MIN_TIME_SPAN_MS), now];
}
