import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import type { Originator, TbMsg } from '../../platform/tb-msg.ts';
import { schemaValidator } from '../config-schema.ts';
import {
  attributeValues,
  customerOf,
  findRelatedEntity,
  latestValues,
  type RelationsQuery,
} from '../entity-data.ts';
import { processPattern } from '../msg-patterns.ts';
import { success, type NodeDefinition, type NodeOutput, type RuleEnv } from '../rule-node.ts';
import { addFields, requireMapping } from './originator-fields-node.ts';
import { enrich } from './originator-attributes-node.ts';

/** Version 0 had "telemetry" (true: latest time series) and "attrMapping". */
function upgradeDataToFetch(from: number, config: Record<string, unknown>): Record<string, unknown> {
  if (from !== 0) return config;
  const { telemetry, attrMapping, ...rest } = config;
  return {
    ...rest,
    dataMapping: attrMapping,
    dataToFetch: telemetry === true || telemetry === 'true' ? 'LATEST_TELEMETRY' : 'ATTRIBUTES',
    fetchTo: 'METADATA',
  };
}

/** Server attributes or latest time series of an entity into the message, source key -> target key. */
function addData(
  env: RuleEnv,
  msg: TbMsg,
  entity: Originator,
  config: Record<string, unknown>,
  mapping: Record<string, string>,
): NodeOutput[] {
  if (config.dataToFetch === 'FIELDS')
    return addFields(env, msg, entity, mapping, config.fetchTo ?? 'METADATA', true);
  const targets = new Map<string, string>();
  for (const [source, target] of Object.entries(mapping))
    targets.set(processPattern(source, msg), processPattern(target, msg));
  const keys = [...targets.keys()];
  const found: Map<string, unknown> =
    config.dataToFetch === 'LATEST_TELEMETRY'
      ? new Map([...latestValues(env.services, entity, keys)].map(([k, p]) => [k, p.value]))
      : attributeValues(env.services, entity.id, 'SERVER_SCOPE', keys);
  const values: [string, unknown][] = [...found].map(([k, v]) => [targets.get(k)!, v]);
  return success(enrich(msg, config.fetchTo ?? 'METADATA', values));
}

function entityDataNode(
  type: string,
  label: string,
  description: string,
  defaultMapping: Record<string, string>,
  find: (env: RuleEnv, msg: TbMsg, config: Record<string, unknown>) => Originator,
  dataToFetch: string[],
  extraDefaults: Record<string, unknown> = {},
): NodeDefinition {
  const schema = RULE_NODE_CONFIGURATION_SCHEMAS[type]!;
  return {
    type,
    label,
    componentType: 'ENRICHMENT',
    description,
    relations: ['Success', 'Failure'],
    version: 1,
    upgrade: upgradeDataToFetch,
    defaultConfiguration: {
      dataMapping: defaultMapping,
      dataToFetch: 'ATTRIBUTES',
      fetchTo: 'METADATA',
      ...extraDefaults,
    },
    configurationSchema: schema,
    validate: schemaValidator(schema),
    create: (config, env) => {
      const mapping = requireMapping(config.dataMapping);
      if (!dataToFetch.includes(String(config.dataToFetch)))
        throw new Error(
          `DataToFetch property has invalid value: ${String(config.dataToFetch)}. Only ${dataToFetch.join(' and ')} values supported!`,
        );
      return {
        process(msg) {
          if (
            config.fetchTo === 'DATA' &&
            (msg.data === null || typeof msg.data !== 'object' || Array.isArray(msg.data))
          )
            throw new Error('Message body is not an object!');
          return addData(env, msg, find(env, msg, config), config, mapping);
        },
      };
    },
  };
}

export const customerAttributesNode = entityDataNode(
  NODE_TYPES.customerAttributes,
  'Customer Attributes',
  'Adds message originator customer attributes or latest telemetry into message or message metadata',
  { alarmThreshold: 'threshold' },
  (env, msg) => {
    const customer = customerOf(env.services, msg.originator);
    if (customer === undefined) throw new Error('Originator not found');
    if (customer === null) throw new Error('Originator is not assigned to any customer');
    return { entityType: 'CUSTOMER', id: customer };
  },
  ['ATTRIBUTES', 'LATEST_TELEMETRY'],
);

export const tenantAttributesNode = entityDataNode(
  NODE_TYPES.tenantAttributes,
  'Tenant Attributes',
  'Adds message originator tenant attributes or latest telemetry into message or message metadata',
  { alarmThreshold: 'threshold' },
  (env) => ({ entityType: 'TENANT', id: env.services.ctx.tenantId }),
  ['ATTRIBUTES', 'LATEST_TELEMETRY'],
);

export const relatedEntityDataNode = entityDataNode(
  NODE_TYPES.relatedEntityData,
  'Related Entity Data',
  'Adds originators related entity attributes or latest telemetry or fields into message or message metadata',
  { serialNumber: 'sn' },
  (env, msg, config) => {
    const related = findRelatedEntity(
      env.services,
      msg.originator,
      (config.relationsQuery ?? {}) as RelationsQuery,
    );
    if (!related)
      throw new Error(
        'Failed to find related entity to message originator using relation query specified in the configuration!',
      );
    return related;
  },
  ['ATTRIBUTES', 'LATEST_TELEMETRY', 'FIELDS'],
  {
    relationsQuery: {
      direction: 'FROM',
      maxLevel: 1,
      filters: [{ relationType: 'Contains', entityTypes: [] }],
      fetchLastLevelOnly: false,
    },
  },
);
