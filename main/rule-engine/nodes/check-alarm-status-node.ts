import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import { failure, type NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.checkAlarmStatus]!;

/** The alarm's id in a message whose data is an alarm (ThingsBoard's Alarm JSON). */
function alarmIdOf(data: unknown): string {
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new Error('Failed to parse alarm: the message data is not an alarm');
  const id = (data as { id?: { id?: unknown } }).id?.id;
  if (typeof id !== 'string') throw new Error('Failed to parse alarm: it has no id');
  return id;
}

/**
 * TbCheckAlarmStatusNode: reads the alarm of the message (its data, e.g. what a create alarm node sent) again
 * and says True when its status now is one of the configured ones.
 */
export const checkAlarmStatusNode: NodeDefinition = {
  type: NODE_TYPES.checkAlarmStatus,
  label: 'Alarm Status Filter',
  componentType: 'FILTER',
  description: 'Checks alarm status.',
  details: 'Checks the alarm status to match one of the specified statuses.',
  relations: ['True', 'False', 'Failure'],
  defaultConfiguration: { alarmStatusList: ['ACTIVE_ACK', 'ACTIVE_UNACK'] },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config, env) => {
    const statuses = new Set(
      Array.isArray(config.alarmStatusList) ? (config.alarmStatusList as string[]) : [],
    );
    return {
      process(msg) {
        try {
          const row = env.services.alarms.findRow(alarmIdOf(msg.data));
          if (!row) return failure(msg, new Error('No such alarm found.'));
          const { status } = env.services.alarms.infoOf(row);
          return [{ relation: statuses.has(status) ? 'True' : 'False', msg }];
        } catch (err) {
          return failure(msg, err);
        }
      },
    };
  },
};
