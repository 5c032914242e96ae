import type { TappedPublish } from '../../../shared/mqtt-tap-events.ts';
import type {
  InspectedMessage,
  InspectorSettings,
  InspectorStatus,
  MessageFilter,
  MqttSessionInfo,
  TopicStats,
} from '../../../shared/schemas/mqtt-inspector.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import { forbidden, notFound } from '../../platform/errors.ts';
import { sessionLimits, type TransportCore } from '../device-messages.ts';
import { gatewayDeviceNames, inspectedMessage, inspectPayload } from './inspected-message.ts';
import type { Session, SessionRegistry } from './session-registry.ts';
import { topicMatches } from './topic-filter.ts';
import { TopicTable, type TrafficTap } from './traffic-tap.ts';

const MAX_PAGE = 1_000;
/** records looked at for one query at most (the ring may hold many more) */
const MAX_SCANNED = 200_000;

/** What a customer user may see: its own customer's devices (the tenant sees everything). */
export interface Visibility {
  tenant: boolean;
  customerId: string | null;
}

export function visibilityOf(p: Principal): Visibility {
  return { tenant: p.authority === 'TENANT_ADMIN', customerId: p.customerId };
}

/**
 * The MQTT page's server side: who is connected, what the tap recorded (filtered, formatted on demand)
 * and per-topic statistics, each limited to what the asking user may see.
 */
export class MqttInspector {
  readonly tap: TrafficTap;
  private readonly registry: SessionRegistry;
  private readonly core: TransportCore;

  constructor(core: TransportCore, registry: SessionRegistry, tap: TrafficTap) {
    this.core = core;
    this.registry = registry;
    this.tap = tap;
  }

  sessions(v: Visibility): MqttSessionInfo[] {
    return this.registry
      .sessions()
      .filter((s) => this.owns(v, s.device.id))
      .map((s) => this.sessionInfo(s))
      .sort((a, b) => a.connectedSince - b.connectedSince);
  }

  /** Ends a session (by session id or client id); a customer user only its own devices'. */
  disconnect(v: Visibility, id: string): void {
    const session = this.registry.sessions().find((s) => s.id === id || s.client.id === id);
    if (!session || !this.owns(v, session.device.id)) throw notFound(`MQTT session [${id}] is not found`);
    session.client.close();
  }

  settings(): InspectorStatus {
    return {
      enabled: this.tap.enabled,
      budgetBytes: this.tap.ring.budget,
      messages: this.tap.ring.size,
      bytes: this.tap.ring.bytes,
      recorded: this.tap.recorded,
      evicted: this.tap.ring.evicted,
    };
  }

  configure(v: Visibility, settings: InspectorSettings): InspectorStatus {
    if (!v.tenant) throw forbidden();
    this.tap.enabled = settings.enabled;
    this.tap.ring.setBudget(settings.budgetBytes);
    return this.settings();
  }

  clear(v: Visibility): void {
    if (!v.tenant) throw forbidden();
    this.tap.clear();
  }

  /** The newest recorded messages matching the filter, newest first. */
  messages(
    v: Visibility,
    filter: MessageFilter,
    limit: number,
  ): { messages: InspectedMessage[]; lastSeq: number; hasMore: boolean } {
    const match = this.matcher(v, filter);
    const found: InspectedMessage[] = [];
    let scanned = 0;
    let hasMore = false;
    const max = Math.min(Math.max(1, limit), MAX_PAGE);
    this.tap.ring.newestFirst((r) => {
      if (filter.afterSeq !== undefined && r.seq <= filter.afterSeq) return false;
      if (++scanned > MAX_SCANNED) return false;
      const m = match(r);
      if (!m) return true;
      if (found.length === max) {
        hasMore = true;
        return false;
      }
      found.push(m);
      return true;
    });
    return { messages: found, lastSeq: this.tap.lastSeq, hasMore };
  }

  /**
   * A test of one record against a filter and a user's visibility: the formatted message, or null. The
   * cheap checks (direction, topic, reason code) come before formatting.
   */
  matcher(v: Visibility, filter: MessageFilter): (r: TappedPublish) => InspectedMessage | null {
    const names = new Map<string, string | null>();
    const deviceIdOf = (name: string) => {
      if (!names.has(name)) names.set(name, this.core.services.devices.findRowByName(name)?.id ?? null);
      return names.get(name)!;
    };
    const text = filter.text?.toLowerCase();
    return (r) => {
      if (filter.direction && r.direction !== filter.direction) return null;
      if (filter.reasonCode !== undefined && r.reasonCode !== filter.reasonCode) return null;
      if (filter.topic && !topicMatches(filter.topic, r.topic)) return null;
      if (!r.gateway && filter.deviceId && r.deviceId !== filter.deviceId) return null;
      if (!r.gateway && !this.owns(v, r.deviceId)) return null;
      const m = inspectedMessage(r, deviceIdOf);
      if (r.gateway && !this.maySeeGatewayMessage(v, m)) return null;
      if (
        filter.deviceId &&
        m.device.id !== filter.deviceId &&
        !m.devices.some((d) => d.id === filter.deviceId)
      )
        return null;
      if (text && !(m.payload.text ?? m.payload.hex).toLowerCase().includes(text)) return null;
      return m;
    };
  }

  topics(v: Visibility): TopicStats[] {
    const now = Date.now();
    return this.tap.topics
      .entries()
      .filter((e) => this.owns(v, e.deviceId) && (v.tenant || this.gatewayTopicVisible(v, e.last)))
      .map((e) => ({
        device: { id: e.deviceId, name: e.last.deviceName },
        topic: e.topic,
        count: e.count,
        lastTs: e.last.ts,
        rate: TopicTable.rate(e, now),
        lastPayload: inspectPayload(e.last.payload),
      }));
  }

  private gatewayTopicVisible(v: Visibility, r: TappedPublish): boolean {
    if (!r.gateway) return true;
    const names = gatewayDeviceNames(r, inspectPayload(r.payload));
    return names.every((n) => this.ownsName(v, n));
  }

  /** A gateway's message: the devices it names must all be the user's; with none, the gateway must be. */
  private maySeeGatewayMessage(v: Visibility, m: InspectedMessage): boolean {
    if (v.tenant) return true;
    if (m.devices.length === 0) return this.owns(v, m.device.id ?? '');
    return m.devices.every((d) => d.id !== null && this.owns(v, d.id));
  }

  private ownsName(v: Visibility, name: string): boolean {
    const row = this.core.services.devices.findRowByName(name);
    return !!row && this.owns(v, row.id);
  }

  private owns(v: Visibility, deviceId: string): boolean {
    if (v.tenant) return true;
    const row = this.core.services.devices.findRow(deviceId);
    return !!row && v.customerId !== null && row.customer_id === v.customerId;
  }

  private sessionInfo(s: Session): MqttSessionInfo {
    const conn = s.client.conn as { remoteAddress?: string; remotePort?: number } | undefined;
    const address = conn?.remoteAddress ? `${conn.remoteAddress}:${conn.remotePort ?? ''}` : '';
    return {
      sessionId: s.id,
      clientId: s.client.id,
      device: { id: s.device.id, name: s.device.name },
      gateway: s.gateway,
      devices: [...s.subDevices.values()].map((d) => ({ id: d.id, name: d.name })),
      protocolVersion: s.client.version ?? 4,
      address,
      connectedSince: s.connectedAt,
      subscriptions: [...s.subscriptions].map(([topic, qos]) => ({ topic, qos })),
      messagesIn: s.messagesIn,
      messagesOut: s.messagesOut,
      lastReasonCode: s.lastReasonCode,
      limits: sessionLimits(this.core, s.gateway),
    };
  }
}
