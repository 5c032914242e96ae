import { randomUUID } from 'node:crypto';
import { NODE_TYPES, type DebugSettings, type RuleChainMetadata } from '../../shared/rule-engine.ts';
import { invalidArgument } from '../platform/errors.ts';
import { effectiveDebugSettings } from './debug-log.ts';
import type { NodeDefinition } from './rule-node.ts';

/** A node as Sandboard keeps it in a chain's metadata column (ThingsBoard's RuleNode fields). */
export interface StoredNode {
  id: { entityType: 'RULE_NODE'; id: string };
  createdTime: number;
  type: string;
  name: string;
  debugSettings: Required<Pick<DebugSettings, 'failuresEnabled' | 'allEnabled' | 'allEnabledUntil'>>;
  singletonMode: boolean;
  queueName: string | null;
  configurationVersion: number;
  configuration: Record<string, unknown>;
  additionalInfo: Record<string, unknown> | null;
  /** chains stored before debug settings: the old flag */
  debugMode?: boolean;
}

export interface StoredMetadata {
  firstNodeIndex: number | null;
  nodes: StoredNode[];
  connections: { fromIndex: number; toIndex: number; type: string }[];
  notes?: unknown[];
  version: number;
}

type InputNode = RuleChainMetadata['nodes'][number];

/** Parses a metadata column; chains stored by older versions lack ids, versions and debug settings. */
export function readMetadata(json: string): StoredMetadata {
  const md = JSON.parse(json) as Partial<StoredMetadata> & { nodes?: Partial<StoredNode>[] };
  return {
    firstNodeIndex: md.firstNodeIndex ?? null,
    nodes: (md.nodes ?? []).map((n) => ({
      id: { entityType: 'RULE_NODE', id: n.id?.id ?? randomUUID() },
      createdTime: n.createdTime ?? 0,
      type: String(n.type),
      name: String(n.name),
      debugSettings: n.debugSettings ?? {
        failuresEnabled: n.debugMode === true,
        allEnabled: false,
        allEnabledUntil: 0,
      },
      singletonMode: n.singletonMode ?? false,
      queueName: n.queueName ?? null,
      configurationVersion: n.configurationVersion ?? 0,
      configuration: n.configuration ?? {},
      additionalInfo: n.additionalInfo ?? null,
    })),
    connections: md.connections ?? [],
    ...(md.notes ? { notes: md.notes } : {}),
    version: md.version ?? 1,
  };
}

/** ThingsBoard's validateCircles: no node links to itself, directly or through others. */
function checkCircles(connections: StoredMetadata['connections']): void {
  const next = new Map<number, Set<number>>();
  for (const c of connections) {
    if (c.fromIndex === c.toIndex) throw invalidArgument("Can't create the relation to yourself.");
    let set = next.get(c.fromIndex);
    if (!set) next.set(c.fromIndex, (set = new Set()));
    set.add(c.toIndex);
  }
  const state = new Map<number, 1 | 2>(); // 1 visiting, 2 done
  const visit = (n: number): void => {
    state.set(n, 1);
    for (const to of next.get(n) ?? []) {
      const s = state.get(to);
      if (s === 1) throw invalidArgument("Can't create circling relations in rule chain.");
      if (s === undefined) visit(to);
    }
    state.set(n, 2);
  };
  for (const n of next.keys()) if (!state.has(n)) visit(n);
}

/** Brings an older node configuration up to its type's version (ThingsBoard's TbNode.upgrade). */
export function upgradeNode(
  def: NodeDefinition | undefined,
  configuration: Record<string, unknown>,
  fromVersion: number,
): { configuration: Record<string, unknown>; configurationVersion: number } {
  const to = def?.version ?? 0;
  if (!def?.upgrade || fromVersion >= to)
    return { configuration, configurationVersion: Math.max(fromVersion, to) };
  let config = configuration;
  for (let v = fromVersion; v < to; v++) {
    try {
      config = def.upgrade(v, config);
    } catch {
      // ThingsBoard logs a failed upgrade and keeps the configuration; so does Sandboard.
      return { configuration, configurationVersion: fromVersion };
    }
  }
  return { configuration: config, configurationVersion: to };
}

export interface PrepareOptions {
  registry: Map<string, NodeDefinition>;
  previous: StoredMetadata | null;
  now: number;
  /** Check every known node's configuration (the editor's save); import stores what ThingsBoard would. */
  strict: boolean;
}

/**
 * The metadata to store from what a client sent: node ids kept or given, configurations upgraded to the
 * node type's version, debug settings capped as ThingsBoard caps them, connections checked.
 */
export function prepareMetadata(input: RuleChainMetadata, opts: PrepareOptions): StoredMetadata {
  const count = input.nodes.length;
  const first = input.firstNodeIndex ?? null;
  if (first !== null && first >= count)
    throw invalidArgument(`firstNodeIndex: ${first} is not a node index (there are ${count} nodes)`);
  const connections = (input.connections ?? []).map((c, i) => {
    if (c.fromIndex >= count) throw invalidArgument(`connections[${i}].fromIndex: no node ${c.fromIndex}`);
    if (c.toIndex >= count) throw invalidArgument(`connections[${i}].toIndex: no node ${c.toIndex}`);
    return { fromIndex: c.fromIndex, toIndex: c.toIndex, type: c.type };
  });
  checkCircles(connections);
  const before = new Map((opts.previous?.nodes ?? []).map((n) => [n.id.id, n]));
  const nodes = input.nodes.map((n: InputNode, i): StoredNode => {
    const def = opts.registry.get(n.type);
    const upgraded = upgradeNode(def, n.configuration, n.configurationVersion ?? 0);
    if (opts.strict && def) {
      const problem = def.validate(upgraded.configuration);
      if (problem) throw invalidArgument(`nodes[${i}].configuration (${n.name}): ${problem}`);
    }
    const id = n.id?.id ?? randomUUID();
    return {
      id: { entityType: 'RULE_NODE', id },
      createdTime: before.get(id)?.createdTime ?? n.createdTime ?? opts.now,
      type: n.type,
      name: n.name,
      debugSettings: effectiveDebugSettings(n, opts.now),
      singletonMode: n.singletonMode ?? false,
      queueName: n.queueName ?? null,
      configurationVersion: upgraded.configurationVersion,
      configuration: upgraded.configuration,
      additionalInfo: n.additionalInfo ?? null,
    };
  });
  return {
    firstNodeIndex: first,
    nodes,
    connections,
    ...(input.notes ? { notes: input.notes } : {}),
    version: (opts.previous?.version ?? 0) + 1,
  };
}

/**
 * Files from ThingsBoard before 3.x link nodes to other chains with ruleChainConnections; ThingsBoard's UI
 * turns each into a rule chain node, and so does Sandboard's import.
 */
export function withRuleChainNodes(
  md: RuleChainMetadata,
  chainName: (id: string) => string | undefined,
): RuleChainMetadata {
  const links = md.ruleChainConnections ?? [];
  if (links.length === 0) return md;
  const nodes = [...md.nodes];
  const connections = [...(md.connections ?? [])];
  for (const link of links) {
    nodes.push({
      type: NODE_TYPES.ruleChainInput,
      name: chainName(link.targetRuleChainId.id) ?? 'Rule Chain Input',
      singletonMode: false,
      configuration: { ruleChainId: link.targetRuleChainId.id },
      additionalInfo: link.additionalInfo ?? null,
    });
    connections.push({ fromIndex: link.fromIndex, toIndex: nodes.length - 1, type: link.type });
  }
  return { ...md, nodes, connections, ruleChainConnections: null };
}
