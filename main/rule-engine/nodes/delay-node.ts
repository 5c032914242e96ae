import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { childMsg } from '../../platform/tb-msg.ts';
import { schemaValidator } from '../config-schema.ts';
import { processPattern } from '../msg-patterns.ts';
import { failure, type NodeContext, type NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.delay]!;

export function requireContext(node: NodeContext | undefined, label: string): NodeContext {
  if (!node) throw new Error(`${label} sends messages on its own and needs the rule engine's node context`);
  return node;
}

/**
 * Holds a message for a period, then sends a copy (new id, same trace) on Success. Like ThingsBoard, the
 * message itself is done at once: its sender does not wait, and pending messages live in memory only.
 */
export const delayNode: NodeDefinition = {
  type: NODE_TYPES.delay,
  label: 'Delay (deprecated)',
  componentType: 'ACTION',
  description: 'Delays incoming message (deprecated)',
  relations: ['Success', 'Failure'],
  defaultConfiguration: {
    periodInSeconds: 60,
    maxPendingMsgs: 1000,
    useMetadataPeriodInSecondsPatterns: false,
  },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config, _env, node) => {
    const ctx = requireContext(node, 'The delay node');
    const maxPending = Number(config.maxPendingMsgs ?? 0);
    const pending = new Set<NodeJS.Timeout>();
    return {
      process(msg) {
        if (pending.size >= maxPending)
          return failure(msg, new Error('Max limit of pending messages reached!'));
        let seconds = Number(config.periodInSeconds ?? 0);
        if (config.useMetadataPeriodInSecondsPatterns === true) {
          const pattern = String(config.periodInSecondsPattern ?? '');
          const text = processPattern(pattern, msg);
          if (!/^-?\d+(\.\d+)?$/.test(text.trim()))
            throw new Error(`Can't parse period in seconds from metadata using pattern: ${pattern}`);
          seconds = Math.trunc(Number(text));
        }
        const timer = setTimeout(
          () => {
            pending.delete(timer);
            ctx.tellNext(childMsg(msg), 'Success');
          },
          Math.max(seconds, 0) * 1000,
        );
        timer.unref();
        pending.add(timer);
        return [];
      },
      destroy() {
        for (const t of pending) clearTimeout(t);
        pending.clear();
      },
    };
  },
};
