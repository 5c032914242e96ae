import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Value } from 'typebox/value';
import {
  WS_AUTH_TIMEOUT_MS,
  WS_MAX_SUBSCRIPTIONS,
  WS_PATH,
  WsClientMessage,
  WsCloseCode,
  type WsServerMessage,
} from '../../../shared/ws-messages.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import { ErrorCode, PlatformError } from '../../platform/errors.ts';
import type { PlatformEventMap } from '../../platform/events.ts';
import type { Services } from '../../platform/services.ts';
import type { MqttInspector } from '../../transport/mqtt/mqtt-inspector.ts';
import type { LiveStats } from './info-routes.ts';
import { TrafficFeed } from './traffic-feed.ts';

/** The part of a `ws` WebSocket this module uses. */
interface LiveSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  on(event: 'message', listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): void;
  on(event: 'close', listener: () => void): void;
}

const OPEN = 1;
/** above this many buffered bytes a connection gets no more data messages until it drains */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;
const LOW_WATER_BYTES = 256 * 1024;
const TICK_MS = 1_000;
/** how often a connection's token is checked again (logout, password change, expiry) */
const RECHECK_MS = 10_000;
const MAX_MESSAGE_CHARS = 16 * 1024;
const CONNECTIVITY_MAX = 1_000;

/** The expiry (epoch ms) of a JWT the auth service has already verified. */
function tokenExpiry(token: string): number {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: number;
    };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : 0;
  } catch {
    return 0;
  }
}

function describe(err: unknown): { code: number; message: string } {
  if (err instanceof PlatformError) return { code: err.errorCode, message: err.message };
  return { code: ErrorCode.GENERAL, message: 'Internal server error' };
}

/** One client (a browser tab) following live data. */
class LiveConnection {
  principal: Principal | null = null;
  readonly subscriptions = new Set<string>();
  private token = '';
  private expiresAt = 0;
  private lastCheck = 0;
  private lastStats = '';
  private dropped = false;
  private disposed = false;
  private readonly socket: LiveSocket;
  private readonly hub: LiveHub;
  private readonly authTimer: NodeJS.Timeout;

  constructor(socket: LiveSocket, hub: LiveHub) {
    this.socket = socket;
    this.hub = hub;
    this.authTimer = setTimeout(
      () => this.close(WsCloseCode.UNAUTHENTICATED, 'No token: send {"type":"auth","token":"<JWT>"} first'),
      WS_AUTH_TIMEOUT_MS,
    );
    socket.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    socket.on('close', () => this.dispose());
  }

  /** Sends unless the client lags behind; essential messages are sent anyway. */
  send(message: WsServerMessage, essential = false): void {
    if (this.socket.readyState !== OPEN) return;
    if (!essential && this.socket.bufferedAmount > HIGH_WATER_BYTES) {
      this.dropped = true;
      return;
    }
    this.socket.send(JSON.stringify(message));
  }

  close(code: number, reason: string): void {
    if (this.socket.readyState === OPEN) {
      const errorCode =
        code === WsCloseCode.UNAUTHENTICATED ? ErrorCode.AUTHENTICATION : ErrorCode.BAD_REQUEST_PARAMS;
      this.send({ type: 'error', code: errorCode, message: reason }, true);
      // a close reason may hold at most 123 bytes
      this.socket.close(
        code,
        Buffer.from(reason)
          .subarray(0, 120)
          .toString('utf8')
          .replace(/\uFFFD$/, ''),
      );
    }
    this.dispose();
  }

  private dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.hub.traffic?.unwatch(this);
    clearTimeout(this.authTimer);
    this.hub.remove(this);
  }

  /** May this connection see data of a device owned by that customer (null: the tenant's own)? */
  maySee(customerId: string | null | undefined): boolean {
    if (!this.principal || customerId === undefined) return false;
    return this.principal.authority === 'TENANT_ADMIN' || customerId === this.principal.customerId;
  }

  authenticate(token: string): void {
    let principal: Principal;
    try {
      principal = this.hub.services.auth.authenticate(`Bearer ${token}`);
    } catch (err) {
      this.close(WsCloseCode.UNAUTHENTICATED, describe(err).message);
      return;
    }
    if (this.principal && this.principal.userId !== principal.userId) {
      this.close(WsCloseCode.UNAUTHENTICATED, 'A connection cannot change its user; open a new one');
      return;
    }
    clearTimeout(this.authTimer);
    const first = this.principal === null;
    this.principal = principal;
    this.token = token;
    this.expiresAt = tokenExpiry(token);
    this.lastCheck = Date.now();
    this.send(
      { type: 'ready', userId: principal.userId, authority: principal.authority, expiresAt: this.expiresAt },
      true,
    );
    if (first) this.tick(true);
  }

  private onMessage(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): void {
    if (this.disposed) return;
    const text = Array.isArray(data)
      ? Buffer.concat(data).toString('utf8')
      : Buffer.from(data as Uint8Array).toString('utf8');
    let message: unknown;
    try {
      if (isBinary || text.length > MAX_MESSAGE_CHARS) throw new Error('not a JSON text message');
      message = JSON.parse(text);
    } catch {
      this.close(WsCloseCode.BAD_MESSAGE, 'Messages are JSON text: {"type":"auth","token":"<JWT>"}');
      return;
    }
    if (!Value.Check(WsClientMessage, message)) {
      if (!this.principal) {
        this.close(WsCloseCode.UNAUTHENTICATED, 'Authenticate first: {"type":"auth","token":"<JWT>"}');
        return;
      }
      this.send(
        {
          type: 'error',
          code: ErrorCode.BAD_REQUEST_PARAMS,
          message:
            'Unknown message: send {"type":"auth"|"subscribe"|"unsubscribe"|"mqttWatch"|"mqttUnwatch", ...}',
        },
        true,
      );
      return;
    }
    if (message.type === 'auth') return this.authenticate(message.token);
    if (!this.principal) {
      this.close(WsCloseCode.UNAUTHENTICATED, 'Authenticate first: {"type":"auth","token":"<JWT>"}');
      return;
    }
    if (message.type === 'unsubscribe') {
      this.hub.unsubscribe(this, message.deviceId);
      return;
    }
    if (message.type === 'mqttWatch') {
      if (!this.hub.traffic) {
        this.send(
          { type: 'error', code: ErrorCode.BAD_REQUEST_PARAMS, message: 'No MQTT broker here' },
          true,
        );
        return;
      }
      this.hub.traffic.watch(this, this.principal, message.filter);
      return;
    }
    if (message.type === 'mqttUnwatch') {
      this.hub.traffic?.unwatch(this);
      return;
    }
    try {
      this.hub.services.devices.accessibleRow(message.deviceId, this.principal);
    } catch (err) {
      this.send({ type: 'error', ...describe(err) }, true);
      return;
    }
    if (!this.subscriptions.has(message.deviceId) && this.subscriptions.size >= WS_MAX_SUBSCRIPTIONS) {
      this.send(
        {
          type: 'error',
          code: ErrorCode.BAD_REQUEST_PARAMS,
          message: `A connection may follow at most ${WS_MAX_SUBSCRIPTIONS} devices`,
        },
        true,
      );
      return;
    }
    this.hub.subscribe(this, message.deviceId);
    this.send({ type: 'subscribed', deviceId: message.deviceId }, true);
  }

  /** Once a second: check the token again now and then, resync after drops, push changed counters. */
  tick(force = false, recheck = false): void {
    if (!this.principal || this.disposed) return;
    const now = Date.now();
    if (recheck || now - this.lastCheck >= RECHECK_MS || (this.expiresAt > 0 && now >= this.expiresAt)) {
      this.lastCheck = now;
      try {
        this.hub.services.auth.authenticate(`Bearer ${this.token}`);
      } catch (err) {
        this.close(WsCloseCode.UNAUTHENTICATED, describe(err).message);
        return;
      }
      // a device may have moved to another customer since it was subscribed
      for (const deviceId of this.subscriptions) {
        if (!this.maySee(this.hub.stats.customerOf(deviceId))) this.hub.unsubscribe(this, deviceId);
      }
    }
    if (this.dropped && this.socket.bufferedAmount < LOW_WATER_BYTES) {
      this.dropped = false;
      this.send({ type: 'resync' }, true);
    }
    const stats = this.hub.stats.snapshot(this.principal);
    const { ts: _ts, ...counters } = stats;
    const signature = JSON.stringify(counters);
    if (force || signature !== this.lastStats) {
      this.lastStats = signature;
      this.send({ type: 'stats', stats });
    }
  }
}

/** Every live connection, fed by the platform's events. */
class LiveHub {
  readonly services: Services;
  readonly stats: LiveStats;
  private readonly connections = new Set<LiveConnection>();
  private readonly byDevice = new Map<string, Set<LiveConnection>>();
  /** devices whose connectivity changed since the last tick */
  private readonly connectivity = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private readonly detach: () => void;

  readonly traffic: TrafficFeed | undefined;

  constructor(services: Services, stats: LiveStats, inspector?: MqttInspector) {
    this.services = services;
    this.stats = stats;
    this.traffic = inspector ? new TrafficFeed(inspector) : undefined;
    this.timer = setInterval(() => {
      this.flushConnectivity();
      for (const c of this.connections) c.tick();
    }, TICK_MS);
    this.timer.unref();
    const events = services.ctx.events;
    const handlers: { [K in keyof PlatformEventMap]?: (...args: PlatformEventMap[K]) => void } = {
      telemetry: (e) => {
        if (this.byDevice.has(e.deviceId)) this.toSubscribers(e.deviceId, { type: 'telemetry', ...e });
      },
      attributes: (e) => {
        this.toSubscribers(e.deviceId, { type: 'attributes', ...e });
        if (e.scope === 'SERVER_SCOPE' && 'active' in e.values && this.connectivity.size < CONNECTIVITY_MAX)
          this.connectivity.add(e.deviceId);
      },
      attributesDeleted: (e) => this.toSubscribers(e.deviceId, { type: 'attributesDeleted', ...e }),
      deviceSaved: (e) => {
        const customerId = this.stats.customerOf(e.deviceId);
        const message: WsServerMessage = {
          type: 'device',
          deviceId: e.deviceId,
          change: e.created ? 'created' : 'updated',
        };
        for (const c of this.connections) if (c.maySee(customerId)) c.send(message);
      },
      // a password, role or access change ends the user's live connections now, not at the next recheck
      sessionsEnded: (e) => {
        for (const c of this.connections)
          if (c.principal && e.userIds.includes(c.principal.userId)) c.tick(false, true);
      },
      alarm: (e) => {
        const message: WsServerMessage = { type: 'alarm', kind: e.kind, alarm: e.alarm };
        const customerId = e.alarm.customerId?.id ?? null;
        for (const c of this.connections) if (c.maySee(customerId)) c.send(message);
      },
      deviceDeleted: (e) => {
        const message: WsServerMessage = { type: 'device', deviceId: e.deviceId, change: 'deleted' };
        const followers = this.byDevice.get(e.deviceId) ?? new Set();
        for (const c of this.connections)
          if (c.principal?.authority === 'TENANT_ADMIN' || followers.has(c)) c.send(message);
        for (const c of followers) this.unsubscribeDevice(c, e.deviceId);
      },
    };
    for (const [name, handler] of Object.entries(handlers)) events.on(name as 'telemetry', handler as never);
    this.detach = () => {
      for (const [name, handler] of Object.entries(handlers))
        events.off(name as 'telemetry', handler as never);
    };
  }

  add(connection: LiveConnection): void {
    this.connections.add(connection);
  }

  /**
   * A device went active or inactive (connect, disconnect, activity, inactivity timeout): device lists
   * showing its status refetch; at most once a tick per device, however many transitions.
   */
  private flushConnectivity(): void {
    if (this.connectivity.size === 0) return;
    const changed = [...this.connectivity];
    this.connectivity.clear();
    // nobody to tell: no device's customer is looked up (a fleet connecting changes thousands a tick)
    if (this.connections.size === 0) return;
    for (const deviceId of changed) {
      const customerId = this.stats.customerOf(deviceId);
      const message: WsServerMessage = { type: 'device', deviceId, change: 'updated' };
      for (const c of this.connections) if (c.maySee(customerId)) c.send(message);
    }
  }

  remove(connection: LiveConnection): void {
    this.connections.delete(connection);
    for (const deviceId of [...connection.subscriptions]) this.unsubscribeDevice(connection, deviceId);
  }

  subscribe(connection: LiveConnection, deviceId: string): void {
    connection.subscriptions.add(deviceId);
    let set = this.byDevice.get(deviceId);
    if (!set) this.byDevice.set(deviceId, (set = new Set()));
    set.add(connection);
  }

  unsubscribe(connection: LiveConnection, deviceId: string): void {
    this.unsubscribeDevice(connection, deviceId);
  }

  private unsubscribeDevice(connection: LiveConnection, deviceId: string): void {
    connection.subscriptions.delete(deviceId);
    const set = this.byDevice.get(deviceId);
    if (!set) return;
    set.delete(connection);
    if (set.size === 0) this.byDevice.delete(deviceId);
  }

  private toSubscribers(deviceId: string, message: WsServerMessage): void {
    const set = this.byDevice.get(deviceId);
    if (!set) return;
    for (const c of set) c.send(message);
  }

  stop(): void {
    clearInterval(this.timer);
    this.detach();
    this.traffic?.stop();
  }
}

export interface WsRouteDeps {
  services: Services;
  stats: LiveStats;
  /** the host names this server answers (host-check.ts); a browser's Origin must be one of them */
  allowedHosts?: Set<string>;
  mqttInspector?: MqttInspector;
}

/**
 * A WebSocket from a browser carries the page's Origin (browsers let any site open one to 127.0.0.1):
 * only pages of this server's own names may connect. Clients without an Origin (scripts, SDKs) may.
 */
function originAllowed(origin: string | undefined, host: string | undefined, allowed: Set<string>): boolean {
  if (origin === undefined) return true;
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return url.host === host?.toLowerCase() || allowed.has(url.hostname.toLowerCase());
}

/**
 * The live WebSocket: telemetry and attribute changes of the devices a connection subscribes to (and
 * may see), device list changes, alarm changes the user may see, and the overview's counters.
 * Authenticated by a JWT in the first message, never by a cookie nor the URL (URLs end up in logs and
 * histories).
 */
export async function registerWsRoutes(
  app: FastifyInstance,
  {
    services,
    stats,
    allowedHosts = new Set(['localhost', '127.0.0.1', '[::1]']),
    mqttInspector,
  }: WsRouteDeps,
): Promise<void> {
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  const hub = new LiveHub(services, stats, mqttInspector);
  app.addHook('onClose', async () => hub.stop());
  const handler = (socket: LiveSocket, request: FastifyRequest) => {
    const connection = new LiveConnection(socket, hub);
    hub.add(connection);
    if ((request.query as { token?: unknown }).token !== undefined)
      connection.close(
        WsCloseCode.UNAUTHENTICATED,
        'Tokens in URLs are not accepted: send {"type":"auth","token":"<JWT>"}',
      );
  };
  app.get(
    WS_PATH,
    {
      websocket: true,
      // authentication happens on the socket (browsers cannot set headers on a WebSocket)
      config: { public: true },
      schema: { hide: true },
      preValidation: async (request, reply) => {
        if (originAllowed(request.headers.origin, request.headers.host, allowedHosts)) return;
        const message = `Origin '${request.headers.origin}' may not open the live WebSocket`;
        // an upgrade's socket is destroyed once a reply through Fastify is done, possibly before the
        // answer left: write it on the socket and end it
        const body = JSON.stringify({
          status: 403,
          message,
          errorCode: ErrorCode.PERMISSION_DENIED,
          timestamp: Date.now(),
        });
        reply.hijack();
        request.raw.socket.end(
          `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
            `Connection: close\r\n\r\n${body}`,
        );
      },
    },
    handler as never,
  );
}
