import { formatDateTime, formatValue } from './format.ts';
import { timestampOf } from './timestamp-value.ts';

/** A telemetry or attribute value as a user reads it: a timestamp as a date (the raw number on hover). */
export function KeyValue({ name, value }: { name: string; value: unknown }) {
  const ts = timestampOf(name, value);
  if (ts === undefined) return <>{formatValue(value)}</>;
  return (
    <span
      title={`${formatValue(value)} (epoch ms)`}
      data-raw={formatValue(value)}
      data-testid="timestamp-value"
    >
      {formatDateTime(ts)}
    </span>
  );
}
