import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import { failure, type NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.pushToCloud]!;

/**
 * ThingsBoard Edge's push to cloud node, known so that edge chains (the edge template root) load and edit
 * here; edge chains run on the edge, so in Sandboard it only fails a message that reaches it.
 */
export const pushToCloudNode: NodeDefinition = {
  type: NODE_TYPES.pushToCloud,
  label: 'Push To Cloud',
  componentType: 'ACTION',
  description: 'Pushes messages from edge to cloud',
  relations: ['Success', 'Failure'],
  ruleChainTypes: ['EDGE'],
  defaultConfiguration: { scope: 'SERVER_SCOPE' },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: () => ({
    process: (msg) =>
      failure(msg, new Error('Push to cloud runs on an edge; this chain is not an edge chain')),
  }),
};
