const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
const timeOnly = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
const dayTime = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});
const number = new Intl.NumberFormat();

export function formatDateTime(ts: number): string {
  return dateTime.format(new Date(ts));
}

export function formatTime(ts: number): string {
  return timeOnly.format(new Date(ts));
}

/** "Jan 05, 10:15": a time label on an axis that spans days */
export function formatDayTime(ts: number): string {
  return dayTime.format(new Date(ts));
}

export function formatNumber(n: number): string {
  return number.format(n);
}

/** A telemetry or attribute value as text: JSON for objects, as is otherwise. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** "1 h 05 min", "42 s": what is left of a token's life. */
export function formatDuration(ms: number): string {
  if (ms <= 0) return 'expired';
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} min`;
  if (m > 0) return `${m} min ${String(sec).padStart(2, '0')} s`;
  return `${sec} s`;
}

/** Parses what a person types as an attribute value: JSON when it is JSON, else the text itself. */
export function parseTypedValue(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}
