import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import type { Originator, TbMsg } from '../../platform/tb-msg.ts';
import { schemaValidator } from '../config-schema.ts';
import { entityFields, fieldValue } from '../entity-data.ts';
import { dataObject, processPattern } from '../msg-patterns.ts';
import { success, type NodeOutput, type NodeDefinition, type RuleEnv } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.originatorFields]!;

export function requireMapping(mapping: unknown): Record<string, string> {
  if (!mapping || typeof mapping !== 'object' || Object.keys(mapping).length === 0)
    throw new Error('At least one mapping entry should be specified!');
  return mapping as Record<string, string>;
}

/** Entity fields (name, type, label, customerId, additionalInfo.x...) into the message, by mapping. */
export function addFields(
  env: RuleEnv,
  msg: TbMsg,
  entity: Originator,
  mapping: Record<string, string>,
  fetchTo: unknown,
  ignoreNullStrings: boolean,
): NodeOutput[] {
  const data = fetchTo === 'DATA' ? dataObject(msg) : null;
  const fields = entityFields(env.services, entity);
  if (!fields) throw new Error('Entity not found!');
  const metadata = { ...msg.metadata };
  for (const [source, targetPattern] of Object.entries(mapping)) {
    const value = fieldValue(fields, source, ignoreNullStrings);
    if (value === undefined) continue;
    const target = processPattern(targetPattern, msg);
    if (data) data[target] = value;
    else metadata[target] = value;
  }
  return success(data ? { ...msg, data } : { ...msg, metadata });
}

/** Adds fields of the originator entity to the message or its metadata. */
export const originatorFieldsNode: NodeDefinition = {
  type: NODE_TYPES.originatorFields,
  label: 'Originator Fields',
  componentType: 'ENRICHMENT',
  description: 'Adds message originator fields values into message or message metadata',
  relations: ['Success', 'Failure'],
  version: 1,
  upgrade: (from, config) => {
    if (from !== 0) return config;
    const { fieldsMapping, ...rest } = config;
    return { ...rest, dataMapping: fieldsMapping, fetchTo: 'METADATA' };
  },
  defaultConfiguration: {
    dataMapping: { name: 'originatorName', type: 'originatorType' },
    ignoreNullStrings: false,
    fetchTo: 'METADATA',
  },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config, env) => {
    const mapping = requireMapping(config.dataMapping);
    return {
      process: (msg) =>
        addFields(
          env,
          msg,
          msg.originator,
          mapping,
          config.fetchTo ?? 'METADATA',
          config.ignoreNullStrings === true,
        ),
    };
  },
};
