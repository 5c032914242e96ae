import { MSG_TYPE_RELATIONS, NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import type { NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.msgTypeSwitch]!;

/** Routes by message type with ThingsBoard's relation names; custom types go to "Other". */
export const msgTypeSwitchNode: NodeDefinition = {
  type: NODE_TYPES.msgTypeSwitch,
  label: 'Message Type Switch',
  componentType: 'FILTER',
  description: 'Route incoming messages by Message Type',
  relations: [...new Set(Object.values(MSG_TYPE_RELATIONS)), 'Other', 'Failure'],
  defaultConfiguration: { version: 0 },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: () => ({
    process: (msg) => [{ relation: MSG_TYPE_RELATIONS[msg.type] ?? 'Other', msg }],
  }),
};
