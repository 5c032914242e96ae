import { Type, type Static } from 'typebox';

/** Rule engine message types, with ThingsBoard's names. */
export const MSG_TYPES = [
  'POST_TELEMETRY_REQUEST',
  'POST_ATTRIBUTES_REQUEST',
  'ATTRIBUTES_UPDATED',
  'ATTRIBUTES_DELETED',
  'TIMESERIES_UPDATED',
  'TIMESERIES_DELETED',
  'ALARM',
  'ALARM_ACK',
  'ALARM_CLEAR',
  'ALARM_CREATED',
  'ALARM_UPDATED',
  'ALARM_SEVERITY_UPDATED',
  'ALARM_ASSIGNED',
  'ALARM_UNASSIGNED',
  'ALARM_DELETE',
  'RELATION_ADD_OR_UPDATE',
  'RELATION_DELETED',
  'CONNECT_EVENT',
  'DISCONNECT_EVENT',
  'ACTIVITY_EVENT',
  'INACTIVITY_EVENT',
  'TO_SERVER_RPC_REQUEST',
  'RPC_CALL_FROM_SERVER_TO_DEVICE',
  'ENTITY_CREATED',
  'ENTITY_DELETED',
  'PROVISION_SUCCESS',
  'PROVISION_FAILURE',
] as const;
export type MsgType = (typeof MSG_TYPES)[number];

export const RuleNodeJson = Type.Object({
  id: Type.Optional(Type.Object({ entityType: Type.Optional(Type.Literal('RULE_NODE')), id: Type.String() })),
  type: Type.String({
    minLength: 1,
    description: 'Node class, e.g. org.thingsboard.rule.engine.telemetry.TbMsgTimeseriesNode',
  }),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  debugMode: Type.Optional(Type.Boolean()),
  configuration: Type.Record(Type.String(), Type.Unknown()),
  additionalInfo: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
});
export type RuleNodeJson = Static<typeof RuleNodeJson>;

export const NodeConnection = Type.Object({
  fromIndex: Type.Integer({ minimum: 0 }),
  toIndex: Type.Integer({ minimum: 0 }),
  type: Type.String({ minLength: 1, description: 'Relation type, e.g. Success, Post telemetry' }),
});
export type NodeConnection = Static<typeof NodeConnection>;

export const RuleChainMetadata = Type.Object({
  ruleChainId: Type.Optional(
    Type.Object({ entityType: Type.Optional(Type.Literal('RULE_CHAIN')), id: Type.String() }),
  ),
  version: Type.Optional(Type.Integer()),
  firstNodeIndex: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  nodes: Type.Array(RuleNodeJson),
  connections: Type.Union([Type.Array(NodeConnection), Type.Null()]),
  ruleChainConnections: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()])),
});
export type RuleChainMetadata = Static<typeof RuleChainMetadata>;

export const RuleChain = Type.Object({
  id: Type.Object({ entityType: Type.Literal('RULE_CHAIN'), id: Type.String() }),
  createdTime: Type.Integer(),
  tenantId: Type.Object({ entityType: Type.Literal('TENANT'), id: Type.String() }),
  name: Type.String(),
  type: Type.String(),
  root: Type.Boolean(),
  debugMode: Type.Boolean(),
  firstRuleNodeId: Type.Union([
    Type.Object({ entityType: Type.Literal('RULE_NODE'), id: Type.String() }),
    Type.Null(),
  ]),
  configuration: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  additionalInfo: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
});
export type RuleChain = Static<typeof RuleChain>;

/** Node classes Sandboard runs, with ThingsBoard's class names. */
export const NODE_TYPES = {
  msgTypeSwitch: 'org.thingsboard.rule.engine.filter.TbMsgTypeSwitchNode',
  saveTimeseries: 'org.thingsboard.rule.engine.telemetry.TbMsgTimeseriesNode',
  saveAttributes: 'org.thingsboard.rule.engine.telemetry.TbMsgAttributesNode',
  log: 'org.thingsboard.rule.engine.action.TbLogNode',
  rpcCallRequest: 'org.thingsboard.rule.engine.rpc.TbSendRPCRequestNode',
  pushToEdge: 'org.thingsboard.rule.engine.edge.TbMsgPushToEdgeNode',
  scriptFilter: 'org.thingsboard.rule.engine.filter.TbJsFilterNode',
  scriptSwitch: 'org.thingsboard.rule.engine.filter.TbJsSwitchNode',
  scriptTransform: 'org.thingsboard.rule.engine.transform.TbTransformMsgNode',
  msgGenerator: 'org.thingsboard.rule.engine.debug.TbMsgGeneratorNode',
} as const;
