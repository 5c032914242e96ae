/**
 * Datetime strings of a tsField, read like the gateway's dateutil parser: numeric dates with dayfirst /
 * yearfirst (10.11.25 is October 11th by default, November 10th with dayfirst, 2010-11-25 with yearfirst),
 * ISO 8601, epoch seconds or milliseconds. Naive times are local time.
 */

export interface DateOrder {
  dayfirst?: boolean;
  yearfirst?: boolean;
}

/** A two-digit year within 50 years of now, as dateutil reads it. */
function fullYear(y: number, digits: number): number {
  if (digits > 2) return y;
  const now = new Date().getFullYear();
  let year = Math.floor(now / 100) * 100 + y;
  if (year >= now + 50) year -= 100;
  else if (year < now - 50) year += 100;
  return year;
}

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** Year, month, day of a numeric date a.b.c, following dateutil's rules. */
function ymd(parts: string[], order: DateOrder): [number, number, number] | null {
  const [a, b, c] = parts as [string, string, string];
  const n = parts.map(Number) as [number, number, number];
  let candidates: [number, number, number][];
  if (a.length === 4 || n[0] > 31) {
    // a leading four-digit number is the year: Y-M-D (Y-D-M when dayfirst)
    candidates = [order.dayfirst ? [n[0], n[2], n[1]] : [n[0], n[1], n[2]], [n[0], n[2], n[1]]];
    return pick(candidates, [a.length, b.length, c.length], 0);
  }
  if (order.yearfirst) candidates = [order.dayfirst ? [n[0], n[2], n[1]] : [n[0], n[1], n[2]]];
  else if (order.dayfirst) candidates = [[n[2], n[1], n[0]]];
  else candidates = [[n[2], n[0], n[1]]];
  // a value that cannot be a month where the order wants one: dateutil swaps day and month
  candidates.push([candidates[0]![0], candidates[0]![2], candidates[0]![1]]);
  const yearDigits = order.yearfirst ? a.length : c.length;
  return pick(candidates, [yearDigits], 0);
}

function pick(
  candidates: [number, number, number][],
  digits: number[],
  yearAt: number,
): [number, number, number] | null {
  for (const [y0, m, d] of candidates) {
    const y = fullYear(y0, digits[yearAt] ?? 4);
    if (validDate(y, m, d)) return [y, m, d];
  }
  return null;
}

const NUMERIC_DATE =
  /^\s*(\d{1,4})([./-])(\d{1,2})\2(\d{1,4})(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*([AaPp][Mm])?)?\s*(Z|[+-]\d{2}:?\d{2})?\s*$/;

/** Parses a datetime into epoch ms; undefined when it is not one. */
export function parseTimestamp(value: unknown, order: DateOrder = {}): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? epochMs(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const s = value.trim();
  if (s === '') return undefined;
  if (/^-?\d+(\.\d+)?$/.test(s) && !/^\d{8}$/.test(s)) return epochMs(Number(s));
  const m = NUMERIC_DATE.exec(s);
  if (m) {
    const date = ymd([m[1]!, m[3]!, m[4]!], order);
    if (!date) return undefined;
    let hours = Number(m[5] ?? 0);
    const ampm = m[9]?.toLowerCase();
    if (ampm === 'pm' && hours < 12) hours += 12;
    if (ampm === 'am' && hours === 12) hours = 0;
    const minutes = Number(m[6] ?? 0);
    const seconds = Number(m[7] ?? 0);
    const ms = m[8] ? Math.floor(Number(`0.${m[8]}`) * 1000) : 0;
    if (hours > 23 || minutes > 59 || seconds > 60) return undefined;
    const [y, mo, d] = date;
    const zone = m[10];
    if (zone) {
      const utc = Date.UTC(y, mo - 1, d, hours, minutes, seconds, ms);
      if (zone === 'Z') return utc;
      const sign = zone[0] === '-' ? -1 : 1;
      const digits = zone.slice(1).replace(':', '');
      const offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
      return utc - offset * 60_000;
    }
    const local = new Date(y, mo - 1, d, hours, minutes, seconds, ms);
    local.setFullYear(y); // years 0..99 are not 1900s
    return local.getTime();
  }
  // ISO 8601 and the rest: Date.parse reads naive ISO date-times as local time already
  const parsed = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00` : s);
  return Number.isNaN(parsed) ? undefined : parsed;
}

/** Epoch seconds (below 1e11) become milliseconds. */
function epochMs(n: number): number {
  return Math.trunc(Math.abs(n) < 1e11 ? n * 1000 : n);
}
