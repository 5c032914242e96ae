import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import type { Originator, TbMsg } from '../../platform/tb-msg.ts';
import { schemaValidator } from '../config-schema.ts';
import { customerOf, entityIdByName, findRelatedEntity, type RelationsQuery } from '../entity-data.ts';
import { processPattern } from '../msg-patterns.ts';
import { success, type NodeDefinition, type RuleEnv } from '../rule-node.ts';
import { entityTypeNormalName } from './originator-type-nodes.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.changeOriginator]!;
const BY_NAME_TYPES = ['DEVICE', 'ASSET', 'ENTITY_VIEW', 'EDGE', 'USER'];

function newOriginator(env: RuleEnv, msg: TbMsg, config: Record<string, unknown>): Originator | undefined {
  switch (config.originatorSource) {
    case 'CUSTOMER': {
      if (msg.originator.entityType === 'CUSTOMER') return msg.originator;
      const customer = customerOf(env.services, msg.originator);
      return customer ? { entityType: 'CUSTOMER', id: customer } : undefined;
    }
    case 'TENANT':
      return { entityType: 'TENANT', id: env.services.ctx.tenantId };
    case 'RELATED':
      return findRelatedEntity(env.services, msg.originator, (config.relationsQuery ?? {}) as RelationsQuery);
    case 'ALARM_ORIGINATOR': {
      if (msg.originator.entityType !== 'ALARM') return undefined;
      const alarm = env.services.ctx.db.get<{ originator_id: string; originator_type: string }>(
        'SELECT originator_id, originator_type FROM alarms WHERE id = ?',
        [msg.originator.id],
      );
      return alarm ? { entityType: alarm.originator_type, id: alarm.originator_id } : undefined;
    }
    case 'ENTITY': {
      const type = String(config.entityType);
      const name = processPattern(String(config.entityNamePattern), msg);
      const id = entityIdByName(env.services, type, name);
      if (!id)
        throw new Error(`Failed to find ${entityTypeNormalName(type).toLowerCase()} with name '${name}'!`);
      return { entityType: type, id };
    }
    default:
      throw new Error(`Unexpected originator source ${String(config.originatorSource)}`);
  }
}

/** Makes the customer, the tenant, a related entity or an entity found by name the message's originator. */
export const changeOriginatorNode: NodeDefinition = {
  type: NODE_TYPES.changeOriginator,
  label: 'Change Originator',
  componentType: 'TRANSFORMATION',
  description:
    'Change message originator to Tenant/Customer/Related Entity/Alarm Originator/Entity by name pattern.',
  relations: ['Success', 'Failure'],
  defaultConfiguration: {
    originatorSource: 'CUSTOMER',
    relationsQuery: {
      direction: 'FROM',
      maxLevel: 1,
      filters: [{ relationType: 'Contains', entityTypes: [] }],
      fetchLastLevelOnly: false,
    },
  },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config, env) => {
    const source = config.originatorSource;
    if (!source) throw new Error('Originator source should be specified.');
    if (source === 'RELATED' && !config.relationsQuery)
      throw new Error("Relations query should be specified if 'Related entity' source is selected.");
    if (source === 'ENTITY') {
      if (!config.entityType)
        throw new Error("Entity type should be specified if 'Entity by name pattern' source is selected.");
      if (!config.entityNamePattern)
        throw new Error("Name pattern should be specified if 'Entity by name pattern' source is selected.");
      if (!BY_NAME_TYPES.includes(String(config.entityType)))
        throw new Error(`Unexpected entity type ${String(config.entityType)}`);
    }
    return {
      process(msg) {
        const originator = newOriginator(env, msg, config);
        if (!originator) throw new Error('Failed to find new originator!');
        return success({ ...msg, originator });
      },
    };
  },
};
