/**
 * Numbers that are times: ThingsBoard's `lastActivityTime`, `lastConnectTime`, `inactivityAlarmTime` and
 * any `…Time`/`…Ts`/`…Timestamp` key holding epoch milliseconds are shown as dates (the raw number on hover).
 */
const TIME_KEY = /(time|ts|timestamp)$/i;
/** 2001-09-09 to 2286-11-20 in epoch ms: a number in this range under a time key is a moment */
const MIN_MS = 1e12;
const MAX_MS = 1e13;

/** The epoch ms a key's value stands for, or undefined when it is not a timestamp. */
export function timestampOf(key: string, value: unknown): number | undefined {
  if (!TIME_KEY.test(key)) return undefined;
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d+$/.test(value)
        ? Number(value)
        : NaN;
  return Number.isInteger(n) && n >= MIN_MS && n < MAX_MS ? n : undefined;
}
