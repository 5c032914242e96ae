import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { newMsg } from '../../platform/tb-msg.ts';
import { schemaValidator } from '../config-schema.ts';
import type { NodeDefinition } from '../rule-node.ts';
import { requireContext } from './delay-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.msgCount]!;
/** ThingsBoard names the counter after the server that counted; Sandboard is one server. */
export const SERVICE_ID = 'sandboard';

/**
 * Counts the messages it receives (they stop here) and every interval sends a POST_TELEMETRY_REQUEST from
 * the tenant, {"<prefix>_sandboard": count}, on Success.
 */
export const msgCountNode: NodeDefinition = {
  type: NODE_TYPES.msgCount,
  label: 'Message Count',
  componentType: 'ACTION',
  description: 'Count incoming messages',
  relations: ['Success', 'Failure'],
  defaultConfiguration: { interval: 1, telemetryPrefix: 'messageCount' },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config, env, node) => {
    const ctx = requireContext(node, 'The message count node');
    const delay = Math.max(Number(config.interval ?? 1), 1) * 1000;
    const key = `${String(config.telemetryPrefix ?? 'messageCount')}_${SERVICE_ID}`;
    let count = 0;
    let next = Date.now() + delay;
    let timer: NodeJS.Timeout;
    const tick = () => {
      const now = Date.now();
      const msg = newMsg(
        'POST_TELEMETRY_REQUEST',
        { entityType: 'TENANT', id: env.services.ctx.tenantId },
        { [key]: count },
        { delta: String(now - next + delay) },
      );
      count = 0;
      ctx.tellNext(msg, 'Success');
      next += delay;
      timer = setTimeout(tick, Math.max(next - Date.now(), 0));
      timer.unref();
    };
    timer = setTimeout(tick, delay);
    timer.unref();
    return {
      process() {
        count++;
        return [];
      },
      destroy() {
        clearTimeout(timer);
      },
    };
  },
};
