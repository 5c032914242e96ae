/** REST helpers for rule chain tests, and chain files written the way ThingsBoard's UI exports them. */
import { okJson, type ApiPlatform } from '../api/api-kit.ts';

export const TB = {
  switch: 'org.thingsboard.rule.engine.filter.TbMsgTypeSwitchNode',
  saveTs: 'org.thingsboard.rule.engine.telemetry.TbMsgTimeseriesNode',
  saveAttrs: 'org.thingsboard.rule.engine.telemetry.TbMsgAttributesNode',
  log: 'org.thingsboard.rule.engine.action.TbLogNode',
  rpcRequest: 'org.thingsboard.rule.engine.rpc.TbSendRPCRequestNode',
  rpcReply: 'org.thingsboard.rule.engine.rpc.TbSendRPCReplyNode',
  checkFields: 'org.thingsboard.rule.engine.filter.TbCheckMessageNode',
  renameKeys: 'org.thingsboard.rule.engine.transform.TbRenameKeysNode',
  jsonPath: 'org.thingsboard.rule.engine.transform.TbJsonPathNode',
  splitArray: 'org.thingsboard.rule.engine.transform.TbSplitArrayMsgNode',
  input: 'org.thingsboard.rule.engine.flow.TbRuleChainInputNode',
  output: 'org.thingsboard.rule.engine.flow.TbRuleChainOutputNode',
  deviceProfile: 'org.thingsboard.rule.engine.profile.TbDeviceProfileNode',
  /** a ThingsBoard PE class Sandboard does not have */
  unknown: 'org.thingsboard.rule.engine.integration.TbIntegrationDownlinkNode',
};

export interface FileNode {
  type: string;
  name: string;
  debugSettings?: { failuresEnabled: boolean; allEnabled: boolean; allEnabledUntil: number };
  singletonMode?: boolean;
  queueName?: string | null;
  configurationVersion?: number;
  configuration: Record<string, unknown>;
  additionalInfo?: Record<string, unknown>;
}

/** A node as ThingsBoard's UI writes it into an exported file (no id, no chain id). */
export function fileNode(
  type: string,
  name: string,
  configuration: Record<string, unknown>,
  x = 300,
  y = 150,
): FileNode {
  return {
    type,
    name,
    debugSettings: { failuresEnabled: false, allEnabled: false, allEnabledUntil: 0 },
    singletonMode: false,
    queueName: null,
    configurationVersion: 0,
    configuration,
    additionalInfo: { description: '', layoutX: x, layoutY: y },
  };
}

export interface Connection {
  fromIndex: number;
  toIndex: number;
  type: string;
}

/** {"ruleChain": {...}, "metadata": {...}} as ThingsBoard's "Export rule chain" downloads it. */
export function chainFile(name: string, nodes: FileNode[], connections: Connection[], firstNodeIndex = 0) {
  return {
    ruleChain: {
      additionalInfo: { description: '' },
      name,
      type: 'CORE',
      firstRuleNodeId: null,
      root: false,
      debugMode: false,
      configuration: null,
    },
    metadata: { version: 3, firstNodeIndex, nodes, connections, ruleChainConnections: null },
  };
}

export interface MetadataJson {
  ruleChainId: { id: string };
  version: number;
  firstNodeIndex: number | null;
  nodes: (FileNode & { id: { id: string }; debugMode?: boolean })[];
  connections: Connection[];
}

export interface ChainJson {
  id: { id: string };
  name: string;
  type: string;
  root: boolean;
  firstRuleNodeId: { id: string } | null;
}

export function chainApi(p: ApiPlatform, token: string) {
  return {
    importFile: (file: unknown) =>
      okJson<{ ruleChain: ChainJson; metadata: MetadataJson }>(
        p.http('/api/sandboard/ruleChain/import', { method: 'POST', token, json: file }),
      ),
    metadata: (id: string) => okJson<MetadataJson>(p.http(`/api/ruleChain/${id}/metadata`, { token })),
    saveMetadata: (md: unknown) =>
      okJson<MetadataJson>(p.http('/api/ruleChain/metadata', { method: 'POST', token, json: md })),
    setRoot: (id: string) =>
      okJson<ChainJson>(p.http(`/api/ruleChain/${id}/root`, { method: 'POST', token })),
    rootId: async () =>
      (
        await okJson<{ data: ChainJson[] }>(p.http('/api/ruleChains?pageSize=100&page=0', { token }))
      ).data.find((c) => c.root)!.id.id,
  };
}

/** The node with its failures recorded as debug events (ThingsBoard 4.x's "failures" debug setting). */
export function failuresRecorded(node: FileNode): FileNode {
  return { ...node, debugSettings: { failuresEnabled: true, allEnabled: false, allEnabledUntil: 0 } };
}

/**
 * The errors of a node's Failure events for one originator, newest first: how a user sees a failure that
 * stays inside the rule engine (the device's PUBACK is a plain success, as in ThingsBoard).
 */
export async function nodeFailures(
  p: ApiPlatform,
  token: string,
  nodeId: string,
  originatorId: string,
): Promise<string[]> {
  const page = await okJson<{
    data: { body: { type: string; relationType?: string; entityId: string; error?: string } }[];
  }>(
    p.http(
      `/api/events/RULE_NODE/${nodeId}/DEBUG_RULE_NODE?tenantId=${p.services.ctx.tenantId}&pageSize=100&page=0`,
      { token },
    ),
  );
  return page.data
    .filter(
      (e) => e.body.type === 'OUT' && e.body.relationType === 'Failure' && e.body.entityId === originatorId,
    )
    .map((e) => e.body.error ?? '');
}

/** The id of a chain's node by its name. */
export function nodeIdByName(metadata: MetadataJson, name: string): string {
  const node = metadata.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node named '${name}' in the chain`);
  return node.id.id;
}
