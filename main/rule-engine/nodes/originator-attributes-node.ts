import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import type { AttributeScope } from '../../../shared/schemas/telemetry.ts';
import type { TbMsg } from '../../platform/tb-msg.ts';
import { schemaValidator } from '../config-schema.ts';
import { attributeValues, latestValues } from '../entity-data.ts';
import { asMetadataValue, dataObject, processPatterns } from '../msg-patterns.ts';
import { failure, success, type NodeDefinition, type RuleEnv } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.originatorAttributes]!;

const SCOPES: [string, AttributeScope, string][] = [
  ['clientAttributeNames', 'CLIENT_SCOPE', 'cs_'],
  ['sharedAttributeNames', 'SHARED_SCOPE', 'shared_'],
  ['serverAttributeNames', 'SERVER_SCOPE', 'ss_'],
];

/** Turns version 0's "fetchToData" flag into "fetchTo" (ThingsBoard's upgrade of the fetch-to nodes). */
export function upgradeFetchToData(from: number, config: Record<string, unknown>, oldKey: string) {
  if (from !== 0) return config;
  const { [oldKey]: flag, ...rest } = config;
  return { ...rest, fetchTo: flag === true || flag === 'true' ? 'DATA' : 'METADATA' };
}

/** Writes enrichment values into the message data (typed) or metadata (as text), as the node is configured. */
export function enrich(msg: TbMsg, fetchTo: unknown, values: [string, unknown][]): TbMsg {
  if (fetchTo === 'DATA') {
    const data = dataObject(msg);
    for (const [k, v] of values) data[k] = v;
    return { ...msg, data };
  }
  const metadata = { ...msg.metadata };
  for (const [k, v] of values) metadata[k] = asMetadataValue(v);
  return { ...msg, metadata };
}

function getAttributes(config: Record<string, unknown>, env: RuleEnv) {
  const fetchTo = config.fetchTo ?? 'METADATA';
  const failIfAbsent = config.tellFailureIfAbsent !== false;
  const withTs = config.getLatestValueWithTs === true;
  return (msg: TbMsg) => {
    if (fetchTo === 'DATA') dataObject(msg);
    const values: [string, unknown][] = [];
    const missing: string[] = [];
    for (const [field, scope, prefix] of SCOPES) {
      const keys = processPatterns(config[field] as string[] | undefined, msg);
      if (keys.length === 0) continue;
      const found = attributeValues(env.services, msg.originator.id, scope, keys);
      for (const [k, v] of found) values.push([prefix + k, v]);
      const absent = keys.filter((k) => !found.has(k));
      if (failIfAbsent && absent.length) missing.push(`\t[${scope}]:[${absent.join(', ')}]`);
    }
    const tsKeys = processPatterns(config.latestTsKeyNames as string[] | undefined, msg);
    if (tsKeys.length > 0) {
      const latest = latestValues(env.services, msg.originator, tsKeys);
      for (const [k, p] of latest) values.push([k, withTs ? { ts: p.ts, value: p.value } : p.value]);
      const absent = tsKeys.filter((k) => !latest.has(k));
      if (failIfAbsent && absent.length) missing.push(`\t[LATEST_TS]:[${absent.join(', ')}]`);
    }
    const out = enrich(msg, fetchTo, values);
    if (missing.length)
      return failure(
        out,
        new Error(
          `The following attribute/telemetry keys is not present in the DB: \n${missing.join('\n')}\n`,
        ),
      );
    return success(out);
  };
}

/** Adds the originator's attributes (cs_/shared_/ss_ prefixed) and latest time series to the message. */
export const originatorAttributesNode: NodeDefinition = {
  type: NODE_TYPES.originatorAttributes,
  label: 'Originator Attributes',
  componentType: 'ENRICHMENT',
  description:
    'Adds attributes and/or latest timeseries data for the message originator to the message or message metadata',
  relations: ['Success', 'Failure'],
  version: 1,
  upgrade: (from, config) => upgradeFetchToData(from, config, 'fetchToData'),
  defaultConfiguration: {
    clientAttributeNames: [],
    sharedAttributeNames: [],
    serverAttributeNames: [],
    latestTsKeyNames: [],
    tellFailureIfAbsent: true,
    getLatestValueWithTs: false,
    fetchTo: 'METADATA',
  },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config, env) => ({ process: getAttributes(config, env) }),
};
