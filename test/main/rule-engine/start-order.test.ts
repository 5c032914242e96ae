import { describe, expect, it } from 'vitest';
import { createNodeRegistry } from '../../../main/rule-engine/node-registry.ts';
import { RuleEngine } from '../../../main/rule-engine/rule-engine.ts';
import type { NodeDefinition } from '../../../main/rule-engine/rule-node.ts';
import { openEdgeServices } from '../../fixtures/edge-test-kit.ts';

/** A node that runs on its own, as a generator does: counts its starts. */
function selfStartingNode() {
  const started: string[] = [];
  const def: NodeDefinition = {
    type: 'test.SelfStarting',
    label: 'Self starting',
    relations: ['Success'],
    defaultConfiguration: {},
    validate: () => null,
    create: (config) => ({
      process: () => [],
      start: () => started.push(String(config.name)),
    }),
  };
  return { def, started };
}

const chain = (name: string) => ({
  firstNodeIndex: 0,
  nodes: [{ type: 'test.SelfStarting', name, configuration: { name } }],
  connections: [],
});

describe('the rule engine at start-up', () => {
  it('holds the nodes that run on their own until startNodes() (the transports answer), then starts new ones at once', async () => {
    const { services, edgeQueue } = await openEdgeServices();
    const node = selfStartingNode();
    const engine = new RuleEngine(
      createNodeRegistry([node.def]),
      { services, edgeQueue, log: () => undefined },
      { holdStart: true },
    );
    engine.loadChain('a', 'A', chain('a'));
    engine.loadChain('b', 'B', chain('b'));
    expect(node.started).toEqual([]);
    engine.startNodes();
    expect(node.started).toEqual(['a', 'b']);
    engine.startNodes();
    engine.loadChain('c', 'C', chain('c'));
    expect(node.started).toEqual(['a', 'b', 'c']);
    engine.stop();
  });
});
