import { randomUUID } from 'node:crypto';
import type { DurableDb } from '../store/durable-db.ts';

/** ThingsBoard's default root chain: a message type switch feeding save, log and RPC nodes. */
export function defaultRootChainMetadata() {
  const node = (
    type: string,
    name: string,
    configuration: Record<string, unknown>,
    x: number,
    y: number,
  ) => ({
    id: { entityType: 'RULE_NODE', id: randomUUID() },
    type,
    name,
    debugMode: false,
    configuration,
    additionalInfo: { layoutX: x, layoutY: y },
  });
  return {
    firstNodeIndex: 0,
    nodes: [
      node(
        'org.thingsboard.rule.engine.filter.TbMsgTypeSwitchNode',
        'Message Type Switch',
        { version: 0 },
        350,
        200,
      ),
      node(
        'org.thingsboard.rule.engine.telemetry.TbMsgTimeseriesNode',
        'Save Timeseries',
        { defaultTTL: 0 },
        800,
        80,
      ),
      node(
        'org.thingsboard.rule.engine.telemetry.TbMsgAttributesNode',
        'Save Client Attributes',
        { scope: 'CLIENT_SCOPE', notifyDevice: false },
        800,
        160,
      ),
      node(
        'org.thingsboard.rule.engine.action.TbLogNode',
        'Log RPC from Device',
        { scriptLang: 'TBEL' },
        800,
        240,
      ),
      node('org.thingsboard.rule.engine.action.TbLogNode', 'Log Other', { scriptLang: 'TBEL' }, 800, 320),
      node(
        'org.thingsboard.rule.engine.rpc.TbSendRPCRequestNode',
        'RPC Call Request',
        { timeoutInSeconds: 60 },
        800,
        400,
      ),
    ],
    connections: [
      { fromIndex: 0, toIndex: 1, type: 'Post telemetry' },
      { fromIndex: 0, toIndex: 2, type: 'Post attributes' },
      { fromIndex: 0, toIndex: 3, type: 'RPC Request from Device' },
      { fromIndex: 0, toIndex: 4, type: 'Other' },
      { fromIndex: 0, toIndex: 5, type: 'RPC Request to Device' },
    ],
    ruleChainConnections: null,
    version: 1,
  };
}

export async function seedRootRuleChain(db: DurableDb, now: number): Promise<void> {
  const root = db.get<{ id: string; metadata: string }>(
    'SELECT id, metadata FROM rule_chains WHERE root = 1',
  );
  if (root) {
    // Chains seeded before nodes had ids: give every node one, as ThingsBoard does (debug events,
    // firstRuleNodeId and the editor address nodes by id).
    const metadata = JSON.parse(root.metadata) as { nodes: { id?: { entityType: string; id: string } }[] };
    if (metadata.nodes.every((n) => n.id?.id)) return;
    for (const n of metadata.nodes) if (!n.id?.id) n.id = { entityType: 'RULE_NODE', id: randomUUID() };
    await db.write((w) =>
      w.run('UPDATE rule_chains SET metadata = ? WHERE id = ?', [JSON.stringify(metadata), root.id]),
    );
    return;
  }
  await db.write((w) =>
    w.run(
      `INSERT INTO rule_chains (id, created_time, name, type, root, debug_mode, configuration, additional_info, metadata)
       VALUES (?, ?, 'Root Rule Chain', 'CORE', 1, 0, NULL, '{}', ?)`,
      [randomUUID(), now, JSON.stringify(defaultRootChainMetadata())],
    ),
  );
}
