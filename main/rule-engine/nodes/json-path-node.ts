import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import { compileJsonPath } from '../json-path.ts';
import { success, type NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.jsonPath]!;

/** Replaces the message data with what a JSONPath expression selects from it ("$" leaves it as it is). */
export const jsonPathNode: NodeDefinition = {
  type: NODE_TYPES.jsonPath,
  label: 'JSON Path',
  componentType: 'TRANSFORMATION',
  description: 'Transforms incoming message body using JSONPath expression.',
  relations: ['Success', 'Failure'],
  defaultConfiguration: { jsonPath: '$' },
  configurationSchema: schema,
  validate: (config) => {
    const problem = schemaValidator(schema)(config);
    if (problem) return problem;
    try {
      if (typeof config.jsonPath === 'string' && config.jsonPath !== '$') compileJsonPath(config.jsonPath);
      return null;
    } catch (err) {
      return `'jsonPath' ${(err as Error).message}`;
    }
  },
  create: (config) => {
    const path = String(config.jsonPath ?? '$');
    if (path === '$') return { process: (msg) => success(msg) };
    const compiled = compileJsonPath(path);
    return { process: (msg) => success({ ...msg, data: compiled.read(msg.data) }) };
  },
};
