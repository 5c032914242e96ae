/** The rule chain editor's draft: pure edits of a chain's metadata (nodes, connections, first node). */
import type { NodeConnection, RuleChainMetadata, RuleNodeJson } from '../../../../shared/rule-engine.ts';

export type ChainDraft = RuleChainMetadata & { connections: NodeConnection[] };

export const NODE_WIDTH = 180;
export const NODE_HEIGHT = 52;

export function toDraft(metadata: RuleChainMetadata): ChainDraft {
  return { ...metadata, connections: metadata.connections ?? [] };
}

export function positionOf(node: RuleNodeJson, index: number): { x: number; y: number } {
  const info = node.additionalInfo ?? {};
  const x = Number(info.layoutX);
  const y = Number(info.layoutY);
  return {
    x: Number.isFinite(x) ? x : 80 + (index % 4) * 240,
    y: Number.isFinite(y) ? y : 80 + Math.floor(index / 4) * 100,
  };
}

export function updateNode(draft: ChainDraft, index: number, patch: Partial<RuleNodeJson>): ChainDraft {
  return { ...draft, nodes: draft.nodes.map((n, i) => (i === index ? { ...n, ...patch } : n)) };
}

export function moveNode(draft: ChainDraft, index: number, x: number, y: number): ChainDraft {
  const node = draft.nodes[index];
  if (!node) return draft;
  return updateNode(draft, index, {
    additionalInfo: {
      ...(node.additionalInfo ?? {}),
      layoutX: Math.max(0, Math.round(x)),
      layoutY: Math.max(0, Math.round(y)),
    },
  });
}

/** A free spot: right of `near` if given (below it when that is taken), else right of everything. */
export function freeSpot(draft: ChainDraft, near?: number): { x: number; y: number } {
  const spots = draft.nodes.map(positionOf);
  const taken = (x: number, y: number) =>
    spots.some((p) => Math.abs(p.x - x) < NODE_WIDTH && Math.abs(p.y - y) < NODE_HEIGHT + 12);
  const anchor = near !== undefined ? spots[near] : undefined;
  if (anchor) {
    const x = anchor.x + NODE_WIDTH + 80;
    let y = anchor.y;
    while (taken(x, y)) y += NODE_HEIGHT + 28;
    return { x, y };
  }
  const maxX = spots.reduce((m, p) => Math.max(m, p.x), 0);
  return { x: spots.length ? maxX + NODE_WIDTH + 80 : 120, y: 80 };
}

export function addNode(draft: ChainDraft, node: RuleNodeJson): ChainDraft {
  const firstNodeIndex = draft.nodes.length === 0 ? 0 : draft.firstNodeIndex;
  return { ...draft, firstNodeIndex, nodes: [...draft.nodes, node] };
}

/** Removes a node with its connections; later nodes' indices shift down. */
export function removeNode(draft: ChainDraft, index: number): ChainDraft {
  const shift = (i: number) => (i > index ? i - 1 : i);
  const first = draft.firstNodeIndex;
  return {
    ...draft,
    nodes: draft.nodes.filter((_, i) => i !== index),
    connections: draft.connections
      .filter((c) => c.fromIndex !== index && c.toIndex !== index)
      .map((c) => ({ ...c, fromIndex: shift(c.fromIndex), toIndex: shift(c.toIndex) })),
    firstNodeIndex:
      first === null ? null : first === index ? (draft.nodes.length > 1 ? 0 : null) : shift(first),
  };
}

export function hasConnection(draft: ChainDraft, c: NodeConnection): boolean {
  return draft.connections.some(
    (x) => x.fromIndex === c.fromIndex && x.toIndex === c.toIndex && x.type === c.type,
  );
}

export function addConnection(draft: ChainDraft, c: NodeConnection): ChainDraft {
  if (hasConnection(draft, c)) return draft;
  return { ...draft, connections: [...draft.connections, c] };
}

export function removeConnection(draft: ChainDraft, c: NodeConnection): ChainDraft {
  return {
    ...draft,
    connections: draft.connections.filter(
      (x) => !(x.fromIndex === c.fromIndex && x.toIndex === c.toIndex && x.type === c.type),
    ),
  };
}

/** "org.thingsboard.rule.engine.telemetry.TbMsgTimeseriesNode" → "TbMsgTimeseriesNode" */
export function shortType(type: string): string {
  return type.slice(type.lastIndexOf('.') + 1);
}

/** The server's 400 names the node: "nodes[6].configuration (Push): 'scope' is required" → 6. */
export function nodeIndexOfError(message: string): number | undefined {
  const m = /^nodes\[(\d+)\]/.exec(message);
  return m ? Number(m[1]) : undefined;
}

/** The metadata to save: what the server takes. */
export function toMetadata(draft: ChainDraft): RuleChainMetadata {
  return {
    ruleChainId: draft.ruleChainId,
    firstNodeIndex: draft.firstNodeIndex,
    nodes: draft.nodes,
    connections: draft.connections,
    ruleChainConnections: null,
  };
}
