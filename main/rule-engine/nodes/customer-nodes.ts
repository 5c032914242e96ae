import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import type { TbMsg } from '../../platform/tb-msg.ts';
import { schemaValidator } from '../config-schema.ts';
import { processPattern } from '../msg-patterns.ts';
import { ruleEnginePrincipal } from '../rule-engine-principal.ts';
import { success, type NodeDefinition, type RuleEnv } from '../rule-node.ts';

/** What ThingsBoard assigns to customers; Sandboard has devices, assets and edges of those. */
const SUPPORTED = ['ASSET', 'DEVICE', 'ENTITY_VIEW', 'DASHBOARD', 'EDGE'];

function checkOriginator(msg: TbMsg): void {
  if (!SUPPORTED.includes(msg.originator.entityType))
    throw new Error(
      `Unsupported originator type '${msg.originator.entityType}'! Only ${SUPPORTED.join(', ')} types are allowed.`,
    );
}

async function assign(env: RuleEnv, msg: TbMsg, customerId: string | null): Promise<void> {
  const actor = ruleEnginePrincipal(env.services);
  const { id, entityType } = msg.originator;
  if (entityType === 'DEVICE') await env.services.devices.assignToCustomer(id, customerId, actor);
  else if (entityType === 'ASSET') await env.services.assets.assignToCustomer(id, customerId, actor);
  else if (entityType === 'EDGE') await env.services.edges.assignToCustomer(id, customerId, actor);
  else throw new Error(`${entityType} entities are not available in Sandboard yet`);
}

function customerByTitle(env: RuleEnv, title: string): string | undefined {
  return env.services.ctx.db.get<{ id: string }>('SELECT id FROM customers WHERE title = ?', [title])?.id;
}

const removeCacheExpiration = (from: number, config: Record<string, unknown>) => {
  if (from !== 0 || !('customerCacheExpiration' in config)) return config;
  const { customerCacheExpiration: _gone, ...rest } = config;
  return rest;
};

const assignSchema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.assignToCustomer]!;
const unassignSchema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.unassignFromCustomer]!;

/** Assigns the originator to the customer named by the pattern, creating the customer if configured to. */
export const assignToCustomerNode: NodeDefinition = {
  type: NODE_TYPES.assignToCustomer,
  label: 'Assign To Customer',
  componentType: 'ACTION',
  description: 'Assign message originator entity to customer',
  relations: ['Success', 'Failure'],
  version: 1,
  upgrade: removeCacheExpiration,
  defaultConfiguration: { customerNamePattern: '', createCustomerIfNotExists: false },
  configurationSchema: assignSchema,
  validate: schemaValidator(assignSchema),
  create: (config, env) => ({
    async process(msg) {
      checkOriginator(msg);
      const title = processPattern(String(config.customerNamePattern ?? ''), msg);
      let customerId = customerByTitle(env, title);
      if (!customerId) {
        if (config.createCustomerIfNotExists !== true)
          throw new Error(`Customer with title '${title}' doesn't exist!`);
        try {
          customerId = (await env.services.customers.save({ title }, ruleEnginePrincipal(env.services))).id
            .id;
        } catch (err) {
          customerId = customerByTitle(env, title);
          if (!customerId)
            throw new Error(
              `Failed to create customer with title '${title}' due to: ${(err as Error).message}`,
              { cause: err },
            );
        }
      }
      await assign(env, msg, customerId);
      return success(msg);
    },
  }),
};

/** Takes the originator back from its customer (nothing happens when it has none). */
export const unassignFromCustomerNode: NodeDefinition = {
  type: NODE_TYPES.unassignFromCustomer,
  label: 'Unassign From Customer',
  componentType: 'ACTION',
  description: 'Unassign message originator entity from customer',
  relations: ['Success', 'Failure'],
  version: 1,
  upgrade: removeCacheExpiration,
  defaultConfiguration: { customerNamePattern: '' },
  configurationSchema: unassignSchema,
  validate: schemaValidator(unassignSchema),
  create: (_config, env) => ({
    async process(msg) {
      checkOriginator(msg);
      await assign(env, msg, null);
      return success(msg);
    },
  }),
};
