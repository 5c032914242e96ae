import { describe, expect, it } from 'vitest';
import { createNodeRegistry } from '../../../main/rule-engine/node-registry.ts';
import { RuleEngine } from '../../../main/rule-engine/rule-engine.ts';
import type { NodeDefinition } from '../../../main/rule-engine/rule-node.ts';
import { newMsg } from '../../../main/platform/tb-msg.ts';
import { openEdgeServices } from '../../fixtures/edge-test-kit.ts';

/** A node that holds each message until the test lets it go, counting how many it holds at once. */
function gateNode() {
  const held: (() => void)[] = [];
  let inside = 0;
  let most = 0;
  const arrived: (() => void)[] = [];
  const def: NodeDefinition = {
    type: 'test.Gate',
    label: 'Gate',
    relations: ['Success'],
    defaultConfiguration: {},
    validate: () => null,
    create: () => ({
      async process(msg) {
        inside++;
        most = Math.max(most, inside);
        arrived.shift()?.();
        await new Promise<void>((resolve) => held.push(resolve));
        inside--;
        return [{ relation: 'Success', msg }];
      },
    }),
  };
  return {
    def,
    most: () => most,
    /** resolves when the next message reaches the node */
    next: () => new Promise<void>((resolve) => arrived.push(resolve)),
    release: () => held.shift()?.(),
    holding: () => held.length,
  };
}

describe("a device profile's queue", () => {
  it('SequentialByOriginator: one message of an originator at a time; other originators and queues run alongside', async () => {
    const { services, edgeQueue } = await openEdgeServices();
    const gate = gateNode();
    const engine = new RuleEngine(createNodeRegistry([gate.def]), {
      services,
      edgeQueue,
      log: () => undefined,
    });
    engine.load({
      firstNodeIndex: 0,
      nodes: [{ type: 'test.Gate', name: 'Gate', configuration: {} }],
      connections: [],
    });
    engine.setRouting({
      chains: new Map(),
      queues: new Map([['sequential-profile', 'SequentialByOriginator']]),
      profileOf: (o) => (o.id.startsWith('seq') ? 'sequential-profile' : 'main-profile'),
    });
    const msg = (device: string) =>
      newMsg('POST_TELEMETRY_REQUEST', { entityType: 'DEVICE', id: device }, {});

    // Two messages of a sequential device: the second waits for the first.
    const first = gate.next();
    const a1 = engine.process(msg('seq-1'));
    const a2 = engine.process(msg('seq-1'));
    await first;
    // A device on the Main queue passes alongside.
    const other = gate.next();
    const b1 = engine.process(msg('main-1'));
    await other;
    expect(gate.holding()).toBe(2);
    const second = gate.next();
    gate.release();
    gate.release();
    await second;
    gate.release();
    expect(await Promise.all([a1, a2, b1])).toEqual([[], [], []]);
    expect(gate.most()).toBe(2);
  });
});
