import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import { failure, type NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.checkMessage]!;

/** True when the named message and metadata keys are present (all of them, or at least one). */
export const checkMessageNode: NodeDefinition = {
  type: NODE_TYPES.checkMessage,
  label: 'Check Fields Presence',
  componentType: 'FILTER',
  description: 'Checks the presence of the specified fields in the message and/or metadata.',
  relations: ['True', 'False', 'Failure'],
  defaultConfiguration: { messageNames: [], metadataNames: [], checkAllKeys: true },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config) => {
    const dataKeys = (config.messageNames as string[] | undefined) ?? [];
    const metaKeys = (config.metadataNames as string[] | undefined) ?? [];
    const all = config.checkAllKeys === true;
    return {
      process(msg) {
        const data = msg.data;
        if (dataKeys.length > 0 && (data === null || typeof data !== 'object' || Array.isArray(data)))
          return failure(msg, new Error('Message data is not a JSON object'));
        const inData = (k: string) => Object.hasOwn(data as object, k);
        const inMeta = (k: string) => Object.hasOwn(msg.metadata, k);
        const ok = all
          ? dataKeys.every(inData) && metaKeys.every(inMeta)
          : dataKeys.some(inData) || metaKeys.some(inMeta);
        return [{ relation: ok ? 'True' : 'False', msg }];
      },
    };
  },
};
