import { describe, expect, it } from 'vitest';
import { UNLIMITED } from '../../../shared/schemas/transport-limits.ts';
import { TransportLimiter } from '../../../main/transport/rate-limiter.ts';

function limiter(limits: Partial<typeof UNLIMITED>) {
  let now = 1_000_000;
  const l = new TransportLimiter({ ...UNLIMITED, ...limits }, () => now);
  return { l, advance: (ms: number) => (now += ms) };
}

const device = (id: string) => ({ level: 'device' as const, id });

describe('transport rate limiter', () => {
  it('is off while nothing is limited', () => {
    expect(new TransportLimiter(UNLIMITED).enabled).toBe(false);
    expect(limiter({ transportDeviceMsgRateLimit: '1:1' }).l.enabled).toBe(true);
  });

  it('enforces every window of "N:S,N:S" and refills each at N per S seconds', () => {
    const { l, advance } = limiter({ transportDeviceMsgRateLimit: '2:1,3:60' });
    expect(l.consume(device('a'), 0)).toBeNull();
    expect(l.consume(device('a'), 0)).toBeNull();
    expect(l.consume(device('a'), 0)).toBe('device messages 2:1,3:60');
    advance(1000);
    expect(l.consume(device('a'), 0)).toBeNull(); // the per-second window refilled; the minute's has 1 left
    advance(1000);
    expect(l.consume(device('a'), 0)).toBe('device messages 2:1,3:60'); // the minute's window is empty
    advance(20_000); // a third of a minute: one token back in the 3:60 window
    expect(l.consume(device('a'), 0)).toBeNull();
    // Another device has its own buckets.
    expect(l.consume(device('b'), 0)).toBeNull();
  });

  it('counts telemetry against its message and data point buckets, not the message bucket', () => {
    const { l } = limiter({
      transportDeviceMsgRateLimit: '1:60',
      transportDeviceTelemetryMsgRateLimit: '10:60',
      transportDeviceTelemetryDataPointsRateLimit: '5:60',
    });
    expect(l.consume(device('a'), 3)).toBeNull();
    expect(l.consume(device('a'), 3)).toBe('device telemetry data points 5:60');
    expect(l.consume(device('a'), 2)).toBeNull();
    expect(l.consume(device('a'), 0)).toBeNull();
    expect(l.consume(device('a'), 0)).toBe('device messages 1:60');
  });

  it('checks the tenant first, then the sender; devices behind a gateway share its bucket', () => {
    const { l } = limiter({ transportTenantMsgRateLimit: '3:60', transportGatewayMsgRateLimit: '2:60' });
    const gw = { level: 'gateway' as const, id: 'gw1' };
    expect(l.consume(gw, 0)).toBeNull();
    expect(l.consume(gw, 0)).toBeNull();
    expect(l.consume(gw, 0)).toBe('devices behind the gateway messages 2:60');
    expect(l.consume(device('x'), 0)).toBe('tenant messages 3:60');
  });

  it('keeps buckets of at most 10,000 senders, dropping the least recently used', () => {
    const { l } = limiter({ transportDeviceMsgRateLimit: '1:3600' });
    expect(l.consume(device('first'), 0)).toBeNull();
    expect(l.consume(device('first'), 0)).not.toBeNull();
    for (let i = 0; i < 10_000; i++) l.consume(device(`d${i}`), 0);
    // 'first' was dropped: it starts again with a full bucket.
    expect(l.consume(device('first'), 0)).toBeNull();
  });

  it('new limits start with full buckets; counts refusals per device', () => {
    const { l } = limiter({ transportDeviceMsgRateLimit: '1:60' });
    l.consume(device('a'), 0);
    expect(l.consume(device('a'), 0)).not.toBeNull();
    l.recordRefused('a', 'device messages 1:60');
    expect(l.statsOf('a')).toMatchObject({ rateLimited: 1, lastRateLimit: 'device messages 1:60' });
    l.update({ ...UNLIMITED, transportDeviceMsgRateLimit: '2:60' });
    expect(l.consume(device('a'), 0)).toBeNull();
    l.update(UNLIMITED);
    expect(l.enabled).toBe(false);
  });
});
