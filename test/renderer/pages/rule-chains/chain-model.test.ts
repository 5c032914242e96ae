import { describe, expect, it } from 'vitest';
import type { RuleNodeJson } from '../../../../shared/rule-engine.ts';
import {
  addConnection,
  addNode,
  freeSpot,
  INPUT_GAP,
  INPUT_W,
  moveNode,
  NODE_HEIGHT,
  NODE_WIDTH,
  nodeIndexOfError,
  positionOf,
  relationProblem,
  removeNode,
  toDraft,
  toMetadata,
} from '../../../../renderer/src/pages/rule-chains/chain-model.ts';
import { chain, node, overlaps } from './chain-fixtures.ts';

describe('placing a new node', () => {
  it('the first node of an empty chain becomes its first node', () => {
    const empty = chain([]);
    const d = addNode(empty, node('A', freeSpot(empty).x, freeSpot(empty).y));
    expect(d.firstNodeIndex).toBe(0);
  });

  it('right of the selected node, or below that spot when it is taken', () => {
    const d = chain([node('A', 100, 100), node('B', 100 + NODE_WIDTH + 80, 100)]);
    const spot = freeSpot(d, 0);
    expect(spot.x).toBe(100 + NODE_WIDTH + 80);
    expect(spot.y).toBeGreaterThanOrEqual(100 + NODE_HEIGHT);
  });

  it('never on a node nor on the Input marker, and inside the chain when there is room', () => {
    const nodes = [
      node('first', 300, 100),
      node('a', 600, 100),
      node('b', 600, 300),
      node('c', 300, 300),
      node('d', 900, 200),
    ];
    const d = chain(nodes);
    const spot = freeSpot(d);
    for (const [i, n] of nodes.entries()) expect(overlaps(spot, positionOf(n, i)), n.name).toBe(false);
    const input = { x: 300 - INPUT_W - INPUT_GAP, y: 100 };
    expect(
      spot.x + NODE_WIDTH <= input.x || spot.x >= input.x + INPUT_W || spot.y >= input.y + NODE_HEIGHT,
    ).toBe(true);
    expect(spot.y).toBeLessThan(300 + NODE_HEIGHT);
  });

  it('placing many nodes one after another never overlaps', () => {
    let d = chain([node('n0', 200, 80)]);
    for (let i = 1; i < 25; i++) {
      const at = freeSpot(d, i % 3 === 0 ? undefined : i - 1);
      d = addNode(d, node(`n${i}`, at.x, at.y));
    }
    const spots = d.nodes.map(positionOf);
    spots.forEach((a, i) => spots.slice(i + 1).forEach((b) => expect(overlaps(a, b)).toBe(false)));
  });
});

describe('editing the draft', () => {
  it('removing a node drops its connections and renumbers the rest, first node included', () => {
    const d = chain(
      [node('A', 0, 0), node('B', 300, 0), node('C', 600, 0)],
      [
        { fromIndex: 0, toIndex: 1, type: 'Success' },
        { fromIndex: 1, toIndex: 2, type: 'Success' },
        { fromIndex: 0, toIndex: 2, type: 'Failure' },
      ],
    );
    const without = removeNode({ ...d, firstNodeIndex: 2 }, 1);
    expect(without.nodes.map((n) => n.name)).toEqual(['A', 'C']);
    expect(without.connections).toEqual([{ fromIndex: 0, toIndex: 1, type: 'Failure' }]);
    expect(without.firstNodeIndex).toBe(1);
    expect(removeNode(d, 0).firstNodeIndex).toBe(0);
    expect(removeNode(chain([node('A', 0, 0)]), 0).firstNodeIndex).toBeNull();
  });

  it('the same connection twice is kept once', () => {
    const d = chain([node('A', 0, 0), node('B', 300, 0)]);
    const c = { fromIndex: 0, toIndex: 1, type: 'Success' };
    expect(addConnection(addConnection(d, c), c).connections).toEqual([c]);
  });

  it('a moved node lands on whole, non-negative coordinates and keeps its other layout info', () => {
    const n: RuleNodeJson = {
      ...node('A', 10, 10),
      additionalInfo: { layoutX: 10, layoutY: 10, description: 'd' },
    };
    const moved = moveNode(chain([n]), 0, -40.4, 99.6);
    expect(moved.nodes[0]!.additionalInfo).toEqual({ layoutX: 0, layoutY: 100, description: 'd' });
  });

  it('the saved metadata is what the server takes: no chain connections', () => {
    const d = toDraft({
      ruleChainId: { entityType: 'RULE_CHAIN', id: 'c1' },
      firstNodeIndex: null,
      nodes: [],
      connections: null,
    });
    expect(d.connections).toEqual([]);
    expect(toMetadata(d)).toEqual({
      ruleChainId: { entityType: 'RULE_CHAIN', id: 'c1' },
      firstNodeIndex: null,
      nodes: [],
      connections: [],
      ruleChainConnections: null,
    });
  });

  it("the server's error names the node it is about", () => {
    expect(nodeIndexOfError("nodes[6].configuration (Push to edge): 'scope' is required")).toBe(6);
    expect(nodeIndexOfError('Rule chain not found')).toBeUndefined();
  });
});

describe('relations of a new connection', () => {
  it("must be chosen, and be the node's own unless it names its own", () => {
    expect(relationProblem([], ['Success'], false)).toBe('Choose at least one relation');
    expect(relationProblem(['Success'], ['Success', 'Failure'], false)).toBeNull();
    expect(relationProblem(['Sucess'], ['Success', 'Failure'], false)).toBe(
      "'Sucess' is not a relation of this node (it has Success, Failure)",
    );
    expect(relationProblem(['too hot'], ['Failure'], true)).toBeNull();
    expect(relationProblem(['x'.repeat(256)], [], true)).toBe('A relation name has at most 255 characters');
  });
});
