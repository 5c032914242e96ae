import { Type, type Static } from 'typebox';

/** Rule engine message types, with ThingsBoard's names (TbMsgType); any other string is a custom type. */
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
  'ENTITY_UPDATED',
  'ENTITY_DELETED',
  'ENTITY_ASSIGNED',
  'ENTITY_UNASSIGNED',
  'REST_API_REQUEST',
  'PROVISION_SUCCESS',
  'PROVISION_FAILURE',
  'RPC_QUEUED',
  'RPC_SENT',
  'RPC_DELIVERED',
  'RPC_SUCCESSFUL',
  'RPC_TIMEOUT',
  'RPC_EXPIRED',
  'RPC_FAILED',
  'RPC_DELETED',
] as const;
export type MsgType = (typeof MSG_TYPES)[number];

/** ThingsBoard's relation for each message type (TbMsgType.ruleNodeConnection); anything else is "Other". */
export const MSG_TYPE_RELATIONS: Record<string, string> = {
  POST_ATTRIBUTES_REQUEST: 'Post attributes',
  POST_TELEMETRY_REQUEST: 'Post telemetry',
  TO_SERVER_RPC_REQUEST: 'RPC Request from Device',
  ACTIVITY_EVENT: 'Activity Event',
  INACTIVITY_EVENT: 'Inactivity Event',
  CONNECT_EVENT: 'Connect Event',
  DISCONNECT_EVENT: 'Disconnect Event',
  ENTITY_CREATED: 'Entity Created',
  ENTITY_UPDATED: 'Entity Updated',
  ENTITY_DELETED: 'Entity Deleted',
  ENTITY_ASSIGNED: 'Entity Assigned',
  ENTITY_UNASSIGNED: 'Entity Unassigned',
  ATTRIBUTES_UPDATED: 'Attributes Updated',
  ATTRIBUTES_DELETED: 'Attributes Deleted',
  ALARM: 'Alarm',
  ALARM_CREATED: 'Alarm Created',
  ALARM_UPDATED: 'Alarm Updated',
  ALARM_SEVERITY_UPDATED: 'Alarm Severity Updated',
  ALARM_ACK: 'Alarm Acknowledged',
  ALARM_CLEAR: 'Alarm Cleared',
  ALARM_ASSIGNED: 'Alarm Assigned',
  ALARM_UNASSIGNED: 'Alarm Unassigned',
  COMMENT_CREATED: 'Comment Created',
  COMMENT_UPDATED: 'Comment Updated',
  RPC_CALL_FROM_SERVER_TO_DEVICE: 'RPC Request to Device',
  ENTITY_ASSIGNED_FROM_TENANT: 'Entity Assigned From Tenant',
  ENTITY_ASSIGNED_TO_TENANT: 'Entity Assigned To Tenant',
  TIMESERIES_UPDATED: 'Timeseries Updated',
  TIMESERIES_DELETED: 'Timeseries Deleted',
  RPC_QUEUED: 'RPC Queued',
  RPC_SENT: 'RPC Sent',
  RPC_DELIVERED: 'RPC Delivered',
  RPC_SUCCESSFUL: 'RPC Successful',
  RPC_TIMEOUT: 'RPC Timeout',
  RPC_EXPIRED: 'RPC Expired',
  RPC_FAILED: 'RPC Failed',
  RPC_DELETED: 'RPC Deleted',
  RELATION_ADD_OR_UPDATE: 'Relation Added or Updated',
  RELATION_DELETED: 'Relation Deleted',
  RELATIONS_DELETED: 'All Relations Deleted',
  REST_API_REQUEST: 'REST API request',
};

/** ThingsBoard 4.x rule node debug settings: failures kept always, everything until a time. */
export const DebugSettings = Type.Object({
  failuresEnabled: Type.Optional(Type.Boolean()),
  allEnabled: Type.Optional(Type.Boolean({ description: 'true: debug everything for the maximum time' })),
  allEnabledUntil: Type.Optional(Type.Integer({ description: 'ms since epoch; 0: off' })),
});
export type DebugSettings = Static<typeof DebugSettings>;

const Json = Type.Record(Type.String(), Type.Unknown());
/**
 * A number or null as one JSON-schema type list: the server's validator coerces types, and inside a union
 * it would turn null into 0 (or 0 into null); a type list takes both as they are.
 */
const IntegerOrNull = (options: { minimum?: number } = {}) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], ...options });
const StringOrNull = () => Type.Unsafe<string | null>({ type: ['string', 'null'] });

export const RuleNodeJson = Type.Object({
  id: Type.Optional(
    Type.Union([
      Type.Object({ entityType: Type.Optional(Type.Literal('RULE_NODE')), id: Type.String() }),
      Type.Null(),
    ]),
  ),
  createdTime: Type.Optional(Type.Integer()),
  ruleChainId: Type.Optional(
    Type.Union([Type.Object({ entityType: Type.Optional(Type.String()), id: Type.String() }), Type.Null()]),
  ),
  type: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'Node class, e.g. org.thingsboard.rule.engine.telemetry.TbMsgTimeseriesNode',
  }),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  debugMode: Type.Optional(Type.Boolean({ description: 'Deprecated: true turns debugSettings on' })),
  debugSettings: Type.Optional(Type.Union([DebugSettings, Type.Null()])),
  singletonMode: Type.Optional(Type.Boolean()),
  queueName: Type.Optional(StringOrNull()),
  configurationVersion: Type.Optional(Type.Integer({ minimum: 0 })),
  configuration: Json,
  additionalInfo: Type.Optional(Type.Union([Json, Type.Null()])),
  externalId: Type.Optional(Type.Unknown()),
});
export type RuleNodeJson = Static<typeof RuleNodeJson>;

export const NodeConnection = Type.Object({
  fromIndex: Type.Integer({ minimum: 0 }),
  toIndex: Type.Integer({ minimum: 0 }),
  type: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'Relation type, e.g. Success, Post telemetry',
  }),
});
export type NodeConnection = Static<typeof NodeConnection>;

/** Pre-3.x files link nodes to other chains here; import turns them into rule chain nodes. */
export const RuleChainConnection = Type.Object({
  fromIndex: Type.Integer({ minimum: 0 }),
  targetRuleChainId: Type.Object({ entityType: Type.Optional(Type.String()), id: Type.String() }),
  additionalInfo: Type.Optional(Type.Union([Json, Type.Null()])),
  type: Type.String(),
});

const RuleChainRef = Type.Object({
  entityType: Type.Optional(Type.Literal('RULE_CHAIN')),
  id: Type.String(),
});

export const RuleChainMetadata = Type.Object({
  ruleChainId: Type.Optional(RuleChainRef),
  version: Type.Optional(IntegerOrNull()),
  firstNodeIndex: IntegerOrNull({ minimum: 0 }),
  nodes: Type.Array(RuleNodeJson, { maxItems: 1000 }),
  connections: Type.Union([Type.Array(NodeConnection, { maxItems: 10_000 }), Type.Null()]),
  ruleChainConnections: Type.Optional(Type.Union([Type.Array(RuleChainConnection), Type.Null()])),
  notes: Type.Optional(Type.Array(Type.Unknown())),
});
export type RuleChainMetadata = Static<typeof RuleChainMetadata>;

export const RuleChainType = Type.Union([Type.Literal('CORE'), Type.Literal('EDGE')]);
export type RuleChainType = Static<typeof RuleChainType>;

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
  configuration: Type.Union([Json, Type.Null()]),
  additionalInfo: Type.Union([Json, Type.Null()]),
  externalId: Type.Optional(Type.Null()),
  version: Type.Optional(Type.Integer()),
});
export type RuleChain = Static<typeof RuleChain>;

/** POST /api/ruleChain: a new chain (no id) or a rename / retype of one. */
export const SaveRuleChainRequest = Type.Object({
  id: Type.Optional(
    Type.Union([Type.Object({ entityType: Type.Optional(Type.String()), id: Type.String() }), Type.Null()]),
  ),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  type: Type.Optional(Type.Union([RuleChainType, Type.Null()])),
  root: Type.Optional(Type.Boolean()),
  debugMode: Type.Optional(Type.Boolean()),
  firstRuleNodeId: Type.Optional(Type.Unknown()),
  configuration: Type.Optional(Type.Union([Json, Type.Null()])),
  additionalInfo: Type.Optional(Type.Union([Json, Type.Null()])),
  version: Type.Optional(IntegerOrNull()),
});
export type SaveRuleChainRequest = Static<typeof SaveRuleChainRequest>;

/** One file as ThingsBoard's UI exports a chain: {"ruleChain": {...}, "metadata": {...}}. */
export const RuleChainFile = Type.Object({
  ruleChain: Type.Intersect([
    Type.Omit(SaveRuleChainRequest, ['id']),
    Type.Object({ id: Type.Optional(Type.Unknown()) }),
  ]),
  metadata: Type.Intersect([
    Type.Omit(RuleChainMetadata, ['ruleChainId']),
    Type.Object({ ruleChainId: Type.Optional(Type.Unknown()) }),
  ]),
});
export type RuleChainFile = Static<typeof RuleChainFile>;

/** GET /api/ruleChains/export and POST /api/ruleChains/import (ThingsBoard's RuleChainData). */
export const RuleChainData = Type.Object({
  ruleChains: Type.Array(
    Type.Intersect([Type.Omit(SaveRuleChainRequest, ['id']), Type.Object({ id: RuleChainRef })]),
    { maxItems: 1000 },
  ),
  metadata: Type.Array(Type.Intersect([RuleChainMetadata, Type.Object({ ruleChainId: RuleChainRef })]), {
    maxItems: 1000,
  }),
});
export type RuleChainData = Static<typeof RuleChainData>;

export const RuleChainImportResult = Type.Object({
  ruleChainId: Type.Union([
    Type.Object({ entityType: Type.Literal('RULE_CHAIN'), id: Type.String() }),
    Type.Null(),
  ]),
  ruleChainName: Type.String(),
  updated: Type.Optional(Type.Boolean()),
  error: Type.Optional(Type.String()),
});
export type RuleChainImportResult = Static<typeof RuleChainImportResult>;

export const RuleChainOutputLabelsUsage = Type.Object({
  ruleChainId: Type.Object({ entityType: Type.Literal('RULE_CHAIN'), id: Type.String() }),
  ruleNodeId: Type.Object({ entityType: Type.Literal('RULE_NODE'), id: Type.String() }),
  ruleChainName: Type.String(),
  ruleNodeName: Type.String(),
  labels: Type.Array(Type.String()),
});
export type RuleChainOutputLabelsUsage = Static<typeof RuleChainOutputLabelsUsage>;

export const COMPONENT_TYPES = [
  'ENRICHMENT',
  'FILTER',
  'TRANSFORMATION',
  'ACTION',
  'EXTERNAL',
  'FLOW',
] as const;
export type ComponentType = (typeof COMPONENT_TYPES)[number];

/** ThingsBoard's ComponentDescriptor, with the nodeDefinition an editor written for ThingsBoard reads. */
export const ComponentDescriptor = Type.Object({
  id: Type.Object({ id: Type.String() }),
  createdTime: Type.Integer(),
  type: Type.String({ description: 'ENRICHMENT, FILTER, TRANSFORMATION, ACTION, EXTERNAL or FLOW' }),
  scope: Type.Literal('TENANT'),
  clusteringMode: Type.String(),
  name: Type.String(),
  clazz: Type.String(),
  configurationDescriptor: Type.Object({
    nodeDefinition: Type.Object({
      details: Type.String(),
      description: Type.String(),
      inEnabled: Type.Boolean(),
      outEnabled: Type.Boolean(),
      relationTypes: Type.Array(Type.String()),
      customRelations: Type.Boolean(),
      ruleChainNode: Type.Boolean(),
      defaultConfiguration: Json,
      uiResources: Type.Array(Type.String()),
      configDirective: Type.String(),
      icon: Type.String(),
      iconUrl: Type.String(),
      docUrl: Type.String(),
    }),
    configurationSchema: Type.Optional(
      Type.Unknown({ description: 'Sandboard: JSON schema of the configuration' }),
    ),
  }),
  configurationVersion: Type.Integer(),
  actions: Type.Null(),
  hasQueueName: Type.Boolean(),
});
export type ComponentDescriptor = Static<typeof ComponentDescriptor>;

/** A rule node debug event as ThingsBoard's events API returns it (EventInfo of DEBUG_RULE_NODE). */
export const DebugEventInfo = Type.Object({
  id: Type.Object({ entityType: Type.Literal('EVENT'), id: Type.String() }),
  createdTime: Type.Integer(),
  tenantId: Type.Object({ entityType: Type.Literal('TENANT'), id: Type.String() }),
  type: Type.String(),
  uid: Type.String(),
  entityId: Type.Object({ entityType: Type.String(), id: Type.String() }),
  body: Type.Object({
    server: Type.String(),
    type: Type.Union([Type.Literal('IN'), Type.Literal('OUT')]),
    entityId: Type.String({ description: 'Message originator id' }),
    entityType: Type.String({ description: 'Message originator type' }),
    msgId: Type.String(),
    msgType: Type.String(),
    dataType: Type.String(),
    relationType: Type.Optional(Type.String()),
    data: Type.Optional(Type.String()),
    metadata: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
    traceId: Type.String({
      description: 'Sandboard: id of the message this one descends from (splits, delays)',
    }),
    parentMsgId: Type.Optional(Type.String()),
    ruleChainId: Type.String(),
    ruleNodeName: Type.String(),
  }),
});
export type DebugEventInfo = Static<typeof DebugEventInfo>;

/** One debug event of a message's way through the nodes (GET /api/sandboard/ruleEngine/trace/{traceId}). */
export const MessageTraceEvent = Type.Object({
  id: Type.String(),
  ts: Type.Integer(),
  nodeId: Type.String(),
  nodeName: Type.String(),
  ruleChainId: Type.String(),
  direction: Type.Union([Type.Literal('IN'), Type.Literal('OUT')]),
  relation: Type.Union([Type.String(), Type.Null()], {
    description:
      "IN: the relation the message came by (null at a chain's first node); OUT: the one it left by",
  }),
  msgId: Type.String(),
  traceId: Type.String(),
  parentId: Type.Union([Type.String(), Type.Null()]),
  msgType: Type.String(),
  originator: Type.Object({ entityType: Type.String(), id: Type.String() }),
  data: Type.String({ description: 'JSON text' }),
  metadata: Type.String({ description: 'JSON text of an object of strings' }),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type MessageTraceEvent = Static<typeof MessageTraceEvent>;

/** Node classes, with ThingsBoard's class names. */
export const NODE_TYPES = {
  msgTypeSwitch: 'org.thingsboard.rule.engine.filter.TbMsgTypeSwitchNode',
  msgTypeFilter: 'org.thingsboard.rule.engine.filter.TbMsgTypeFilterNode',
  originatorTypeFilter: 'org.thingsboard.rule.engine.filter.TbOriginatorTypeFilterNode',
  originatorTypeSwitch: 'org.thingsboard.rule.engine.filter.TbOriginatorTypeSwitchNode',
  checkMessage: 'org.thingsboard.rule.engine.filter.TbCheckMessageNode',
  checkRelation: 'org.thingsboard.rule.engine.filter.TbCheckRelationNode',
  checkAlarmStatus: 'org.thingsboard.rule.engine.filter.TbCheckAlarmStatusNode',
  originatorAttributes: 'org.thingsboard.rule.engine.metadata.TbGetAttributesNode',
  originatorTelemetry: 'org.thingsboard.rule.engine.metadata.TbGetTelemetryNode',
  originatorFields: 'org.thingsboard.rule.engine.metadata.TbGetOriginatorFieldsNode',
  customerAttributes: 'org.thingsboard.rule.engine.metadata.TbGetCustomerAttributeNode',
  tenantAttributes: 'org.thingsboard.rule.engine.metadata.TbGetTenantAttributeNode',
  relatedEntityData: 'org.thingsboard.rule.engine.metadata.TbGetRelatedAttributeNode',
  calculateDelta: 'org.thingsboard.rule.engine.metadata.CalculateDeltaNode',
  changeOriginator: 'org.thingsboard.rule.engine.transform.TbChangeOriginatorNode',
  copyKeys: 'org.thingsboard.rule.engine.transform.TbCopyKeysNode',
  renameKeys: 'org.thingsboard.rule.engine.transform.TbRenameKeysNode',
  deleteKeys: 'org.thingsboard.rule.engine.transform.TbDeleteKeysNode',
  jsonPath: 'org.thingsboard.rule.engine.transform.TbJsonPathNode',
  splitArray: 'org.thingsboard.rule.engine.transform.TbSplitArrayMsgNode',
  scriptTransform: 'org.thingsboard.rule.engine.transform.TbTransformMsgNode',
  delay: 'org.thingsboard.rule.engine.delay.TbMsgDelayNode',
  msgCount: 'org.thingsboard.rule.engine.action.TbMsgCountNode',
  log: 'org.thingsboard.rule.engine.action.TbLogNode',
  assignToCustomer: 'org.thingsboard.rule.engine.action.TbAssignToCustomerNode',
  unassignFromCustomer: 'org.thingsboard.rule.engine.action.TbUnassignFromCustomerNode',
  createAlarm: 'org.thingsboard.rule.engine.action.TbCreateAlarmNode',
  clearAlarm: 'org.thingsboard.rule.engine.action.TbClearAlarmNode',
  saveTimeseries: 'org.thingsboard.rule.engine.telemetry.TbMsgTimeseriesNode',
  saveAttributes: 'org.thingsboard.rule.engine.telemetry.TbMsgAttributesNode',
  deleteAttributes: 'org.thingsboard.rule.engine.telemetry.TbMsgDeleteAttributesNode',
  math: 'org.thingsboard.rule.engine.math.TbMathNode',
  rpcCallRequest: 'org.thingsboard.rule.engine.rpc.TbSendRPCRequestNode',
  rpcCallReply: 'org.thingsboard.rule.engine.rpc.TbSendRPCReplyNode',
  restCallReply: 'org.thingsboard.rule.engine.rest.TbSendRestApiCallReplyNode',
  pushToEdge: 'org.thingsboard.rule.engine.edge.TbMsgPushToEdgeNode',
  scriptFilter: 'org.thingsboard.rule.engine.filter.TbJsFilterNode',
  scriptSwitch: 'org.thingsboard.rule.engine.filter.TbJsSwitchNode',
  msgGenerator: 'org.thingsboard.rule.engine.debug.TbMsgGeneratorNode',
  pushToCloud: 'org.thingsboard.rule.engine.edge.TbMsgPushToCloudNode',
  restApiCall: 'org.thingsboard.rule.engine.rest.TbRestApiCallNode',
  mqtt: 'org.thingsboard.rule.engine.mqtt.TbMqttNode',
  ruleChainInput: 'org.thingsboard.rule.engine.flow.TbRuleChainInputNode',
  ruleChainOutput: 'org.thingsboard.rule.engine.flow.TbRuleChainOutputNode',
  deviceProfile: 'org.thingsboard.rule.engine.profile.TbDeviceProfileNode',
} as const;
