/**
 * Runs one rule node in a real rule engine over the platform's real services (DurableDb on a temp dir):
 * every relation the node may emit goes to a recorder, so a test sees what came out where.
 */
import { onTestFinished } from 'vitest';
import { openEdgeServices, type EdgeServices } from '../../fixtures/edge-test-kit.ts';
import { createNodeRegistry } from '../../../main/rule-engine/node-registry.ts';
import { RuleEngine } from '../../../main/rule-engine/rule-engine.ts';
import { newMsg, type TbMsg } from '../../../main/platform/tb-msg.ts';
import { recorderNode, type Output } from '../../fixtures/rule-node-recorder.ts';
import type { RuleChainMetadata } from '../../../shared/rule-engine.ts';

export interface NodeHarness extends EdgeServices {
  engine: RuleEngine;
  outputs: Output[];
  /** processes a message; resolves with the engine's errors and what came out, by relation */
  run(msg: TbMsg): Promise<{ errors: string[]; out: Output[] }>;
  /** resolves when `n` messages in all have been recorded (for nodes that send later) */
  recorded(n: number): Promise<Output[]>;
  device(name: string): Promise<string>;
}

const RELATIONS = ['Success', 'Failure', 'True', 'False', 'Other'];

/** The node of `type` with `configuration`, as the first node of a chain whose relations go to recorders. */
export async function nodeHarness(
  type: string,
  configuration: Record<string, unknown>,
  relations: string[] = RELATIONS,
): Promise<NodeHarness> {
  const services = await openEdgeServices();
  const outputs: Output[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const engine = new RuleEngine(
    createNodeRegistry([
      recorderNode(outputs, () => {
        for (const w of [...waiters]) if (outputs.length >= w.n) w.resolve();
      }),
    ]),
    { services: services.services, edgeQueue: services.edgeQueue, log: () => undefined },
  );
  const metadata: RuleChainMetadata = {
    firstNodeIndex: 0,
    nodes: [
      { id: { entityType: 'RULE_NODE', id: 'node-under-test' }, type, name: 'Under test', configuration },
      ...relations.map((r) => ({ type: 'test.Recorder', name: r, configuration: { relation: r } })),
    ],
    connections: relations.map((r, i) => ({ fromIndex: 0, toIndex: i + 1, type: r })),
  };
  engine.loadChain('chain-under-test', 'Chain under test', metadata);
  engine.setRoot('chain-under-test');
  onTestFinished(() => engine.removeChain('chain-under-test'));
  return {
    ...services,
    engine,
    outputs,
    async run(msg) {
      const before = outputs.length;
      const errors = await engine.process(msg);
      return { errors, out: outputs.slice(before) };
    },
    recorded(n) {
      if (outputs.length >= n) return Promise.resolve(outputs);
      return new Promise((resolve) => waiters.push({ n, resolve: () => resolve(outputs) }));
    },
    async device(name) {
      return (await services.services.devices.save({ name }, services.admin)).id.id;
    },
  };
}

export const telemetryMsg = (deviceId: string, data: unknown, metadata: Record<string, string> = {}) =>
  newMsg('POST_TELEMETRY_REQUEST', { entityType: 'DEVICE', id: deviceId }, data, metadata);
