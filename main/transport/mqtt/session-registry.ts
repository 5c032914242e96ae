import type { Client } from 'aedes';
import type { DeviceRow } from '../../platform/devices.ts';
import type { LimitScope } from '../rate-limiter.ts';
import { topicMatches } from './topic-filter.ts';
import type { TrafficTap } from './traffic-tap.ts';

/** One MQTT connection, authenticated as a device (which may be a gateway). */
export interface Session {
  /** ThingsBoard's session id: where the answer to a client-side RPC request goes */
  id: string;
  client: Client;
  device: DeviceRow;
  gateway: boolean;
  /**
   * Sandboard's per-gateway option additionalInfo.gatewayConfined (off by default, as in ThingsBoard,
   * where a gateway reaches any device of the tenant by name): writes only to devices it created or that
   * are assigned to it
   */
  confined?: boolean;
  /** accepted subscription filters with their QoS */
  subscriptions: Map<string, number>;
  /** devices connected through this gateway session, by name */
  subDevices: Map<string, DeviceRow>;
  /** the rate-limit buckets of its own messages and of its devices' (made once, not per message) */
  scopes: { own: LimitScope; viaGateway: LimitScope };
  /**
   * QoS 1 messages sent to a clean session and not yet PUBACKed, oldest first: the RPC request each was
   * (null for the others). A client PUBACKs in the order it received (MQTT 3.1.1 4.6), and aedes tells
   * which packet a PUBACK is for only for sessions it stores.
   */
  unacked: (RpcRef | null)[];
  connectedAt: number;
  messagesIn: number;
  messagesOut: number;
  /** the answer to its last publish (null before the first) */
  lastReasonCode: number | null;
  /** the inspector's tap (taps only while active) */
  tap: TrafficTap;
}

export interface RpcRef {
  deviceId: string;
  requestId: number;
}

const UNACKED_KEPT = 1000;

export const PLATFORM_BROKER_ID = 'sandboard-platform';

// aedes calls the delivery callback unconditionally; a failed write closes the client by itself.
const noop = () => undefined;

/**
 * Who is connected and how to reach a device: its own sessions (several may share a token) and the
 * gateway session it was last connected through.
 */
export class SessionRegistry {
  private readonly byClient = new Map<Client, Session>();
  private readonly direct = new Map<string, Set<Session>>();
  private readonly viaGateway = new Map<string, Session>();

  add(session: Session): void {
    this.byClient.set(session.client, session);
    let set = this.direct.get(session.device.id);
    if (!set) this.direct.set(session.device.id, (set = new Set()));
    set.add(session);
  }

  get(client: Client): Session | undefined {
    return this.byClient.get(client);
  }

  /** Removes a session; returns the devices that were connected through it. */
  remove(client: Client): { session: Session; subDevices: DeviceRow[] } | undefined {
    const session = this.byClient.get(client);
    if (!session) return undefined;
    this.byClient.delete(client);
    const set = this.direct.get(session.device.id);
    set?.delete(session);
    if (set?.size === 0) this.direct.delete(session.device.id);
    const subDevices: DeviceRow[] = [];
    for (const device of session.subDevices.values()) {
      if (this.viaGateway.get(device.id) === session) {
        this.viaGateway.delete(device.id);
        subDevices.push(device);
      }
    }
    return { session, subDevices };
  }

  connectSubDevice(session: Session, device: DeviceRow): void {
    session.subDevices.set(device.name, device);
    this.viaGateway.set(device.id, session);
  }

  disconnectSubDevice(session: Session, name: string): DeviceRow | undefined {
    const device = session.subDevices.get(name);
    if (!device) return undefined;
    session.subDevices.delete(name);
    if (this.viaGateway.get(device.id) === session) this.viaGateway.delete(device.id);
    return device;
  }

  /** Forgets a deleted device everywhere; returns its own sessions so they can be closed. */
  forgetDevice(deviceId: string): Session[] {
    const gw = this.viaGateway.get(deviceId);
    if (gw) {
      for (const [name, d] of gw.subDevices) if (d.id === deviceId) gw.subDevices.delete(name);
      this.viaGateway.delete(deviceId);
    }
    return [...(this.direct.get(deviceId) ?? [])];
  }

  directSessions(deviceId: string): Session[] {
    return [...(this.direct.get(deviceId) ?? [])];
  }

  gatewaySession(deviceId: string): Session | undefined {
    return this.viaGateway.get(deviceId);
  }

  sessions(): Session[] {
    return [...this.byClient.values()];
  }

  counts(): { sessions: number; gatewaySessions: number; devicesViaGateways: number } {
    let gatewaySessions = 0;
    for (const s of this.byClient.values()) if (s.gateway) gatewaySessions++;
    return { sessions: this.byClient.size, gatewaySessions, devicesViaGateways: this.viaGateway.size };
  }
}

/** Writes a JSON message to a client whether or not it subscribed (ThingsBoard's own answers, e.g. provisioning). */
export function writeJson(client: Client, topic: string, body: unknown, qos: 0 | 1 = 1): void {
  if (client.closed) return;
  writePayload(client, topic, Buffer.from(JSON.stringify(body)), qos);
}

function writePayload(client: Client, topic: string, payload: Buffer, qos: 0 | 1): void {
  client.publish(
    {
      cmd: 'publish',
      topic,
      payload,
      qos,
      retain: false,
      dup: false,
      brokerId: PLATFORM_BROKER_ID,
    } as Parameters<Client['publish']>[0],
    noop,
  );
}

export function publishUnsubscribed(session: Session, topic: string, body: unknown): void {
  if (session.client.closed) return;
  sendToSession(session, topic, body, 1);
  awaitAck(session, 1, null);
}

function sendToSession(session: Session, topic: string, body: unknown, qos: 0 | 1): void {
  const payload = Buffer.from(JSON.stringify(body));
  session.messagesOut++;
  if (session.tap.active) session.tap.outgoing(session, topic, payload, qos);
  writePayload(session.client, topic, payload, qos);
}

/** Sends a JSON message to one session on a topic it subscribed to; false if it did not. */
export function sendJson(session: Session, topic: string, body: unknown): boolean {
  return publishJson(session, topic, body) >= 0;
}

/** sendJson telling the QoS it was published with (a QoS 1 message is PUBACKed): -1 when not sent. */
export function publishJson(
  session: Session,
  topic: string,
  body: unknown,
  rpc: RpcRef | null = null,
): -1 | 0 | 1 {
  let qos = -1;
  for (const [filter, q] of session.subscriptions) if (topicMatches(filter, topic)) qos = Math.max(qos, q);
  if (qos < 0 || session.client.closed) return -1;
  const sent = Math.min(qos, 1) as 0 | 1;
  sendToSession(session, topic, body, sent);
  awaitAck(session, sent, rpc);
  return sent;
}

/**
 * Sends bytes to a session whether or not it subscribed (ThingsBoard's transport answers package requests
 * so), with the QoS of a matching subscription, else 1.
 */
export function sendBytes(session: Session, topic: string, payload: Buffer): void {
  if (session.client.closed) return;
  let qos = -1;
  for (const [filter, q] of session.subscriptions) if (topicMatches(filter, topic)) qos = Math.max(qos, q);
  const sent = (qos < 0 ? 1 : Math.min(qos, 1)) as 0 | 1;
  session.messagesOut++;
  if (session.tap.active) session.tap.outgoing(session, topic, payload, sent);
  writePayload(session.client, topic, payload, sent);
  awaitAck(session, sent, null);
}

/** Keeps what a QoS 1 message to a clean session was, until its PUBACK. */
function awaitAck(session: Session, qos: 0 | 1, rpc: RpcRef | null): void {
  if (qos === 0 || !session.client.clean) return;
  session.unacked.push(rpc);
  if (session.unacked.length > UNACKED_KEPT) session.unacked.shift();
}
