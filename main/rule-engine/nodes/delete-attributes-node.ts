import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { ATTRIBUTE_SCOPES, type AttributeScope } from '../../../shared/schemas/telemetry.ts';
import { newMsg } from '../../platform/tb-msg.ts';
import { schemaValidator } from '../config-schema.ts';
import { processPattern } from '../msg-patterns.ts';
import { success, type NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.deleteAttributes]!;

/**
 * Deletes the originator's attributes named by the key patterns, in the configured scope (metadata "scope"
 * wins); Success once durable, with an ATTRIBUTES_DELETED message to the originator's chain if asked for.
 */
export const deleteAttributesNode: NodeDefinition = {
  type: NODE_TYPES.deleteAttributes,
  label: 'Delete Attributes',
  componentType: 'ACTION',
  description: 'Delete attributes for Message Originator.',
  relations: ['Success', 'Failure'],
  defaultConfiguration: {
    scope: 'SERVER_SCOPE',
    keys: [],
    sendAttributesDeletedNotification: false,
    notifyDevice: false,
  },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config, env, node) => ({
    async process(msg) {
      const keys = [
        ...new Set(((config.keys as string[] | undefined) ?? []).map((k) => processPattern(k, msg).trim())),
      ].filter(Boolean);
      if (keys.length === 0) return success(msg);
      const scope = (msg.metadata.scope || String(config.scope ?? 'SERVER_SCOPE')) as AttributeScope;
      if (!(ATTRIBUTE_SCOPES as string[]).includes(scope))
        throw new Error(`No enum constant AttributeScope.${scope}`);
      await env.services.telemetry.deleteAttributes(msg.originator.id, scope, keys);
      if (config.sendAttributesDeletedNotification === true && node)
        node.enqueue(
          newMsg('ATTRIBUTES_DELETED', msg.originator, { attributes: keys }, { ...msg.metadata, scope }),
        );
      return success(msg);
    },
  }),
};
