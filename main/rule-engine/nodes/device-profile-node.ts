import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import { success, type NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.deviceProfile]!;

/**
 * ThingsBoard's device profile node, so that chains exported with it (ThingsBoard up to 4.2 puts it first in
 * the root chain) load and run. It passes every message on with Success: alarm rules of device profiles are
 * not evaluated yet (they need alarms, which Sandboard does not have yet).
 */
export const deviceProfileNode: NodeDefinition = {
  type: NODE_TYPES.deviceProfile,
  label: 'Device Profile (deprecated)',
  componentType: 'ACTION',
  description: 'Process device messages based on device profile settings (deprecated)',
  details: 'In Sandboard this node passes every message on with Success; alarm rules are not evaluated yet.',
  relations: [
    'Alarm Created',
    'Alarm Updated',
    'Alarm Severity Updated',
    'Alarm Cleared',
    'Success',
    'Failure',
  ],
  customRelations: true,
  version: 1,
  defaultConfiguration: { persistAlarmRulesState: false, fetchAlarmRulesStateOnStart: false },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: () => ({ process: (msg) => success(msg) }),
};
