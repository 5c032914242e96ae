import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import { relationExists } from '../entity-data.ts';
import type { NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.checkRelation]!;

/**
 * True when the originator has a relation of the type in the direction (FROM: originator -> entity), to the
 * configured entity or to any; reads the relations table.
 */
export const checkRelationNode: NodeDefinition = {
  type: NODE_TYPES.checkRelation,
  label: 'Check Relation Presence',
  componentType: 'FILTER',
  description:
    'Checks the presence of the relation between the originator of the message and other entities.',
  relations: ['True', 'False', 'Failure'],
  version: 1,
  // Version 0 named the direction from the other entity's side.
  upgrade: (from, config) =>
    from === 0 && (config.direction === 'FROM' || config.direction === 'TO')
      ? { ...config, direction: config.direction === 'FROM' ? 'TO' : 'FROM' }
      : config,
  defaultConfiguration: { direction: 'FROM', relationType: 'Contains', checkForSingleEntity: true },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config, env) => {
    const single = config.checkForSingleEntity === true;
    const entityType = config.entityType as string | null | undefined;
    const entityId = config.entityId as string | null | undefined;
    if (single && (!entityType || !entityId)) throw new Error('Entity should be specified!');
    const from = (config.direction ?? 'FROM') === 'FROM';
    const type = config.relationType as string | null | undefined;
    return {
      process(msg) {
        const other = single ? { entityType: entityType!, id: entityId! } : null;
        const found = from
          ? relationExists(env.services, msg.originator, other, type)
          : relationExists(env.services, other, msg.originator, type);
        return [{ relation: found ? 'True' : 'False', msg }];
      },
    };
  },
};
