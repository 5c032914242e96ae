import { ATTRIBUTE_SCOPES, type AttributeScope } from '../../../shared/schemas/telemetry.ts';
import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { parseAttributes } from '../../platform/telemetry-payload.ts';
import { schemaValidator } from '../config-schema.ts';
import { failure, success, type NodeDefinition } from '../rule-node.ts';
import { deduplicator } from './save-timeseries-node.ts';

const isScope = (s: unknown): s is AttributeScope =>
  typeof s === 'string' && (ATTRIBUTE_SCOPES as string[]).includes(s);

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.saveAttributes]!;

/** Stores attributes of the originator in the configured scope (metadata "scope" wins); Success once durable. */
export const saveAttributesNode: NodeDefinition = {
  type: NODE_TYPES.saveAttributes,
  label: 'Save Attributes',
  componentType: 'ACTION',
  description:
    'Saves attribute data with a configurable scope and according to configured processing strategies.',
  relations: ['Success', 'Failure'],
  storesMessageData: true,
  version: 3,
  upgrade: (from, config) => {
    const c = { ...config };
    if (from < 1 && c.updateAttributesOnlyOnValueChange === undefined)
      c.updateAttributesOnlyOnValueChange = false;
    if (from < 3 && !c.processingSettings) c.processingSettings = { type: 'ON_EVERY_MESSAGE' };
    return c;
  },
  defaultConfiguration: {
    processingSettings: { type: 'ON_EVERY_MESSAGE' },
    scope: 'SERVER_SCOPE',
    notifyDevice: false,
    sendAttributesUpdatedNotification: false,
    updateAttributesOnlyOnValueChange: true,
  },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config, env) => {
    const firstInInterval = deduplicator(config);
    return {
      async process(msg) {
        const scope = isScope(msg.metadata.scope) ? msg.metadata.scope : (config.scope as AttributeScope);
        const parsed = parseAttributes(msg.data);
        if (!parsed.ok) return failure(msg, new Error(parsed.error));
        if (firstInInterval && !firstInInterval(msg.originator.id, Date.now())) return success(msg);
        try {
          await env.services.telemetry.saveAttributes(msg.originator.id, scope, parsed.value);
          return success(msg);
        } catch (err) {
          return failure(msg, err);
        }
      },
    };
  },
};
