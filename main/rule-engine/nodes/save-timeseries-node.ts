import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { parseTelemetry } from '../../platform/telemetry-payload.ts';
import { failure, success, type NodeDefinition } from '../rule-node.ts';

/** Stores POST_TELEMETRY_REQUEST data of a device; Success once it is durable. */
export const saveTimeseriesNode: NodeDefinition = {
  type: NODE_TYPES.saveTimeseries,
  label: 'Save Timeseries',
  relations: ['Success', 'Failure'],
  defaultConfiguration: { defaultTTL: 0 },
  validate: (c) =>
    c.defaultTTL !== undefined && typeof c.defaultTTL !== 'number' ? "'defaultTTL' must be a number" : null,
  create: (_config, env) => ({
    async process(msg) {
      if (msg.type !== 'POST_TELEMETRY_REQUEST')
        return failure(msg, new Error(`Unsupported message type ${msg.type}`));
      if (msg.originator.entityType !== 'DEVICE')
        return failure(msg, new Error('Only DEVICE telemetry is stored'));
      const device = env.services.devices.findRow(msg.originator.id);
      if (!device) return failure(msg, new Error(`Device ${msg.originator.id} not found`));
      const ts = Number(msg.metadata.ts);
      const parsed = parseTelemetry(msg.data, Number.isFinite(ts) ? ts : msg.ts);
      if (!parsed.ok) return failure(msg, new Error(parsed.error));
      try {
        await env.services.telemetry.saveTimeseries(device, parsed.value);
        return success(msg);
      } catch (err) {
        return failure(msg, err);
      }
    },
  }),
};
