import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { failure, success, type NodeDefinition } from '../rule-node.ts';
import type { TbMsg } from '../../platform/tb-msg.ts';

const SCOPES = ['SERVER_SCOPE', 'CLIENT_SCOPE', 'SHARED_SCOPE'];

/**
 * An edge event of a message. type and entityId default to the originator's; alarm and relation events
 * name their own (type ALARM with the alarm's id, as ThingsBoard; RELATION).
 */
export interface EdgeEventOf {
  action: string;
  body: unknown;
  type?: string;
  entityId?: string;
}

/** The alarm's own id in an alarm message's data, else the originator's (a message fed by hand). */
function alarmEvent(msg: TbMsg, action: string): EdgeEventOf {
  const id = (msg.data as { id?: { id?: unknown } } | null)?.id?.id;
  return { action, body: msg.data, type: 'ALARM', entityId: typeof id === 'string' ? id : msg.originator.id };
}

/** The edge event action and body of a message, per ThingsBoard's mapping; null for unsupported types. */
export function toEdgeEvent(msg: TbMsg, configScope: string): EdgeEventOf | null {
  const metaTs = Number(msg.metadata.ts);
  const ts = msg.metadata.ts !== undefined && Number.isFinite(metaTs) ? metaTs : msg.ts;
  const scope = msg.metadata.scope ? msg.metadata.scope : configScope;
  switch (msg.type) {
    case 'POST_TELEMETRY_REQUEST':
    case 'TIMESERIES_UPDATED':
      return { action: 'TIMESERIES_UPDATED', body: { data: msg.data, ts } };
    case 'ATTRIBUTES_UPDATED':
      return { action: 'ATTRIBUTES_UPDATED', body: { kv: msg.data, ts, scope } };
    case 'POST_ATTRIBUTES_REQUEST':
      return { action: 'POST_ATTRIBUTES', body: { kv: msg.data, ts, scope, isPostAttributes: true } };
    case 'ATTRIBUTES_DELETED': {
      const data = msg.data as { attributes?: unknown; keys?: unknown } | null;
      const keys = Array.isArray(data?.attributes)
        ? data.attributes
        : Array.isArray(data?.keys)
          ? data.keys
          : [];
      return { action: 'ATTRIBUTES_DELETED', body: { keys, scope } };
    }
    case 'CONNECT_EVENT':
    case 'DISCONNECT_EVENT':
    case 'ACTIVITY_EVENT':
    case 'INACTIVITY_EVENT':
      return msg.metadata.scope
        ? { action: 'ATTRIBUTES_UPDATED', body: { kv: msg.data, ts, scope } }
        : { action: 'TIMESERIES_UPDATED', body: { data: msg.data, ts } };
    case 'ALARM':
    case 'ALARM_CREATED':
    case 'ALARM_UPDATED':
    case 'ALARM_SEVERITY_UPDATED':
      return alarmEvent(
        msg,
        msg.metadata.isNewAlarm === 'true'
          ? 'ADDED'
          : msg.metadata.isClearedAlarm === 'true'
            ? 'ALARM_CLEAR'
            : 'UPDATED',
      );
    case 'ALARM_ACK':
    case 'ALARM_CLEAR':
      return alarmEvent(msg, msg.type);
    case 'RELATION_ADD_OR_UPDATE':
    case 'RELATION_DELETED':
      // Sandboard's own: ThingsBoard syncs relations to edges outside the rule engine.
      return { action: msg.type, body: msg.data, type: 'RELATION' };
    case 'TO_SERVER_RPC_REQUEST':
      // ThingsBoard throws here; Sandboard keeps it as an RPC event for the edge.
      return { action: 'RPC_CALL', body: { data: msg.data, requestId: msg.metadata.requestId ?? null, ts } };
    default:
      return null;
  }
}

/** The push to edge node's configuration problem, naming the field; null when it is valid. */
export function validatePushToEdgeConfiguration(configuration: Record<string, unknown>): string | null {
  const extra = Object.keys(configuration).filter((k) => k !== 'scope');
  if (extra.length) return `'${extra[0]}' is not allowed (the only property is 'scope')`;
  if (configuration.scope === undefined) return "'scope' is required";
  if (typeof configuration.scope !== 'string' || !SCOPES.includes(configuration.scope)) {
    return "'scope' must be one of SERVER_SCOPE, CLIENT_SCOPE, SHARED_SCOPE";
  }
  return null;
}

/**
 * Push to edge: turns a message into an edge event for every edge its originator belongs to and emits
 * Success, with the message unchanged, only after every event is durable.
 */
export const pushToEdgeNode: NodeDefinition = {
  type: NODE_TYPES.pushToEdge,
  label: 'Push to edge',
  componentType: 'ACTION',
  description: 'Push messages from cloud to edge',
  ruleChainTypes: ['CORE'],
  relations: ['Success', 'Failure'],
  defaultConfiguration: { scope: 'SERVER_SCOPE' },
  validate: validatePushToEdgeConfiguration,
  create: (config, env) => ({
    async process(msg) {
      // Came from an edge: acknowledged and dropped, so nothing loops back to it.
      if (msg.metadata.source === 'edge') return [];
      const event = toEdgeEvent(msg, String(config.scope ?? 'SERVER_SCOPE'));
      if (!event) return failure(msg, new Error(`Unsupported message type ${msg.type}`));
      try {
        const edgeIds = env.services.edges.edgesFor(msg.originator.entityType, msg.originator.id);
        if (edgeIds.length === 0) return [];
        // Resolves once the events are durable (and wakes the edges' long polls).
        await env.edgeQueue.enqueueDurable(
          edgeIds.map((edgeId) => ({
            edgeId,
            type: event.type ?? msg.originator.entityType,
            action: event.action,
            entityId: event.entityId ?? msg.originator.id,
            body: event.body,
          })),
        );
        return success(msg);
      } catch (err) {
        return failure(msg, err);
      }
    },
  }),
};
