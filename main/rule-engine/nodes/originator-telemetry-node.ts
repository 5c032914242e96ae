import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import type { Aggregation } from '../../platform/telemetry-repository.ts';
import type { TbMsg } from '../../platform/tb-msg.ts';
import { schemaValidator } from '../config-schema.ts';
import { timeseriesNum } from '../entity-data.ts';
import { asMetadataValue, processPattern, processPatterns } from '../msg-patterns.ts';
import { success, type NodeDefinition } from '../rule-node.ts';

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.originatorTelemetry]!;
const MAX_FETCH_SIZE = 1000;
const UNIT_MS: Record<string, number> = {
  MILLISECONDS: 1,
  SECONDS: 1000,
  MINUTES: 60_000,
  HOURS: 3_600_000,
  DAYS: 86_400_000,
};

function patternTs(msg: TbMsg, pattern: string): number {
  const value = processPattern(pattern, msg);
  const name = pattern.replace(/[$[{}\]]/g, '');
  if (value === pattern) throw new Error(`Message value: '${name}' is undefined`);
  if (!/^-?\d+(\.\d+)?$/.test(value.trim())) throw new Error(`Message value: '${name}' has invalid format`);
  return Math.trunc(Number(value));
}

/**
 * Adds the originator's time series of an interval to the metadata: the first or last value, or ALL of them
 * (up to the limit, optionally aggregated) as a JSON array of {ts, value}.
 */
export const originatorTelemetryNode: NodeDefinition = {
  type: NODE_TYPES.originatorTelemetry,
  label: 'Originator Telemetry',
  componentType: 'ENRICHMENT',
  description: 'Adds message originator telemetry for selected time range into message metadata',
  relations: ['Success', 'Failure'],
  version: 2,
  upgrade: (from, config) => {
    const c = { ...config };
    if (from === 0) {
      if (c.fetchMode === 'FIRST' || c.fetchMode === 'LAST') {
        c.orderBy = c.fetchMode === 'FIRST' ? 'ASC' : 'DESC';
        c.aggregation = 'NONE';
      } else if (c.fetchMode === 'ALL') {
        if (c.orderBy === null || c.orderBy === '') c.orderBy = 'ASC';
        if (c.aggregation === null || c.aggregation === '') c.aggregation = 'NONE';
      } else if (c.fetchMode !== undefined && c.fetchMode !== null) {
        Object.assign(c, { fetchMode: 'LAST', orderBy: 'DESC', aggregation: 'NONE' });
      }
    }
    if (from <= 1) {
      if (c.limit === undefined || c.limit === null) c.limit = MAX_FETCH_SIZE;
      if (c.fetchMode === 'ALL') {
        c.aggregation ??= 'NONE';
        c.orderBy ??= 'ASC';
      }
    }
    return c;
  },
  defaultConfiguration: {
    latestTsKeyNames: [],
    fetchMode: 'FIRST',
    startIntervalTimeUnit: 'MINUTES',
    startInterval: 2,
    endIntervalTimeUnit: 'MINUTES',
    endInterval: 1,
    useMetadataIntervalPatterns: false,
    startIntervalPattern: '',
    endIntervalPattern: '',
    orderBy: 'ASC',
    aggregation: 'NONE',
    limit: MAX_FETCH_SIZE,
  },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config, env) => {
    const keys = (config.latestTsKeyNames as string[] | undefined) ?? [];
    if (keys.length === 0) throw new Error('Telemetry should be specified!');
    const mode = config.fetchMode as string | undefined;
    if (!mode) throw new Error('FetchMode should be specified!');
    let limit = 1;
    let orderBy: 'ASC' | 'DESC' = mode === 'LAST' ? 'DESC' : 'ASC';
    let agg: Aggregation = 'NONE';
    if (mode === 'ALL') {
      limit = Number(config.limit ?? MAX_FETCH_SIZE);
      if (limit < 2 || limit > MAX_FETCH_SIZE) throw new Error('Limit should be in a range from 2 to 1000.');
      if (!config.orderBy) throw new Error('OrderBy should be specified!');
      if (!config.aggregation) throw new Error('Aggregation should be specified!');
      orderBy = config.orderBy as 'ASC' | 'DESC';
      agg = config.aggregation as Aggregation;
    }
    return {
      process(msg) {
        let startTs: number;
        let endTs: number;
        if (config.useMetadataIntervalPatterns === true) {
          startTs = patternTs(msg, String(config.startIntervalPattern ?? ''));
          endTs = patternTs(msg, String(config.endIntervalPattern ?? ''));
        } else {
          const now = Date.now();
          startTs =
            now -
            Number(config.startInterval ?? 0) * (UNIT_MS[String(config.startIntervalTimeUnit)] ?? 60_000);
          endTs =
            now - Number(config.endInterval ?? 0) * (UNIT_MS[String(config.endIntervalTimeUnit)] ?? 60_000);
        }
        if (startTs > endTs) throw new Error('Interval start should be less than Interval end');
        const wanted = processPatterns(keys, msg);
        const metadata = { ...msg.metadata };
        const num = timeseriesNum(env.services, msg.originator);
        if (num !== undefined) {
          const history = env.services.ctx.telemetry.history(num, {
            keys: wanted,
            startTs,
            endTs,
            limit,
            agg,
            interval: agg === 'NONE' ? 1 : endTs - startTs,
            orderBy,
          });
          for (const [key, points] of history) {
            if (points.length === 0) continue;
            metadata[key] =
              mode === 'ALL'
                ? JSON.stringify(points.map((p) => ({ ts: p.ts, value: p.value })))
                : // ThingsBoard writes a single value as a JSON string, quotes included: "\"22.4\"".
                  JSON.stringify(asMetadataValue(points[0]!.value));
          }
        }
        return success({ ...msg, metadata });
      },
    };
  },
};
