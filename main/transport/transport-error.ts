import { jsonTooDeep, tooDeepMessage } from '../../shared/limits.ts';

/** MQTT 5 reason codes Sandboard answers with, as ThingsBoard does (the HTTP API maps them to statuses). */
export const ReasonCode = {
  SUCCESS: 0x00,
  UNSPECIFIED_ERROR: 0x80,
  IMPLEMENTATION_SPECIFIC_ERROR: 0x83,
  NOT_AUTHORIZED: 0x87,
  TOPIC_NAME_INVALID: 0x90,
  MESSAGE_RATE_TOO_HIGH: 0x96,
  QUOTA_EXCEEDED: 0x97,
  PAYLOAD_FORMAT_INVALID: 0x99,
} as const;

/**
 * A refused device message, on any transport: MQTT v5 clients get reasonCode in the PUBACK, v3.1.1
 * clients are disconnected; the HTTP API answers the matching status.
 */
export class TransportError extends Error {
  readonly reasonCode: number;
  constructor(reasonCode: number, message: string) {
    super(message);
    this.reasonCode = reasonCode;
  }
}

export const payloadInvalid = (message: string) =>
  new TransportError(ReasonCode.PAYLOAD_FORMAT_INVALID, message);

/** A JSON payload, at most MAX_JSON_DEPTH deep: deeper ones get 0x99 (v5) or a disconnect (3.1.1). */
export function parseJsonPayload(payload: Buffer): unknown {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8')) as unknown;
  } catch (err) {
    throw payloadInvalid(`Invalid JSON: ${(err as Error).message}`);
  }
  const deep = jsonTooDeep(value, 'payload');
  if (deep) throw payloadInvalid(tooDeepMessage(deep));
  return value;
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A message a rate limit refused; `limit` names it ("device telemetry messages 10:1"). */
export class RateLimitedError extends TransportError {
  readonly limit: string;
  /** the device whose message it was */
  readonly deviceName: string;
  constructor(limit: string, deviceName: string) {
    super(ReasonCode.QUOTA_EXCEEDED, `Rate limit exceeded: ${limit}`);
    this.limit = limit;
    this.deviceName = deviceName;
  }
}
