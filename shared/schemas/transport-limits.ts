import { Type, type Static } from 'typebox';

const RateLimit = (description: string) =>
  Type.String({
    maxLength: 200,
    pattern: '^\\s*(\\d+\\s*:\\s*\\d+\\s*(,\\s*\\d+\\s*:\\s*\\d+\\s*)*)?$',
    description: `${description}: "N:S,N:S" (at most N per S seconds, every window enforced); empty = unlimited`,
  });

/**
 * The tenant's transport limits, with the names ThingsBoard's tenant profile gives them
 * (DefaultTenantProfileConfiguration), so production values can be copied as they are.
 */
export const TransportLimits = Type.Object({
  transportTenantMsgRateLimit: RateLimit('All devices together, messages other than telemetry'),
  transportTenantTelemetryMsgRateLimit: RateLimit('All devices together, telemetry messages'),
  transportTenantTelemetryDataPointsRateLimit: RateLimit('All devices together, telemetry data points'),
  transportDeviceMsgRateLimit: RateLimit('Each device, messages other than telemetry'),
  transportDeviceTelemetryMsgRateLimit: RateLimit('Each device, telemetry messages'),
  transportDeviceTelemetryDataPointsRateLimit: RateLimit('Each device, telemetry data points'),
  transportGatewayMsgRateLimit: RateLimit('The devices behind one gateway together, messages'),
  transportGatewayTelemetryMsgRateLimit: RateLimit(
    'The devices behind one gateway together, telemetry messages',
  ),
  transportGatewayTelemetryDataPointsRateLimit: RateLimit(
    'The devices behind one gateway together, telemetry data points',
  ),
  transportGatewayDeviceMsgRateLimit: RateLimit("A gateway's own messages"),
  transportGatewayDeviceTelemetryMsgRateLimit: RateLimit("A gateway's own telemetry messages"),
  transportGatewayDeviceTelemetryDataPointsRateLimit: RateLimit("A gateway's own telemetry data points"),
});
export type TransportLimits = Static<typeof TransportLimits>;

export const TRANSPORT_LIMIT_KEYS = Object.keys(TransportLimits.properties) as (keyof TransportLimits)[];

export const UNLIMITED: TransportLimits = Object.fromEntries(
  TRANSPORT_LIMIT_KEYS.map((k) => [k, '']),
) as TransportLimits;

/** What the transports refused for a device since start (rate limits). */
export const DeviceTransportStats = Type.Object({
  rateLimited: Type.Integer({ description: 'Messages refused by a rate limit since start' }),
  lastRateLimitedTs: Type.Union([Type.Integer(), Type.Null()], { description: 'Epoch ms of the last one' }),
  lastRateLimit: Type.Union([Type.String(), Type.Null()], {
    description: 'Which limit refused it last, e.g. "device telemetry messages 10:1"',
  }),
});
export type DeviceTransportStats = Static<typeof DeviceTransportStats>;

/** The answer to a device's getSessionLimits RPC, in ThingsBoard's shape. */
export interface SessionRateLimits {
  messages: string | null;
  telemetryMessages: string | null;
  telemetryDataPoints: string | null;
}
export interface SessionLimits {
  maxPayloadSize: number;
  maxInflightMessages: number;
  rateLimits: SessionRateLimits;
  gatewayRateLimits?: SessionRateLimits;
}
