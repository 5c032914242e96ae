/** One window of a rate limit: at most `capacity` per `seconds`. */
export interface RateLimitWindow {
  capacity: number;
  seconds: number;
}

/** Largest figures a window takes (ThingsBoard's own fields hold ints). */
const MAX_CAPACITY = 1_000_000_000;
const MAX_SECONDS = 31_536_000;

/**
 * ThingsBoard's rate limit form "N:S,N:S" (at most N per S seconds, each window enforced). An empty
 * string means unlimited. Returns the windows, or an error naming the bad part.
 */
export function parseRateLimit(
  spec: string,
): { ok: true; windows: RateLimitWindow[] } | { ok: false; error: string } {
  const text = spec.trim();
  if (text === '') return { ok: true, windows: [] };
  const windows: RateLimitWindow[] = [];
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(part);
    if (!m) return { ok: false, error: `'${part.trim()}' is not N:S (at most N per S seconds)` };
    const capacity = Number(m[1]);
    const seconds = Number(m[2]);
    if (capacity < 1 || capacity > MAX_CAPACITY)
      return { ok: false, error: `'${part.trim()}': N must be 1..${MAX_CAPACITY}` };
    if (seconds < 1 || seconds > MAX_SECONDS)
      return { ok: false, error: `'${part.trim()}': S must be 1..${MAX_SECONDS} seconds` };
    windows.push({ capacity, seconds });
  }
  if (windows.length > 10) return { ok: false, error: 'at most 10 windows' };
  return { ok: true, windows };
}
