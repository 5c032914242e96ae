import { ATTRIBUTE_SCOPES, type AttributeScope } from '../../../shared/schemas/telemetry.ts';
import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { parseAttributes } from '../../platform/telemetry-payload.ts';
import { failure, success, type NodeDefinition } from '../rule-node.ts';

const isScope = (s: unknown): s is AttributeScope =>
  typeof s === 'string' && (ATTRIBUTE_SCOPES as string[]).includes(s);

/** Stores attributes in the configured scope (metadata "scope" wins); Success once durable. */
export const saveAttributesNode: NodeDefinition = {
  type: NODE_TYPES.saveAttributes,
  label: 'Save Attributes',
  relations: ['Success', 'Failure'],
  defaultConfiguration: { scope: 'CLIENT_SCOPE', notifyDevice: false },
  validate: (c) => (isScope(c.scope) ? null : "'scope' must be CLIENT_SCOPE, SERVER_SCOPE or SHARED_SCOPE"),
  create: (config, env) => ({
    async process(msg) {
      if (msg.originator.entityType !== 'DEVICE')
        return failure(msg, new Error('Only DEVICE attributes are stored'));
      const scope = isScope(msg.metadata.scope) ? msg.metadata.scope : (config.scope as AttributeScope);
      const parsed = parseAttributes(msg.data);
      if (!parsed.ok) return failure(msg, new Error(parsed.error));
      try {
        await env.services.telemetry.saveAttributes(msg.originator.id, scope, parsed.value);
        return success(msg);
      } catch (err) {
        return failure(msg, err);
      }
    },
  }),
};
