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

/** Where the "Input" marker sits, left of the first node (the graph draws it there). */
export const INPUT_W = 84;
export const INPUT_GAP = 56;
const GAP_X = 80;
const GAP_Y = 28;

/** The boxes a new node must not cover: every node, and the Input marker before the first one. */
function occupied(draft: ChainDraft): { x: number; y: number; w: number; h: number }[] {
  const boxes = draft.nodes.map((n, i) => ({ ...positionOf(n, i), w: NODE_WIDTH, h: NODE_HEIGHT }));
  const first = draft.firstNodeIndex !== null ? boxes[draft.firstNodeIndex] : undefined;
  if (first)
    boxes.push({ x: first.x - INPUT_W - INPUT_GAP, y: first.y, w: INPUT_W + INPUT_GAP, h: NODE_HEIGHT });
  return boxes;
}

/**
 * A spot for a new node where it covers no node (with a margin): right of `near` if given (then below
 * that), else the first free cell of the chain's own area, row by row, so the graph stays compact; else
 * below everything.
 */
export function freeSpot(draft: ChainDraft, near?: number): { x: number; y: number } {
  const boxes = occupied(draft);
  const free = (x: number, y: number) =>
    x >= 0 &&
    y >= 0 &&
    boxes.every(
      (b) =>
        x + NODE_WIDTH + GAP_X / 2 <= b.x ||
        b.x + b.w + GAP_X / 2 <= x ||
        y + NODE_HEIGHT + GAP_Y / 2 <= b.y ||
        b.y + b.h + GAP_Y / 2 <= y,
    );
  if (draft.nodes.length === 0) return { x: 120, y: 80 };
  const anchor = near !== undefined && draft.nodes[near] ? positionOf(draft.nodes[near], near) : undefined;
  if (anchor) {
    const x = anchor.x + NODE_WIDTH + GAP_X;
    for (let y = anchor.y; y < anchor.y + 40 * (NODE_HEIGHT + GAP_Y); y += NODE_HEIGHT + GAP_Y)
      if (free(x, y)) return { x, y };
  }
  const minX = Math.min(...boxes.map((b) => b.x));
  const minY = Math.min(...boxes.map((b) => b.y));
  const maxX = Math.max(...boxes.map((b) => b.x + b.w));
  const maxY = Math.max(...boxes.map((b) => b.y + b.h));
  for (let y = Math.max(0, minY); y + NODE_HEIGHT <= maxY; y += (NODE_HEIGHT + GAP_Y) / 2)
    for (let x = Math.max(0, minX); x + NODE_WIDTH <= maxX; x += (NODE_WIDTH + GAP_X) / 2)
      if (free(x, y)) return { x, y };
  return { x: Math.max(0, minX), y: maxY + GAP_Y };
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

/**
 * What is wrong with the relations chosen for a connection, or null: none chosen, or one the node does not
 * emit when it does not name its own (`free`).
 */
export function relationProblem(chosen: string[], relations: string[], free: boolean): string | null {
  if (chosen.length === 0) return 'Choose at least one relation';
  const unknown = chosen.find((r) => r.trim() === '' || (!free && !relations.includes(r)));
  if (unknown !== undefined)
    return `'${unknown}' is not a relation of this node (it has ${relations.join(', ')})`;
  const long = chosen.find((r) => r.length > 255);
  return long ? 'A relation name has at most 255 characters' : null;
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
