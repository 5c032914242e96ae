import { parseRateLimit } from '../../shared/rate-limit-spec.ts';
import type { DeviceTransportStats, TransportLimits } from '../../shared/schemas/transport-limits.ts';

/** Per-device buckets and counters kept at most (least recently used ones are dropped first). */
const MAX_TRACKED = 10_000;

/** One "N:S" window: a token bucket refilled greedily, N tokens per S seconds, full at start. */
class Window {
  private tokens: number;
  private last: number;
  private readonly capacity: number;
  private readonly perMs: number;
  constructor(capacity: number, seconds: number, now: number) {
    this.capacity = capacity;
    this.perMs = capacity / (seconds * 1000);
    this.tokens = capacity;
    this.last = now;
  }
  available(now: number): number {
    if (now > this.last) {
      this.tokens = Math.min(this.capacity, this.tokens + (now - this.last) * this.perMs);
      this.last = now;
    }
    return this.tokens;
  }
  take(n: number): void {
    this.tokens -= n;
  }
}

/** Every window of one limit: a consumption succeeds only if each window has room, and then takes from all. */
class Limit {
  readonly spec: string;
  private readonly windows: Window[];
  constructor(spec: string, now: number) {
    this.spec = spec;
    const parsed = parseRateLimit(spec);
    this.windows = parsed.ok ? parsed.windows.map((w) => new Window(w.capacity, w.seconds, now)) : [];
  }
  tryConsume(n: number, now: number): boolean {
    for (const w of this.windows) if (w.available(now) < n) return false;
    for (const w of this.windows) w.take(n);
    return true;
  }
}

/** Which of ThingsBoard's four limit sets a message counts against. */
export type LimitLevel = 'tenant' | 'device' | 'gateway' | 'gatewayDevice';

/** Whose bucket: a device's own ('device'), a gateway's own ('gatewayDevice'), the devices behind a gateway ('gateway'). */
export interface LimitScope {
  level: Exclude<LimitLevel, 'tenant'>;
  /** the device, or the gateway for 'gateway' and 'gatewayDevice' */
  id: string;
}

interface LevelSpecs {
  msg: string;
  telemetry: string;
  dataPoints: string;
}

interface EntityLimits {
  msg: Limit | null;
  telemetry: Limit | null;
  dataPoints: Limit | null;
}

const LEVEL_NAMES: Record<LimitLevel, string> = {
  tenant: 'tenant',
  device: 'device',
  gateway: 'devices behind the gateway',
  gatewayDevice: 'gateway',
};

function specsOf(l: TransportLimits): Record<LimitLevel, LevelSpecs> {
  return {
    tenant: {
      msg: l.transportTenantMsgRateLimit,
      telemetry: l.transportTenantTelemetryMsgRateLimit,
      dataPoints: l.transportTenantTelemetryDataPointsRateLimit,
    },
    device: {
      msg: l.transportDeviceMsgRateLimit,
      telemetry: l.transportDeviceTelemetryMsgRateLimit,
      dataPoints: l.transportDeviceTelemetryDataPointsRateLimit,
    },
    gateway: {
      msg: l.transportGatewayMsgRateLimit,
      telemetry: l.transportGatewayTelemetryMsgRateLimit,
      dataPoints: l.transportGatewayTelemetryDataPointsRateLimit,
    },
    gatewayDevice: {
      msg: l.transportGatewayDeviceMsgRateLimit,
      telemetry: l.transportGatewayDeviceTelemetryMsgRateLimit,
      dataPoints: l.transportGatewayDeviceTelemetryDataPointsRateLimit,
    },
  };
}

const isSet = (s: LevelSpecs) => s.msg !== '' || s.telemetry !== '' || s.dataPoints !== '';

/**
 * ThingsBoard's transport rate limits (DefaultTransportRateLimitService): the tenant's buckets, then the
 * sender's (a device, a gateway's own, or the devices behind a gateway together). Telemetry takes from
 * the telemetry-message and data-point buckets, anything else from the message bucket. `enabled` is
 * false while nothing is limited, so the transports skip all of this per message.
 */
export class TransportLimiter {
  enabled = false;
  private specs: Record<LimitLevel, LevelSpecs>;
  private tenant: EntityLimits | null = null;
  private readonly entities = new Map<string, EntityLimits>();
  private readonly refused = new Map<string, DeviceTransportStats>();
  private refusedTotal = 0;
  private readonly now: () => number;

  constructor(limits: TransportLimits, now: () => number = Date.now) {
    this.now = now;
    this.specs = specsOf(limits);
    this.update(limits);
  }

  /** New limits start with full buckets. */
  update(limits: TransportLimits): void {
    this.specs = specsOf(limits);
    this.entities.clear();
    this.tenant = isSet(this.specs.tenant) ? this.build(this.specs.tenant) : null;
    this.enabled = Object.values(this.specs).some(isSet);
  }

  /** The limits of a level, in ThingsBoard's "N:S,N:S" form (null when unlimited), for getSessionLimits. */
  specsFor(level: LimitLevel): {
    messages: string | null;
    telemetryMessages: string | null;
    telemetryDataPoints: string | null;
  } {
    const s = this.specs[level];
    const orNull = (v: string) => (v === '' ? null : v);
    return {
      messages: orNull(s.msg),
      telemetryMessages: orNull(s.telemetry),
      telemetryDataPoints: orNull(s.dataPoints),
    };
  }

  /**
   * Takes one message (dataPoints > 0: a telemetry message of that many data points). Returns null when
   * allowed, else which limit refused it, e.g. "device telemetry messages 10:1".
   */
  consume(scope: LimitScope, dataPoints: number): string | null {
    const now = this.now();
    if (this.tenant) {
      const hit = this.take(this.tenant, dataPoints, now);
      if (hit) return `${LEVEL_NAMES.tenant} ${hit}`;
    }
    if (!isSet(this.specs[scope.level])) return null;
    const key = `${scope.level}:${scope.id}`;
    let limits = this.entities.get(key);
    if (limits) {
      this.entities.delete(key);
    } else {
      limits = this.build(this.specs[scope.level]);
      if (this.entities.size >= MAX_TRACKED) this.entities.delete(this.entities.keys().next().value!);
    }
    this.entities.set(key, limits);
    const hit = this.take(limits, dataPoints, now);
    return hit ? `${LEVEL_NAMES[scope.level]} ${hit}` : null;
  }

  /** Counts a refused message of a device, for its page. */
  recordRefused(deviceId: string, limit: string): void {
    this.refusedTotal++;
    const stats = this.refused.get(deviceId) ?? {
      rateLimited: 0,
      lastRateLimitedTs: null,
      lastRateLimit: null,
    };
    this.refused.delete(deviceId);
    if (this.refused.size >= MAX_TRACKED) this.refused.delete(this.refused.keys().next().value!);
    this.refused.set(deviceId, {
      rateLimited: stats.rateLimited + 1,
      lastRateLimitedTs: this.now(),
      lastRateLimit: limit,
    });
  }

  statsOf(deviceId: string): DeviceTransportStats {
    return this.refused.get(deviceId) ?? { rateLimited: 0, lastRateLimitedTs: null, lastRateLimit: null };
  }

  totalRefused(): number {
    return this.refusedTotal;
  }

  forget(deviceId: string): void {
    this.refused.delete(deviceId);
    for (const level of ['device', 'gateway', 'gatewayDevice']) this.entities.delete(`${level}:${deviceId}`);
  }

  private build(s: LevelSpecs): EntityLimits {
    const now = this.now();
    const make = (spec: string) => (spec === '' ? null : new Limit(spec, now));
    return { msg: make(s.msg), telemetry: make(s.telemetry), dataPoints: make(s.dataPoints) };
  }

  /** null if the entity's buckets took the message, else the name of the one that refused. */
  private take(l: EntityLimits, dataPoints: number, now: number): string | null {
    if (dataPoints > 0) {
      if (l.telemetry && !l.telemetry.tryConsume(1, now)) return `telemetry messages ${l.telemetry.spec}`;
      if (l.dataPoints && !l.dataPoints.tryConsume(dataPoints, now))
        return `telemetry data points ${l.dataPoints.spec}`;
      return null;
    }
    if (l.msg && !l.msg.tryConsume(1, now)) return `messages ${l.msg.spec}`;
    return null;
  }
}
