import { NODE_TYPES, type RuleChainFile } from '../../shared/rule-engine.ts';

type FileNode = RuleChainFile['metadata']['nodes'][number];

const LOG_SCRIPT =
  "return '\\nIncoming message:\\n' + JSON.stringify(msg) + '\\nIncoming metadata:\\n' + JSON.stringify(metadata);";

const node = (
  type: string,
  name: string,
  configuration: Record<string, unknown>,
  x: number,
  y: number,
  configurationVersion?: number,
): FileNode => ({
  additionalInfo: { layoutX: x, layoutY: y },
  type,
  name,
  ...(configurationVersion !== undefined ? { configurationVersion } : {}),
  configuration,
});

/** The nodes ThingsBoard puts in a tenant's root chain and in a device profile's new chain after its first. */
function coreNodes(): FileNode[] {
  return [
    node(
      NODE_TYPES.saveTimeseries,
      'Save Timeseries',
      { defaultTTL: 0, useServerTs: false, processingSettings: { type: 'ON_EVERY_MESSAGE' } },
      820,
      160,
      1,
    ),
    node(
      NODE_TYPES.saveAttributes,
      'Save Client Attributes',
      {
        processingSettings: { type: 'ON_EVERY_MESSAGE' },
        scope: 'CLIENT_SCOPE',
        notifyDevice: false,
        sendAttributesUpdatedNotification: false,
        updateAttributesOnlyOnValueChange: true,
      },
      820,
      50,
      3,
    ),
    node(NODE_TYPES.msgTypeSwitch, 'Message Type Switch', { version: 0 }, 350, 150),
    node(
      NODE_TYPES.log,
      'Log RPC from Device',
      { scriptLang: 'TBEL', jsScript: LOG_SCRIPT, tbelScript: LOG_SCRIPT },
      820,
      270,
    ),
    node(
      NODE_TYPES.log,
      'Log Other',
      { scriptLang: 'TBEL', jsScript: LOG_SCRIPT, tbelScript: LOG_SCRIPT },
      820,
      380,
    ),
    node(NODE_TYPES.rpcCallRequest, 'RPC Call Request', { timeoutInSeconds: 60 }, 820, 470),
  ];
}

const SWITCH_CONNECTIONS = [
  { fromIndex: 2, toIndex: 4, type: 'Other' },
  { fromIndex: 2, toIndex: 1, type: 'Post attributes' },
  { fromIndex: 2, toIndex: 0, type: 'Post telemetry' },
  { fromIndex: 2, toIndex: 3, type: 'RPC Request from Device' },
  { fromIndex: 2, toIndex: 5, type: 'RPC Request to Device' },
];

/** ThingsBoard 4.0-4.2's first node of the root chain: alarm rules of device profiles, then the switch. */
function deviceProfileNode(): FileNode {
  const n = node(
    NODE_TYPES.deviceProfile,
    'Device Profile Node',
    { persistAlarmRulesState: false, fetchAlarmRulesStateOnStart: false },
    204,
    240,
  );
  n.additionalInfo = {
    description:
      'Process incoming messages from devices with the alarm rules defined in the device profile. Dispatch all incoming messages with "Success" relation type.',
    layoutX: 204,
    layoutY: 240,
  };
  return n;
}

/**
 * The root chain of a new install, as ThingsBoard 4.0-4.2 ship it (application/src/main/data/json/tenant/
 * rule_chains/root_rule_chain.json): the device profile node first, so that device profiles' alarm rules
 * raise and clear alarms, then the message type switch with the save, log and RPC nodes. ThingsBoard 4.3
 * dropped the device profile node (its alarm rules became calculated fields, which Sandboard does not
 * have); an install keeps whatever root chain it has.
 */
export function rootRuleChainFile(name = 'Root Rule Chain', root = true): RuleChainFile {
  return {
    ruleChain: {
      additionalInfo: null,
      name,
      type: 'CORE',
      firstRuleNodeId: null,
      root,
      debugMode: false,
      configuration: null,
    },
    metadata: {
      firstNodeIndex: 6,
      nodes: [...coreNodes(), deviceProfileNode()],
      connections: [{ fromIndex: 6, toIndex: 2, type: 'Success' }, ...SWITCH_CONNECTIONS],
      ruleChainConnections: null,
    },
  };
}

/** The chain POST /api/ruleChain/device/default creates (ThingsBoard 4.2's device profile rule chain template). */
export function deviceProfileRuleChainFile(name: string): RuleChainFile {
  const file = rootRuleChainFile(name, false);
  file.ruleChain.additionalInfo = { description: '' };
  return file;
}

/** ThingsBoard's edge template root chain: what a new edge runs, pushing what it saves to the cloud. */
export function edgeRootRuleChainFile(): RuleChainFile {
  const nodes = coreNodes();
  nodes.push(
    node(NODE_TYPES.pushToCloud, 'Push to cloud', { scope: 'CLIENT_SCOPE' }, 1130, 110),
    node(NODE_TYPES.pushToCloud, 'Push to cloud', { scope: 'SERVER_SCOPE' }, 1130, 380),
  );
  return {
    ruleChain: {
      additionalInfo: null,
      name: 'Edge Root Rule Chain',
      type: 'EDGE',
      firstRuleNodeId: null,
      root: true,
      debugMode: false,
      configuration: null,
    },
    metadata: {
      firstNodeIndex: 2,
      nodes,
      connections: [
        { fromIndex: 0, toIndex: 6, type: 'Success' },
        { fromIndex: 1, toIndex: 6, type: 'Success' },
        { fromIndex: 2, toIndex: 0, type: 'Post telemetry' },
        { fromIndex: 2, toIndex: 1, type: 'Post attributes' },
        { fromIndex: 2, toIndex: 3, type: 'RPC Request from Device' },
        { fromIndex: 2, toIndex: 4, type: 'Other' },
        { fromIndex: 2, toIndex: 5, type: 'RPC Request to Device' },
        { fromIndex: 2, toIndex: 7, type: 'Attributes Deleted' },
        { fromIndex: 2, toIndex: 7, type: 'Attributes Updated' },
      ],
      ruleChainConnections: null,
    },
  };
}
