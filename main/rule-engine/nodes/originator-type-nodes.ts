import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS, TB_ENTITY_TYPES } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import type { NodeDefinition } from '../rule-node.ts';

/** ThingsBoard's EntityType.getNormalName(): DEVICE_PROFILE -> "Device profile", with its two exceptions. */
export function entityTypeNormalName(entityType: string): string {
  if (entityType === 'ENTITY_VIEW') return 'Entity View';
  if (entityType === 'AI_MODEL') return 'AI model';
  const words = entityType.replace(/^TB_/, '').toLowerCase().replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const filterSchema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.originatorTypeFilter]!;
const switchSchema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.originatorTypeSwitch]!;

/** True when the originator's entity type is one of the configured ones. */
export const originatorTypeFilterNode: NodeDefinition = {
  type: NODE_TYPES.originatorTypeFilter,
  label: 'Entity Type Filter',
  componentType: 'FILTER',
  description: 'Filter incoming messages by the type of message originator entity',
  relations: ['True', 'False', 'Failure'],
  defaultConfiguration: { originatorTypes: ['DEVICE'] },
  configurationSchema: filterSchema,
  validate: schemaValidator(filterSchema),
  create: (config) => {
    const types = new Set((config.originatorTypes as string[] | undefined) ?? []);
    return {
      process: (msg) => [{ relation: types.has(msg.originator.entityType) ? 'True' : 'False', msg }],
    };
  },
};

/** Routes by the originator's entity type, with ThingsBoard's names ("Device", "Asset", "Entity View"). */
export const originatorTypeSwitchNode: NodeDefinition = {
  type: NODE_TYPES.originatorTypeSwitch,
  label: 'Entity Type Switch',
  componentType: 'FILTER',
  description: 'Route incoming messages by Message Originator Type',
  relations: [...TB_ENTITY_TYPES.map(entityTypeNormalName), 'Failure'],
  defaultConfiguration: { version: 0 },
  configurationSchema: switchSchema,
  validate: schemaValidator(switchSchema),
  create: () => ({
    process: (msg) => [{ relation: entityTypeNormalName(msg.originator.entityType), msg }],
  }),
};
