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

/** The nodes ThingsBoard 4.3 puts in a tenant's root chain and in a device profile's new chain. */
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

/**
 * The root chain of a new install, as ThingsBoard 4.3 ships it (application/src/main/data/json/tenant/
 * rule_chains/root_rule_chain.json): the message type switch first, then save, log and RPC nodes.
 * ThingsBoard up to 4.2 put a device profile node before the switch; 4.3 dropped it (alarm rules became
 * calculated fields), so a new install follows 4.3 and chains exported from 4.2 still load and run.
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
      firstNodeIndex: 2,
      nodes: coreNodes(),
      connections: SWITCH_CONNECTIONS,
      ruleChainConnections: null,
    },
  };
}

/** The chain POST /api/ruleChain/device/default creates (ThingsBoard's device profile rule chain template). */
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
