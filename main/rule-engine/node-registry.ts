import { generatorNode } from './nodes/generator-node.ts';
import { logNode } from './nodes/log-node.ts';
import { msgTypeSwitchNode } from './nodes/msg-type-switch-node.ts';
import { pushToEdgeNode } from './nodes/push-to-edge-node.ts';
import { rpcCallRequestNode } from './nodes/rpc-call-request-node.ts';
import { saveAttributesNode } from './nodes/save-attributes-node.ts';
import { saveTimeseriesNode } from './nodes/save-timeseries-node.ts';
import { scriptFilterNode } from './nodes/script-filter-node.ts';
import { scriptSwitchNode } from './nodes/script-switch-node.ts';
import { scriptTransformNode } from './nodes/script-transform-node.ts';
import type { NodeDefinition } from './rule-node.ts';

/** Every node type Sandboard can run, by ThingsBoard class name. */
export function createNodeRegistry(extra: NodeDefinition[] = []): Map<string, NodeDefinition> {
  const all = [
    msgTypeSwitchNode,
    saveTimeseriesNode,
    saveAttributesNode,
    logNode,
    rpcCallRequestNode,
    pushToEdgeNode,
    scriptFilterNode,
    scriptSwitchNode,
    scriptTransformNode,
    generatorNode,
    ...extra,
  ];
  return new Map(all.map((d) => [d.type, d]));
}
