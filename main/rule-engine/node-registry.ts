import { clearAlarmNode, createAlarmNode } from './nodes/alarm-nodes.ts';
import { generatorNode } from './nodes/generator-node.ts';
import { calculateDeltaNode } from './nodes/calculate-delta-node.ts';
import { changeOriginatorNode } from './nodes/change-originator-node.ts';
import { checkAlarmStatusNode } from './nodes/check-alarm-status-node.ts';
import { checkMessageNode } from './nodes/check-message-node.ts';
import { checkRelationNode } from './nodes/check-relation-node.ts';
import { assignToCustomerNode, unassignFromCustomerNode } from './nodes/customer-nodes.ts';
import { delayNode } from './nodes/delay-node.ts';
import { deleteAttributesNode } from './nodes/delete-attributes-node.ts';
import { deviceProfileNode } from './nodes/device-profile-node.ts';
import {
  customerAttributesNode,
  relatedEntityDataNode,
  tenantAttributesNode,
} from './nodes/entity-data-nodes.ts';
import { ruleChainInputNode, ruleChainOutputNode } from './nodes/flow-nodes.ts';
import { jsonPathNode } from './nodes/json-path-node.ts';
import { copyKeysNode, deleteKeysNode, renameKeysNode } from './nodes/key-nodes.ts';
import { logNode } from './nodes/log-node.ts';
import { mathNode } from './nodes/math-node.ts';
import { mqttNode } from './nodes/mqtt-node.ts';
import { msgCountNode } from './nodes/msg-count-node.ts';
import { msgTypeFilterNode } from './nodes/msg-type-filter-node.ts';
import { msgTypeSwitchNode } from './nodes/msg-type-switch-node.ts';
import { originatorAttributesNode } from './nodes/originator-attributes-node.ts';
import { originatorFieldsNode } from './nodes/originator-fields-node.ts';
import { originatorTelemetryNode } from './nodes/originator-telemetry-node.ts';
import { originatorTypeFilterNode, originatorTypeSwitchNode } from './nodes/originator-type-nodes.ts';
import { pushToCloudNode } from './nodes/push-to-cloud-node.ts';
import { pushToEdgeNode } from './nodes/push-to-edge-node.ts';
import { restApiCallNode } from './nodes/rest-api-call-node.ts';
import { restCallReplyNode, rpcCallReplyNode } from './nodes/reply-nodes.ts';
import { rpcCallRequestNode } from './nodes/rpc-call-request-node.ts';
import { saveAttributesNode } from './nodes/save-attributes-node.ts';
import { saveTimeseriesNode } from './nodes/save-timeseries-node.ts';
import { scriptFilterNode } from './nodes/script-filter-node.ts';
import { scriptSwitchNode } from './nodes/script-switch-node.ts';
import { scriptTransformNode } from './nodes/script-transform-node.ts';
import { splitArrayNode } from './nodes/split-array-node.ts';
import type { NodeDefinition } from './rule-node.ts';

/** Every node type Sandboard runs, in ThingsBoard's palette groups. */
export const BUILT_IN_NODES: NodeDefinition[] = [
  // filter
  scriptFilterNode,
  scriptSwitchNode,
  msgTypeSwitchNode,
  msgTypeFilterNode,
  originatorTypeFilterNode,
  originatorTypeSwitchNode,
  checkMessageNode,
  checkRelationNode,
  checkAlarmStatusNode,
  // enrichment
  originatorAttributesNode,
  originatorTelemetryNode,
  originatorFieldsNode,
  customerAttributesNode,
  tenantAttributesNode,
  relatedEntityDataNode,
  calculateDeltaNode,
  // transformation
  scriptTransformNode,
  changeOriginatorNode,
  copyKeysNode,
  renameKeysNode,
  deleteKeysNode,
  jsonPathNode,
  splitArrayNode,
  // action
  saveTimeseriesNode,
  saveAttributesNode,
  deleteAttributesNode,
  logNode,
  generatorNode,
  delayNode,
  msgCountNode,
  assignToCustomerNode,
  unassignFromCustomerNode,
  createAlarmNode,
  clearAlarmNode,
  mathNode,
  rpcCallRequestNode,
  rpcCallReplyNode,
  restCallReplyNode,
  pushToEdgeNode,
  pushToCloudNode,
  deviceProfileNode,
  // external
  restApiCallNode,
  mqttNode,
  // flow
  ruleChainInputNode,
  ruleChainOutputNode,
];

/** Every node type Sandboard can run, by ThingsBoard class name; `extra` adds (or replaces) types. */
export function createNodeRegistry(extra: NodeDefinition[] = []): Map<string, NodeDefinition> {
  return new Map([...BUILT_IN_NODES, ...extra].map((d) => [d.type, d]));
}
