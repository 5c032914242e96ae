/** Small chains for the editor's tests. */
import type { RuleNodeJson } from '../../../../shared/rule-engine.ts';
import {
  NODE_HEIGHT,
  NODE_WIDTH,
  toDraft,
  type ChainDraft,
} from '../../../../renderer/src/pages/rule-chains/chain-model.ts';

export const node = (name: string, x: number, y: number, id = name): RuleNodeJson => ({
  id: { entityType: 'RULE_NODE', id },
  type: 'org.thingsboard.rule.engine.action.TbLogNode',
  name,
  configuration: {},
  additionalInfo: { layoutX: x, layoutY: y },
});

export const chain = (nodes: RuleNodeJson[], connections: ChainDraft['connections'] = []): ChainDraft =>
  toDraft({ firstNodeIndex: nodes.length ? 0 : null, nodes, connections });

/** Whether two nodes at these positions cover each other. */
export const overlaps = (a: { x: number; y: number }, b: { x: number; y: number }) =>
  a.x < b.x + NODE_WIDTH && b.x < a.x + NODE_WIDTH && a.y < b.y + NODE_HEIGHT && b.y < a.y + NODE_HEIGHT;
