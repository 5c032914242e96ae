import type {
  DemoLogin,
  EventLoopDelay,
  PlatformInfo,
  PlatformStats,
} from '../../../shared/schemas/sandboard.ts';
import {
  DemoLogins,
  EventLoopDelay as EventLoopDelaySchema,
  EventLoopDelayQuery,
  PlatformInfo as PlatformInfoSchema,
  PlatformStats as PlatformStatsSchema,
} from '../../../shared/schemas/sandboard.ts';
import { ErrorResponse } from '../../../shared/schemas/common.ts';
import { requireTenantAdmin, type Principal } from '../../platform/auth/principal.ts';
import type { Services } from '../../platform/services.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, type Api } from '../route-types.ts';

/** What the API server learns about the rest of the platform (listeners start after it). */
export interface PlatformLinks {
  /** the platform's URLs, once every listener is up */
  urls?: () => { http: string; mqtt: string; analytics: string } | undefined;
  /** connected MQTT sessions; absent until the embedded broker lands */
  mqttSessions?: () => number;
  /** the network thread's event-loop delay; reset starts a new period */
  eventLoop?: (reset: boolean) => EventLoopDelay;
}

/** ThingsBoard's demo accounts and their well-known passwords. */
const DEMO_PASSWORDS: Record<string, string> = {
  'tenant@thingsboard.org': 'tenant',
  'customer@thingsboard.org': 'customer',
};

const RATE_WINDOW_SEC = 5;
const CUSTOMER_CACHE_MS = 5_000;
/** an exact datapoint recount after deletions is done at most this often */
const RECOUNT_MIN_INTERVAL_MS = 10_000;
/** and anyway this often while data flows (INSERT OR REPLACE and retention make increments approximate) */
const RECOUNT_MAX_AGE_MS = 300_000;

/** Messages per second over a sliding window of whole seconds. */
class RateWindow {
  private readonly buckets = new Map<number, number>();
  add(nowMs: number, n = 1): void {
    const sec = Math.floor(nowMs / 1000);
    this.buckets.set(sec, (this.buckets.get(sec) ?? 0) + n);
    for (const key of this.buckets.keys()) if (key <= sec - RATE_WINDOW_SEC) this.buckets.delete(key);
  }
  rate(nowMs: number): number {
    const sec = Math.floor(nowMs / 1000);
    let sum = 0;
    for (const [key, n] of this.buckets) if (key > sec - RATE_WINDOW_SEC) sum += n;
    return Math.round((sum / RATE_WINDOW_SEC) * 10) / 10;
  }
}

interface ScopeCounters {
  datapoints: number;
  countedAt: number;
  /** set by deletions: the count must be taken again */
  stale: boolean;
  writesSinceCount: boolean;
  rate: RateWindow;
}

const TENANT_SCOPE = '*';

/**
 * The overview's counters, kept cheap enough to push every second: device counts come from SQL, message
 * rates from platform events, datapoints from an exact count corrected by the events in between.
 * A customer user gets the counters of its own customer's devices.
 */
export class LiveStats {
  private readonly services: Services;
  private readonly links: PlatformLinks;
  private readonly scopes = new Map<string, ScopeCounters>();
  private readonly deviceCustomer = new Map<string, string | null>();
  private deviceCustomerAt = 0;
  private readonly unsubscribe: () => void;

  constructor(services: Services, links: PlatformLinks = {}) {
    this.services = services;
    this.links = links;
    const events = services.ctx.events;
    const onTelemetry = (e: { deviceId: string; entries: { values: Record<string, unknown> }[] }) => {
      let points = 0;
      for (const entry of e.entries)
        for (const key in entry.values) if (entry.values[key] !== undefined) points++;
      this.count(e.deviceId, points);
    };
    const onAttributes = (e: { deviceId: string }) => this.count(e.deviceId, 0);
    const onDeviceDeleted = () => {
      for (const scope of this.scopes.values()) scope.stale = true;
      this.deviceCustomer.clear();
    };
    const onDeviceSaved = () => this.deviceCustomer.clear();
    events.on('telemetry', onTelemetry);
    events.on('attributes', onAttributes);
    events.on('deviceDeleted', onDeviceDeleted);
    events.on('deviceSaved', onDeviceSaved);
    this.unsubscribe = () => {
      events.off('telemetry', onTelemetry);
      events.off('attributes', onAttributes);
      events.off('deviceDeleted', onDeviceDeleted);
      events.off('deviceSaved', onDeviceSaved);
    };
  }

  stop(): void {
    this.unsubscribe();
  }

  /** The customer a device belongs to (null: the tenant's own), cached for a few seconds. */
  customerOf(deviceId: string): string | null | undefined {
    const now = this.services.ctx.now();
    if (now - this.deviceCustomerAt > CUSTOMER_CACHE_MS) {
      this.deviceCustomer.clear();
      this.deviceCustomerAt = now;
    }
    if (this.deviceCustomer.has(deviceId)) return this.deviceCustomer.get(deviceId);
    const row = this.services.devices.findRow(deviceId);
    if (!row) return undefined;
    this.deviceCustomer.set(deviceId, row.customer_id);
    return row.customer_id;
  }

  private scope(key: string): ScopeCounters {
    let scope = this.scopes.get(key);
    if (!scope) {
      scope = { datapoints: 0, countedAt: 0, stale: true, writesSinceCount: false, rate: new RateWindow() };
      this.scopes.set(key, scope);
    }
    return scope;
  }

  private count(deviceId: string, datapoints: number): void {
    const now = this.services.ctx.now();
    const keys = [TENANT_SCOPE];
    // a customer's counters exist once one of its users asked: until then no device's customer is looked
    // up (a fleet connecting at once would read each device's row for it)
    const customerScopes = this.scopes.size - (this.scopes.has(TENANT_SCOPE) ? 1 : 0);
    const customerId = customerScopes > 0 ? this.customerOf(deviceId) : undefined;
    if (customerId) keys.push(customerId);
    for (const key of keys) {
      const scope = key === TENANT_SCOPE ? this.scope(key) : this.scopes.get(key);
      if (!scope) continue; // nobody of that customer asked yet: counted exactly when one does
      scope.rate.add(now);
      scope.datapoints += datapoints;
      if (datapoints > 0) scope.writesSinceCount = true;
    }
  }

  private countDatapoints(key: string): number {
    if (key === TENANT_SCOPE) return this.services.ctx.telemetry.countDatapoints();
    const row = this.services.ctx.db.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM ${this.services.ctx.telemetry.historyTable} WHERE entity_num IN (SELECT num FROM devices WHERE customer_id = ?)`,
      [key],
    );
    return Number(row?.n ?? 0);
  }

  private countDevices(key: string, gateway: boolean): number {
    if (key === TENANT_SCOPE) return this.services.devices.count({ gateway });
    const sql = gateway
      ? `SELECT COUNT(*) AS n FROM devices WHERE customer_id = ? AND json_extract(additional_info, '$.gateway') IN (1, 'true')`
      : 'SELECT COUNT(*) AS n FROM devices WHERE customer_id = ?';
    return Number(this.services.ctx.db.get<{ n: number }>(sql, [key])?.n ?? 0);
  }

  /** The counters the principal may see. */
  snapshot(p: Principal): PlatformStats {
    const key = p.authority === 'TENANT_ADMIN' ? TENANT_SCOPE : (p.customerId ?? '');
    const now = this.services.ctx.now();
    let devices = 0;
    let gateways = 0;
    let datapoints = 0;
    let rate = 0;
    if (key) {
      const scope = this.scope(key);
      const age = now - scope.countedAt;
      if (
        scope.countedAt === 0 ||
        (scope.stale && age >= RECOUNT_MIN_INTERVAL_MS) ||
        (scope.writesSinceCount && age >= RECOUNT_MAX_AGE_MS)
      ) {
        scope.datapoints = this.countDatapoints(key);
        scope.countedAt = now;
        scope.stale = false;
        scope.writesSinceCount = false;
      }
      devices = this.countDevices(key, false);
      gateways = this.countDevices(key, true);
      datapoints = scope.datapoints;
      rate = scope.rate.rate(now);
    }
    const mqttBroker = this.links.mqttSessions !== undefined;
    const stats: PlatformStats = {
      devices,
      gateways,
      connectedSessions: mqttBroker && key === TENANT_SCOPE ? this.links.mqttSessions!() : 0,
      mqttBroker,
      messagesPerSecond: rate,
      datapoints,
      ts: now,
      ...(key === TENANT_SCOPE ? { store: this.services.storage.usage() } : {}),
    };
    return stats;
  }
}

export interface InfoRouteDeps {
  services: Services;
  stats: LiveStats;
  links: PlatformLinks;
  version: string;
}

/** The demo accounts that still have their default password (what the login page may show). */
export function demoLoginsStillDefault(services: Services): DemoLogin[] {
  const defaults = new Set(services.users.usersWithDefaultPasswords().map((e) => e.toLowerCase()));
  const logins: DemoLogin[] = [];
  for (const [email, password] of Object.entries(DEMO_PASSWORDS)) {
    if (!defaults.has(email)) continue;
    const row = services.users.findRowByEmail(email);
    if (row) logins.push({ email, password, authority: row.authority });
  }
  return logins;
}

/** Sandboard's own endpoints for its UI: demo logins, platform URLs and live counters. */
export function registerInfoRoutes(app: Api, { services, stats, links, version }: InfoRouteDeps): void {
  const tags = ['Sandboard'];
  app.get(
    '/api/noauth/demoLogins',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Demo accounts that still have their default password (empty once changed)',
        security: [],
        response: { 200: DemoLogins, 400: ErrorResponse },
      },
    },
    async () => demoLoginsStillDefault(services),
  );
  app.get(
    '/api/sandboard/info',
    {
      schema: {
        tags,
        summary: "The platform's version and the URLs of its HTTP API, MQTT broker and report API",
        response: { 200: PlatformInfoSchema, ...authErrors },
      },
    },
    async (request): Promise<PlatformInfo> => {
      principalOf(request);
      const known = links.urls?.();
      const http = known?.http ?? `${request.protocol}://${request.host}`;
      return {
        version,
        http,
        mqtt: known?.mqtt ?? '',
        analytics: known?.analytics ?? '',
        mqttBroker: links.mqttSessions !== undefined,
        deviceHttpApi: app.findRoute({ method: 'POST', url: '/api/v1/TOKEN/telemetry' }) !== null,
      };
    },
  );
  app.get(
    '/api/sandboard/stats',
    {
      schema: {
        tags,
        summary: 'Counters: devices, gateways, connected sessions, messages per second, stored datapoints',
        response: { 200: PlatformStatsSchema, ...authErrors },
      },
    },
    async (request) => stats.snapshot(principalOf(request)),
  );
  const eventLoop = links.eventLoop;
  if (eventLoop) {
    app.get(
      '/api/sandboard/eventLoop',
      {
        schema: {
          tags,
          summary: "How long the platform's network thread was held up (stalls delay every answer)",
          querystring: EventLoopDelayQuery,
          response: { 200: EventLoopDelaySchema, ...authErrors },
        },
      },
      async (request) => {
        requireTenantAdmin(principalOf(request));
        return eventLoop(request.query.reset === true);
      },
    );
  }
}
