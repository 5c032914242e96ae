import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import { ProfileAlarmEvaluator } from '../profile-alarms/evaluator.ts';
import type { NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.deviceProfile]!;

/**
 * ThingsBoard's device profile node (first in ThingsBoard 4.0-4.2's root chain, and Sandboard's): raises
 * and clears alarms by the alarm rules of each device's profile. The message goes on with Success; each
 * alarm it creates, updates or clears goes out as an ALARM message on "Alarm Created", "Alarm Updated",
 * "Alarm Severity Updated" or "Alarm Cleared". Sandboard always persists the rules' progress (the two
 * configuration flags are kept for ThingsBoard's sake), so a duration being counted survives a restart.
 */
export const deviceProfileNode: NodeDefinition = {
  type: NODE_TYPES.deviceProfile,
  label: 'Device Profile',
  componentType: 'ACTION',
  description: 'Process device messages based on device profile settings (deprecated)',
  details:
    "Create and clear alarms based on alarm rules defined in device profile. The output relation type is either 'Alarm Created', 'Alarm Updated', 'Alarm Severity Updated' and 'Alarm Cleared' or simply 'Success' if no alarms were affected. In Sandboard the rules' state is always persisted, so durations and repeats carry over a restart.",
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
  upgrade: (from, config) =>
    from === 0 && config.persistAlarmRulesState === false
      ? { ...config, fetchAlarmRulesStateOnStart: false }
      : config,
  defaultConfiguration: { persistAlarmRulesState: false, fetchAlarmRulesStateOnStart: false },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (_config, env, node) => {
    const evaluator = new ProfileAlarmEvaluator(env, node?.id ?? 'device-profile', (msg, relation) =>
      node?.tellNext(msg, relation),
    );
    return {
      process: (msg) => evaluator.process(msg),
      start: () => evaluator.start(),
      destroy: () => evaluator.destroy(),
    };
  },
};
