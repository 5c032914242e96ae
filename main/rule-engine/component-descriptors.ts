import { createHash } from 'node:crypto';
import type { TSchema } from 'typebox';
import type { ComponentDescriptor, ComponentType, RuleChainType } from '../../shared/rule-engine.ts';
import type { NodeDefinition } from './rule-node.ts';

const DOCS = 'https://thingsboard.io/docs/user-guide/rule-engine-2-0/nodes/';

/** ThingsBoard's @RuleNode name, configDirective, icon and docs page of each node class it ships. */
const TB_ANNOTATIONS: Record<string, [name: string, configDirective: string, icon: string, doc: string]> = {
  TbMsgTypeSwitchNode: ['message type switch', 'tbNodeEmptyConfig', '', 'filter/message-type-switch/'],
  TbMsgTypeFilterNode: [
    'message type filter',
    'tbFilterNodeMessageTypeConfig',
    '',
    'filter/message-type-filter/',
  ],
  TbOriginatorTypeFilterNode: [
    'entity type filter',
    'tbFilterNodeOriginatorTypeConfig',
    '',
    'filter/entity-type-filter/',
  ],
  TbOriginatorTypeSwitchNode: ['entity type switch', 'tbNodeEmptyConfig', '', 'filter/entity-type-switch/'],
  TbCheckMessageNode: [
    'check fields presence',
    'tbFilterNodeCheckMessageConfig',
    '',
    'filter/check-fields-presence/',
  ],
  TbCheckRelationNode: [
    'check relation presence',
    'tbFilterNodeCheckRelationConfig',
    '',
    'filter/check-relation-presence/',
  ],
  TbCheckAlarmStatusNode: [
    'alarm status filter',
    'tbFilterNodeCheckAlarmStatusConfig',
    '',
    'filter/alarm-status-filter/',
  ],
  TbJsFilterNode: ['script', 'tbFilterNodeScriptConfig', '', 'filter/script/'],
  TbJsSwitchNode: ['switch', 'tbFilterNodeSwitchConfig', '', 'filter/switch/'],
  TbGetAttributesNode: [
    'originator attributes',
    'tbEnrichmentNodeOriginatorAttributesConfig',
    '',
    'enrichment/originator-attributes/',
  ],
  TbGetTelemetryNode: [
    'originator telemetry',
    'tbEnrichmentNodeGetTelemetryFromDatabase',
    '',
    'enrichment/originator-telemetry/',
  ],
  TbGetOriginatorFieldsNode: [
    'originator fields',
    'tbEnrichmentNodeOriginatorFieldsConfig',
    '',
    'enrichment/originator-fields/',
  ],
  TbGetCustomerAttributeNode: [
    'customer attributes',
    'tbEnrichmentNodeCustomerAttributesConfig',
    '',
    'enrichment/customer-attributes/',
  ],
  TbGetTenantAttributeNode: [
    'tenant attributes',
    'tbEnrichmentNodeTenantAttributesConfig',
    '',
    'enrichment/tenant-attributes/',
  ],
  TbGetRelatedAttributeNode: [
    'related entity data',
    'tbEnrichmentNodeRelatedAttributesConfig',
    '',
    'enrichment/related-entity-data/',
  ],
  CalculateDeltaNode: [
    'calculate delta',
    'tbEnrichmentNodeCalculateDeltaConfig',
    '',
    'enrichment/calculate-delta/',
  ],
  TbChangeOriginatorNode: [
    'change originator',
    'tbTransformationNodeChangeOriginatorConfig',
    'find_replace',
    'transformation/change-originator/',
  ],
  TbCopyKeysNode: [
    'copy key-value pairs',
    'tbTransformationNodeCopyKeysConfig',
    'content_copy',
    'transformation/copy-key-value-pairs/',
  ],
  TbRenameKeysNode: [
    'rename keys',
    'tbTransformationNodeRenameKeysConfig',
    'find_replace',
    'transformation/rename-keys/',
  ],
  TbDeleteKeysNode: [
    'delete key-value pairs',
    'tbTransformationNodeDeleteKeysConfig',
    'remove_circle',
    'transformation/delete-key-value-pairs/',
  ],
  TbJsonPathNode: [
    'json path',
    'tbTransformationNodeJsonPathConfig',
    'functions',
    'transformation/json-path/',
  ],
  TbSplitArrayMsgNode: [
    'split array msg',
    'tbNodeEmptyConfig',
    'content_copy',
    'transformation/split-array-msg/',
  ],
  TbTransformMsgNode: ['script', 'tbTransformationNodeScriptConfig', '', 'transformation/script/'],
  TbMsgGeneratorNode: ['generator', 'tbActionNodeGeneratorConfig', 'repeat', 'action/generator/'],
  TbMsgTimeseriesNode: [
    'save time series',
    'tbActionNodeTimeseriesConfig',
    'file_upload',
    'action/save-timeseries/',
  ],
  TbMsgAttributesNode: [
    'save attributes',
    'tbActionNodeAttributesConfig',
    'file_upload',
    'action/save-attributes/',
  ],
  TbMsgDeleteAttributesNode: [
    'delete attributes',
    'tbActionNodeDeleteAttributesConfig',
    'remove_circle',
    'action/delete-attributes/',
  ],
  TbLogNode: ['log', 'tbActionNodeLogConfig', 'menu', 'action/log/'],
  TbMsgDelayNode: ['delay (deprecated)', 'tbActionNodeMsgDelayConfig', 'pause', 'action/delay/'],
  TbMsgCountNode: ['message count', 'tbActionNodeMsgCountConfig', 'functions', 'action/message-count/'],
  TbAssignToCustomerNode: [
    'assign to customer',
    'tbActionNodeAssignToCustomerConfig',
    'add_circle',
    'action/assign-to-customer/',
  ],
  TbUnassignFromCustomerNode: [
    'unassign from customer',
    'tbActionNodeUnAssignToCustomerConfig',
    'remove_circle',
    'action/unassign-from-customer/',
  ],
  TbCreateAlarmNode: [
    'create alarm',
    'tbActionNodeCreateAlarmConfig',
    'notifications_active',
    'action/create-alarm/',
  ],
  TbClearAlarmNode: [
    'clear alarm',
    'tbActionNodeClearAlarmConfig',
    'notifications_off',
    'action/clear-alarm/',
  ],
  TbMathNode: ['math function', 'tbActionNodeMathFunctionConfig', 'calculate', 'action/math-function/'],
  TbSendRPCRequestNode: [
    'rpc call request',
    'tbActionNodeRpcRequestConfig',
    'call_made',
    'action/rpc-call-request/',
  ],
  TbSendRPCReplyNode: [
    'rpc call reply',
    'tbActionNodeRpcReplyConfig',
    'call_merge',
    'action/rpc-call-reply/',
  ],
  TbSendRestApiCallReplyNode: [
    'rest call reply',
    'tbActionNodeSendRestApiCallReplyConfig',
    'call_merge',
    'action/rest-call-reply/',
  ],
  TbMsgPushToEdgeNode: [
    'push to edge',
    'tbActionNodePushToEdgeConfig',
    'cloud_download',
    'action/push-to-edge/',
  ],
  TbMsgPushToCloudNode: [
    'push to cloud',
    'tbActionNodePushToCloudConfig',
    'cloud_upload',
    'action/push-to-cloud/',
  ],
  TbDeviceProfileNode: [
    'device profile (deprecated)',
    'tbActionNodeDeviceProfileConfig',
    '',
    'action/device-profile/',
  ],
  TbRestApiCallNode: ['rest api call', 'tbExternalNodeRestApiCallConfig', '', 'external/rest-api-call/'],
  TbMqttNode: ['mqtt', 'tbExternalNodeMqttConfig', 'call_split', 'external/mqtt/'],
  TbRuleChainInputNode: ['rule chain', 'tbFlowNodeRuleChainInputConfig', '', 'flow/rule-chain/'],
  TbRuleChainOutputNode: ['output', 'tbFlowNodeRuleChainOutputConfig', '', 'flow/output/'],
};

/** A stable id per class, as ThingsBoard's persisted descriptor would have one. */
function descriptorId(clazz: string): string {
  const h = createHash('sha1').update(`component:${clazz}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function componentTypeOf(def: NodeDefinition): ComponentType {
  return def.componentType ?? 'ACTION';
}

export function offeredFor(def: NodeDefinition, chainType: RuleChainType): boolean {
  return !def.ruleChainTypes || def.ruleChainTypes.includes(chainType);
}

/** ThingsBoard's documentation page of a node type ('' for types ThingsBoard does not ship). */
export function docUrlOf(def: NodeDefinition): string {
  const doc = TB_ANNOTATIONS[def.type.slice(def.type.lastIndexOf('.') + 1)]?.[3];
  return doc ? DOCS + doc : '';
}

/** ThingsBoard's ComponentDescriptor of a node type, as /api/components returns it. */
export function componentDescriptor(def: NodeDefinition): ComponentDescriptor {
  const short = def.type.slice(def.type.lastIndexOf('.') + 1);
  const [name, configDirective, icon] = TB_ANNOTATIONS[short] ?? [def.label, '', ''];
  const relationTypes =
    def.relations.includes('Failure') || def.outEnabled === false
      ? def.relations
      : [...def.relations, 'Failure'];
  return {
    id: { id: descriptorId(def.type) },
    createdTime: 0,
    type: componentTypeOf(def),
    scope: 'TENANT',
    clusteringMode: def.type.endsWith('.TbMqttNode') ? 'USER_PREFERENCE' : 'ENABLED',
    name,
    clazz: def.type,
    configurationDescriptor: {
      nodeDefinition: {
        details: def.details ?? def.description ?? '',
        description: def.description ?? def.label,
        inEnabled: true,
        outEnabled: def.outEnabled !== false,
        relationTypes,
        customRelations: def.customRelations === true,
        ruleChainNode: def.ruleChainNode === true,
        defaultConfiguration: def.defaultConfiguration,
        uiResources: [],
        configDirective,
        icon,
        iconUrl: '',
        docUrl: docUrlOf(def),
      },
      configurationSchema: def.configurationSchema as TSchema | undefined,
    },
    configurationVersion: def.version ?? 0,
    actions: null,
    hasQueueName: false,
  };
}
