import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { ServerSockets } from '../server-sockets.ts';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { Aedes, type AuthenticateError, type Client } from 'aedes';
import type { DeviceRow } from '../../platform/devices.ts';
import type { RpcDelivery, RpcRequest } from '../../platform/rpc.ts';
import { parseJson } from '../../platform/paging.ts';
import { ownScope, viaGatewayScope, type TransportCore } from '../device-messages.ts';
import { RateLimitedError, ReasonCode, TransportError } from '../transport-error.ts';
import { ConnectAdmission } from './connect-admission.ts';
import { handleDeviceTopic } from './device-api.ts';
import { handleGatewayTopic } from './gateway-api.ts';
import { handleOtaTopic } from './ota-topics.ts';
import { handleProvisionPublish, isProvisionConnect, PROVISION_RESPONSE_TOPIC } from './provision-session.ts';
import {
  PLATFORM_BROKER_ID,
  publishJson,
  publishUnsubscribed,
  sendJson,
  SessionRegistry,
  type Session,
} from './session-registry.ts';
import { maySubscribe } from './topic-filter.ts';
import { TrafficTap } from './traffic-tap.ts';
import { MqttInspector } from './mqtt-inspector.ts';
import { MqttTap, type TappedPublish, type TappedSession } from '../../../shared/mqtt-tap-events.ts';
import type { TransportContext } from './transport-context.ts';

export interface MqttOptions {
  host: string;
  port: number;
  maxPacketBytes: number;
  /** the traffic inspector: recording on or off, and its ring's byte budget */
  inspector: { enabled: boolean; budgetBytes: number };
}

export interface MqttTransport {
  port: number;
  registry: SessionRegistry;
  tap: TrafficTap;
  inspector: MqttInspector;
  stats(): { sessions: number; gatewaySessions: number; devicesViaGateways: number; messages: number };
  close(): Promise<void>;
}

/**
 * Connections the kernel may queue before they are accepted. A fleet connecting at once (a storm of
 * thousands) overflows Node's default of 511, and each dropped SYN is retried by the client only after
 * 1 s, 3 s, 7 s...; the kernel caps this at net.core.somaxconn.
 */
export const MQTT_LISTEN_BACKLOG = 65_535;

/**
 * mqtt-packet (which aedes writes packets with) fills a cache of 65,536 two-byte buffers on the first
 * packet it writes: a 300 ms stall in the middle of the first CONNACKs, and ~6 MB kept for numbers a
 * write can make as it goes.
 */
function writeNumbersUncached(): void {
  try {
    const packets = createRequire(import.meta.url)('mqtt-packet') as {
      writeToStream: { cacheNumbers: boolean };
    };
    packets.writeToStream.cacheNumbers = false;
  } catch {
    // not where aedes finds it: the cache stays, as do its costs
  }
}
writeNumbersUncached();

interface PendingConnect {
  client: Client;
  username: string | undefined;
  password: Buffer | undefined;
  done: (error: AuthenticateError | null, success: boolean | null) => void;
}

const badCredentials = (): AuthenticateError =>
  Object.assign(new Error('Bad username or password'), { returnCode: 4 as const });
const serverUnavailable = (): AuthenticateError =>
  Object.assign(new Error('Too many connections waiting'), { returnCode: 3 as const });

/**
 * The embedded broker: aedes with the device access token as the username. Nothing is routed between
 * clients; every publish is handled as ThingsBoard's device or gateway API, and the platform sends to a
 * session only what it subscribed to.
 */
export async function setupMqttTransport(core: TransportCore, options: MqttOptions): Promise<MqttTransport> {
  const { services, engine, activity } = core;
  const registry = new SessionRegistry();
  const tap = new TrafficTap(options.inspector);
  const ctx: TransportContext = { ...core, registry };
  const authenticated = new WeakMap<Client, DeviceRow>();
  // Sessions of the user name (or client id) "provision": they may only ask for credentials.
  const provisioners = new WeakSet<Client>();
  const closeClientRpc = new Map<Client, () => void>();
  // The CONNECTs of one admission slice, authenticated together after it (one credentials query).
  let connecting: PendingConnect[] = [];
  const admission = new ConnectAdmission({
    afterSlice() {
      if (connecting.length === 0) return;
      const batch = connecting;
      connecting = [];
      authenticateAll(batch);
    },
  });

  function authenticateAll(batch: PendingConnect[]): void {
    const lookups: PendingConnect[] = [];
    for (const c of batch) {
      if (c.client.closed) c.done(badCredentials(), false);
      else if (isProvisionConnect(c.client.id, c.username)) {
        provisioners.add(c.client);
        c.done(null, true);
      } else lookups.push(c);
    }
    let devices: (DeviceRow | undefined)[];
    try {
      devices = services.devices.findRowsByMqttCredentials(
        lookups.map((c) => ({
          clientId: c.client.id ?? '',
          userName: c.username ?? '',
          password: c.password ? c.password.toString('utf8') : '',
        })),
      );
    } catch (err) {
      process.stderr.write(`MQTT CONNECT credentials lookup failed: ${(err as Error).message}\n`);
      for (const c of lookups) c.done(serverUnavailable(), false);
      return;
    }
    lookups.forEach((c, i) => {
      const device = devices[i];
      if (!device || c.client.closed) return c.done(badCredentials(), false);
      authenticated.set(c.client, device);
      c.done(null, true);
    });
  }

  const broker = await Aedes.createBroker({
    maximumPacketSize: options.maxPacketBytes,
    drainTimeout: 30_000,
    maxClientsIdLength: 256,
    authenticate(client, username, password, done) {
      const connect = { client, username, password, done };
      if (!admission.admit(() => connecting.push(connect))) done(serverUnavailable(), false);
    },
    authorizeSubscribe(client, sub, done) {
      if (provisioners.has(client)) return done(null, sub.topic === PROVISION_RESPONSE_TOPIC ? sub : null);
      const session = registry.get(client);
      // done(null, null) refuses this one filter with a SUBACK failure code (0x87 on v5, 0x80 on 3.1.1);
      // done(err) would fail the whole SUBSCRIBE and drop the connection.
      if (!session || !maySubscribe(sub.topic, session.gateway)) return done(null, null);
      session.subscriptions.set(sub.topic, sub.qos);
      done(null, sub);
      if (/rpc\/request|v1\/gateway\/rpc/.test(sub.topic)) {
        setImmediate(() => {
          services.rpc.deviceReady(session.device.id);
          for (const d of session.subDevices.values()) services.rpc.deviceReady(d.id);
        });
      }
    },
    authorizeForward(_client, packet) {
      return packet.brokerId === PLATFORM_BROKER_ID ? packet : null;
    },
    authorizePublish(client, packet, done) {
      packet.retain = false;
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
      const session = client ? registry.get(client) : undefined;
      if (session) {
        session.messagesIn++;
        const record = tap.active ? tap.incoming(session, packet, payload) : undefined;
        // the inspector follows the rule engine messages a publish became; a recorder needs none
        const routeCtx = record && tap.enabled ? tracedContext(ctx) : ctx;
        route(routeCtx, session, packet.topic, payload).then(
          () => {
            session.lastReasonCode = ReasonCode.SUCCESS;
            if (record) settle(tap, record, routeCtx, ReasonCode.SUCCESS);
            done(null);
          },
          (err: unknown) => {
            const refused = refusal(err);
            session.lastReasonCode = refused.reasonCode;
            if (record) settle(tap, record, routeCtx, refused.reasonCode, refused.message);
            if (err instanceof RateLimitedError) rateLimited(session, packet.topic, err, done);
            else done(refused);
          },
        );
      } else if (client && provisioners.has(client)) {
        handleProvisionPublish(ctx, client, packet.topic, payload).then(
          () => done(null),
          (err: unknown) => done(refusal(err)),
        );
      } else {
        done(new TransportError(ReasonCode.NOT_AUTHORIZED, 'Not connected'));
      }
    },
  });

  // Nothing may subscribe to $SYS topics (maySubscribe), so aedes's announcement of every client that
  // connects or disconnects would only be matched and dropped, a storm's worth of times.
  const brokerPublish = broker.publish.bind(broker);
  broker.publish = ((packet: Parameters<typeof brokerPublish>[0], ...rest: unknown[]) => {
    if (packet.topic.startsWith('$SYS/')) {
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      return done?.();
    }
    return (brokerPublish as (...args: unknown[]) => void)(packet, ...rest);
  }) as typeof broker.publish;

  broker.on('client', (client) => {
    const device = authenticated.get(client);
    if (!device) return;
    const info = parseJson(device.additional_info);
    const gateway = info.gateway === true;
    const session: Session = {
      id: randomUUID(),
      client,
      device,
      gateway,
      confined: gateway && info.gatewayConfined === true,
      subscriptions: new Map(),
      subDevices: new Map(),
      scopes: { own: ownScope(device, gateway), viaGateway: viaGatewayScope(device) },
      unacked: [],
      connectedAt: Date.now(),
      messagesIn: 0,
      messagesOut: 0,
      lastReasonCode: null,
      tap,
    };
    registry.add(session);
    if (tap.events.has(MqttTap.session)) tap.events.emit(MqttTap.session, sessionEvent('connected', session));
    // The RPC Call Reply node answers the device's own RPC requests on the session that sent them.
    closeClientRpc.set(
      client,
      services.rpc.openClientSession(session.id, (requestId, body) =>
        sendJson(session, `v1/devices/me/rpc/response/${requestId}`, body),
      ),
    );
    activity.connected(device);
  });
  broker.on('clientDisconnect', (client) => closeSession(client));
  // A provisioning session ends a minute after it connected, as ThingsBoard's does after its answer.
  broker.on('client', (client) => {
    if (!provisioners.has(client)) return;
    const timer = setTimeout(() => client.close(), 60_000);
    timer.unref();
    client.conn.once('close', () => clearTimeout(timer));
  });
  broker.on('clientError', () => undefined);
  broker.on('connectionError', () => undefined);

  function closeSession(client: Client): void {
    closeClientRpc.get(client)?.();
    closeClientRpc.delete(client);
    const removed = registry.remove(client);
    if (!removed) return;
    if (tap.events.has(MqttTap.session))
      tap.events.emit(MqttTap.session, sessionEvent('disconnected', removed.session));
    activity.disconnected(removed.session.device);
    for (const d of removed.subDevices) activity.disconnected(d);
  }

  // Platform -> device: shared attribute changes and RPC.
  const onAttributes = ({
    deviceId,
    scope,
    values,
  }: {
    deviceId: string;
    scope: string;
    values: Record<string, unknown>;
  }) => {
    if (scope !== 'SHARED_SCOPE') return;
    for (const s of registry.directSessions(deviceId)) sendJson(s, 'v1/devices/me/attributes', values);
    const gw = registry.gatewaySession(deviceId);
    const name = gw && [...gw.subDevices.values()].find((d) => d.id === deviceId)?.name;
    if (gw && name) sendJson(gw, 'v1/gateway/attributes', { device: name, data: values });
  };
  const onAttributesDeleted = ({
    deviceId,
    scope,
    keys,
  }: {
    deviceId: string;
    scope: string;
    keys: string[];
  }) => {
    if (scope !== 'SHARED_SCOPE') return;
    for (const s of registry.directSessions(deviceId))
      sendJson(s, 'v1/devices/me/attributes', { deleted: keys });
    const gw = registry.gatewaySession(deviceId);
    const name = gw && [...gw.subDevices.values()].find((d) => d.id === deviceId)?.name;
    if (gw && name) sendJson(gw, 'v1/gateway/attributes', { device: name, data: {}, deleted: keys });
  };
  const onDeviceGone = ({ deviceId }: { deviceId: string }) => {
    for (const s of registry.forgetDevice(deviceId)) s.client.close();
  };
  const onCredentials = ({ deviceId }: { deviceId: string }) => {
    for (const s of registry.directSessions(deviceId)) s.client.close();
  };
  services.ctx.events.on('attributes', onAttributes);
  services.ctx.events.on('attributesDeleted', onAttributesDeleted);
  services.ctx.events.on('deviceDeleted', onDeviceGone);
  services.ctx.events.on('credentialsChanged', onCredentials);

  services.rpc.attach(
    {
      sendRpc(deviceId: string, request: RpcRequest): RpcDelivery {
        const qos: number[] = [];
        for (const s of registry.directSessions(deviceId)) {
          qos.push(
            publishJson(
              s,
              `v1/devices/me/rpc/request/${request.id}`,
              { method: request.method, params: request.params },
              { deviceId, requestId: request.id },
            ),
          );
        }
        const gw = registry.gatewaySession(deviceId);
        const name = gw && [...gw.subDevices.values()].find((d) => d.id === deviceId)?.name;
        if (gw && name)
          qos.push(
            publishJson(
              gw,
              'v1/gateway/rpc',
              { device: name, data: request },
              { deviceId, requestId: request.id },
            ),
          );
        return qos.includes(1) ? 'awaitingAck' : qos.includes(0) ? 'delivered' : 'none';
      },
    },
    (msg) => engine.submit(msg),
  );
  // A device's PUBACK of a request: persistent RPCs go from SENT to DELIVERED. aedes names the packet a
  // PUBACK is for only for sessions it stores; for clean ones, PUBACKs come in the order of the messages.
  broker.on('ack', (packet, client) => {
    const session = client ? registry.get(client) : undefined;
    if (!session) return;
    if (!packet || !('topic' in packet) || !packet.topic) {
      const ref = session.unacked.shift();
      if (ref) services.rpc.acknowledged(ref.deviceId, ref.requestId);
      return;
    }
    const direct = /^v1\/devices\/me\/rpc\/request\/(\d+)$/.exec(packet.topic);
    if (direct) services.rpc.acknowledged(session.device.id, Number(direct[1]));
    else if (packet.topic === 'v1/gateway/rpc') {
      const body = parseJson(Buffer.from(packet.payload).toString('utf8'));
      const device = typeof body.device === 'string' ? session.subDevices.get(body.device) : undefined;
      const id = (body.data as { id?: unknown } | undefined)?.id;
      if (device && typeof id === 'number') services.rpc.acknowledged(device.id, id);
    }
  });

  // The broker's client for a connection is made in an admission slice too: a storm's accepts all land
  // in one poll, and setting up thousands of clients there would hold every HTTP answer behind them.
  const server: Server = createServer((socket) => {
    const admitted = admission.admit(() => {
      if (!socket.destroyed && !broker.closed) broker.handle(socket);
    });
    if (!admitted) socket.destroy();
  });
  const sockets = new ServerSockets(server);
  server.listen({ host: options.host, port: options.port, backlog: MQTT_LISTEN_BACKLOG });
  await once(server, 'listening');

  return {
    port: (server.address() as AddressInfo).port,
    registry,
    tap,
    inspector: new MqttInspector(core, registry, tap),
    stats: () => ({ ...registry.counts(), messages: activity.messageCount() }),
    async close() {
      services.ctx.events.off('attributes', onAttributes);
      services.ctx.events.off('attributesDeleted', onAttributesDeleted);
      services.ctx.events.off('deviceDeleted', onDeviceGone);
      services.ctx.events.off('credentialsChanged', onCredentials);
      // clients that never sent CONNECT, or never read, cannot hold the stop
      await sockets.closeWithin(async () => {
        await new Promise<void>((resolve) => broker.close(() => resolve()));
        await new Promise<void>((resolve) => server.close(() => resolve()));
      });
    },
  };
}

/** The context of one recorded publish: the rule engine message ids it becomes are collected on it. */
function tracedContext(ctx: TransportContext): TransportContext {
  const traced = Object.create(ctx) as TransportContext;
  traced.msgIds = [];
  return traced;
}

function settle(
  tap: TrafficTap,
  record: TappedPublish,
  ctx: TransportContext,
  reasonCode: number,
  reason?: string,
): void {
  if (ctx.msgIds?.length) record.msgIds = ctx.msgIds;
  tap.settle(record, reasonCode, reason);
}

function sessionEvent(kind: TappedSession['kind'], session: Session): TappedSession {
  return {
    kind,
    ts: Date.now(),
    sessionId: session.id,
    clientId: session.client.id,
    deviceId: session.device.id,
    deviceName: session.device.name,
    gateway: session.gateway,
  };
}

/** A failed publish as the error aedes answers with (its reason code, else 0x80). */
function refusal(err: unknown): TransportError {
  return err instanceof TransportError
    ? err
    : new TransportError(ReasonCode.UNSPECIFIED_ERROR, (err as Error).message);
}

/**
 * A publish a rate limit refused, answered as ThingsBoard's MQTT transport does: for a device behind a
 * gateway, PUBACK 0x97 (v5, with v1/gateway/disconnect {device, reason: 150} before it) and the
 * gateway's connection ends; for a device's (or a gateway's) own message, the connection ends (v5:
 * DISCONNECT 0x83, whose reason string names the limit).
 */
function rateLimited(
  session: Session,
  topic: string,
  err: RateLimitedError,
  done: (err?: Error | null) => void,
): void {
  const client = session.client;
  if (client.version !== 5) return done(err);
  if (session.gateway && topic.startsWith('v1/gateway/')) {
    if (err.deviceName)
      publishUnsubscribed(session, 'v1/gateway/disconnect', {
        device: err.deviceName,
        reason: ReasonCode.MESSAGE_RATE_TOO_HIGH,
      });
    done(err);
    client.disconnect({
      reasonCode: ReasonCode.MESSAGE_RATE_TOO_HIGH,
      properties: { reasonString: err.message },
    });
    return;
  }
  client.disconnect(
    { reasonCode: ReasonCode.IMPLEMENTATION_SPECIFIC_ERROR, properties: { reasonString: err.message } },
    () => done(err),
  );
}

async function route(ctx: TransportContext, session: Session, topic: string, payload: Buffer): Promise<void> {
  if (session.gateway && topic.startsWith('v1/gateway/')) {
    if (await handleGatewayTopic(ctx, session, topic, payload)) return;
  } else if (await handleDeviceTopic(ctx, session, topic, payload)) {
    return;
  } else if (await handleOtaTopic(ctx, session, topic, payload)) {
    return;
  }
  throw new TransportError(ReasonCode.TOPIC_NAME_INVALID, `Unknown topic '${topic}'`);
}
