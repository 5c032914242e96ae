import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { childMsg } from '../../platform/tb-msg.ts';
import { schemaValidator } from '../config-schema.ts';
import { failure, success, type NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.splitArray]!;

/**
 * An array message becomes one message per element, each on Success with its own id and the array message's
 * trace (the debug view follows every element back to it). An empty array goes nowhere.
 */
export const splitArrayNode: NodeDefinition = {
  type: NODE_TYPES.splitArray,
  label: 'Split Array Msg',
  componentType: 'TRANSFORMATION',
  description: 'Split array message into several messages',
  relations: ['Success', 'Failure'],
  defaultConfiguration: { version: 0 },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: () => ({
    process(msg) {
      if (!Array.isArray(msg.data)) return failure(msg, new Error('Msg data is not a JSON Array!'));
      if (msg.data.length === 0) return [];
      if (msg.data.length === 1) return success({ ...msg, data: msg.data[0] as unknown });
      return msg.data.map((element: unknown) => ({
        relation: 'Success',
        msg: childMsg(msg, { data: element }),
      }));
    },
  }),
};
