import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import type { NodeDefinition } from '../rule-node.ts';

/** ThingsBoard's relation names for each message type; anything else goes to "Other". */
const RELATIONS: Record<string, string> = {
  POST_TELEMETRY_REQUEST: 'Post telemetry',
  POST_ATTRIBUTES_REQUEST: 'Post attributes',
  TO_SERVER_RPC_REQUEST: 'RPC Request from Device',
  RPC_CALL_FROM_SERVER_TO_DEVICE: 'RPC Request to Device',
  ATTRIBUTES_UPDATED: 'Attributes Updated',
  ATTRIBUTES_DELETED: 'Attributes Deleted',
  TIMESERIES_UPDATED: 'Timeseries Updated',
  TIMESERIES_DELETED: 'Timeseries Deleted',
  ACTIVITY_EVENT: 'Activity Event',
  INACTIVITY_EVENT: 'Inactivity Event',
  CONNECT_EVENT: 'Connect Event',
  DISCONNECT_EVENT: 'Disconnect Event',
  ENTITY_CREATED: 'Entity Created',
  ENTITY_DELETED: 'Entity Deleted',
  ALARM: 'Alarm',
  ALARM_ACK: 'Alarm Acknowledged',
  ALARM_CLEAR: 'Alarm Cleared',
  ALARM_CREATED: 'Alarm Created',
  ALARM_UPDATED: 'Alarm Updated',
  ALARM_SEVERITY_UPDATED: 'Alarm Severity Updated',
  ALARM_ASSIGNED: 'Alarm Assigned',
  ALARM_UNASSIGNED: 'Alarm Unassigned',
  RELATION_ADD_OR_UPDATE: 'Relation Added or Updated',
  RELATION_DELETED: 'Relation Deleted',
};

export const msgTypeSwitchNode: NodeDefinition = {
  type: NODE_TYPES.msgTypeSwitch,
  label: 'Message Type Switch',
  relations: [...new Set(Object.values(RELATIONS)), 'Other'],
  defaultConfiguration: { version: 0 },
  validate: () => null,
  create: () => ({
    process: (msg) => [{ relation: RELATIONS[msg.type] ?? 'Other', msg }],
  }),
};
