import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import type { NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.msgTypeFilter]!;

/** True when the message type is one of the configured ones, else False. */
export const msgTypeFilterNode: NodeDefinition = {
  type: NODE_TYPES.msgTypeFilter,
  label: 'Message Type Filter',
  componentType: 'FILTER',
  description: 'Filter incoming messages by Message Type',
  relations: ['True', 'False', 'Failure'],
  defaultConfiguration: {
    messageTypes: ['POST_ATTRIBUTES_REQUEST', 'POST_TELEMETRY_REQUEST', 'TO_SERVER_RPC_REQUEST'],
  },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config) => {
    const types = new Set((config.messageTypes as string[] | undefined) ?? []);
    return { process: (msg) => [{ relation: types.has(msg.type) ? 'True' : 'False', msg }] };
  },
};
