import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import { latestValues } from '../entity-data.ts';
import { metadataTs } from '../msg-patterns.ts';
import { success, type NodeDefinition } from '../rule-node.ts';
import { PerOriginator } from '../per-originator.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.calculateDelta]!;
const CACHED_ORIGINATORS_MAX = 100_000;

function toNumber(key: string, value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n))
      throw new Error(`Calculation failed. Unable to parse value [${value}] of telemetry [${key}] to Double`);
    return n;
  }
  if (typeof value === 'boolean') throw new Error('Calculation failed. Boolean values are not supported!');
  throw new Error('Calculation failed. JSON values are not supported!');
}

/** ThingsBoard's delta rounding: HALF_UP to `round` decimals. */
function roundHalfUp(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.sign(value) * (Math.round(Math.abs(value) * f + Number.EPSILON) / f);
}

/**
 * For POST_TELEMETRY_REQUEST messages with the input key: adds the difference to the previous reading of
 * that key (from its cache or the latest stored value) and, optionally, the time between them. Anything
 * else goes to Other.
 */
export const calculateDeltaNode: NodeDefinition = {
  type: NODE_TYPES.calculateDelta,
  label: 'Calculate Delta',
  componentType: 'ENRICHMENT',
  description:
    'Calculates delta and amount of time passed between previous timeseries key reading and current value for this key from the incoming message',
  relations: ['Success', 'Failure', 'Other'],
  version: 1,
  upgrade: (from, config) =>
    from === 0 && !('excludeZeroDeltas' in config) ? { ...config, excludeZeroDeltas: false } : config,
  defaultConfiguration: {
    inputValueKey: 'pulseCounter',
    outputValueKey: 'delta',
    useCache: true,
    addPeriodBetweenMsgs: false,
    periodValueKey: 'periodInMs',
    tellFailureIfDeltaIsNegative: true,
    excludeZeroDeltas: false,
  },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config, env) => {
    const input = String(config.inputValueKey ?? '').trim();
    const output = String(config.outputValueKey ?? '').trim();
    const periodKey = String(config.periodValueKey ?? '').trim();
    if (!input) throw new Error('Input value key should be specified!');
    if (!output) throw new Error('Output value key should be specified!');
    if (config.addPeriodBetweenMsgs === true && !periodKey)
      throw new Error('Period value key should be specified!');
    const round = typeof config.round === 'number' ? config.round : null;
    const cache = config.useCache === true ? new Map<string, { ts: number; value: number }>() : null;
    const queue = new PerOriginator();
    return {
      process(msg) {
        const data = msg.data as Record<string, unknown> | null;
        if (
          msg.type !== 'POST_TELEMETRY_REQUEST' ||
          data === null ||
          typeof data !== 'object' ||
          Array.isArray(data) ||
          !(input in data)
        )
          return [{ relation: 'Other', msg }];
        return queue.run(msg.originator.id, () => {
          let previous = cache?.get(msg.originator.id);
          if (!previous) {
            const stored = latestValues(env.services, msg.originator, [input]).get(input);
            if (stored) previous = { ts: stored.ts, value: toNumber(input, stored.value) };
          }
          const parsed = Number(data[input]);
          const current = Number.isFinite(parsed) ? parsed : 0;
          const ts = metadataTs(msg);
          if (cache) {
            if (cache.size >= CACHED_ORIGINATORS_MAX && !cache.has(msg.originator.id)) cache.clear();
            cache.set(msg.originator.id, { ts, value: current });
          }
          let delta = previous ? current - previous.value : 0;
          if (config.tellFailureIfDeltaIsNegative === true && delta < 0)
            throw new Error('Delta value is negative!');
          if (config.excludeZeroDeltas === true && delta === 0) return success(msg);
          if (round !== null) delta = roundHalfUp(delta, round);
          const out: Record<string, unknown> = { ...data, [output]: delta };
          if (config.addPeriodBetweenMsgs === true) out[periodKey] = previous ? ts - previous.ts : 0;
          return success({ ...msg, data: out });
        });
      },
    };
  },
};
