import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { success, type NodeDefinition } from '../rule-node.ts';

/** Writes the message to the platform log. */
export const logNode: NodeDefinition = {
  type: NODE_TYPES.log,
  label: 'Log',
  relations: ['Success', 'Failure'],
  defaultConfiguration: {},
  validate: () => null,
  create: (_config, env) => ({
    process(msg) {
      env.log(
        `[rule engine] ${msg.type} from ${msg.originator.entityType} ${msg.originator.id}: ${JSON.stringify(msg.data)} ${JSON.stringify(msg.metadata)}`,
      );
      return success(msg);
    },
  }),
};
