import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import type { DeviceRow } from '../../platform/devices.ts';
import type { Services } from '../../platform/services.ts';
import { parseTelemetry } from '../../platform/telemetry-payload.ts';
import type { TelemetryTarget } from '../../platform/telemetry.ts';
import { entityExists } from '../entity-data.ts';
import { failure, success, type NodeDefinition } from '../rule-node.ts';

const CACHED_DEVICES_MAX = 100_000;
const deviceCaches = new WeakMap<Services, Map<string, { row: DeviceRow; deletions: number }>>();

/**
 * The device row telemetry is stored for. Reading it (SELECT *, nine columns turned into an object) for
 * every message cost a sixth of the ingest CPU, so rows are cached. A device is deleted in the same write as
 * its telemetry, which counts the deletion at once (TelemetryRepository.entityDeletions); after any
 * deletion each cached row is checked again before use, so a deleted device is refused at once, as before,
 * and nothing is written under a number a new device could be given later.
 */
function deviceRow(services: Services, id: string): DeviceRow | undefined {
  let cache = deviceCaches.get(services);
  if (!cache) deviceCaches.set(services, (cache = new Map()));
  const deletions = services.ctx.telemetry.entityDeletions;
  const cached = cache.get(id);
  if (cached?.deletions === deletions) return cached.row;
  const row = cached
    ? services.ctx.db.get<{ num: number }>('SELECT num FROM devices WHERE id = ?', [id])?.num ===
      cached.row.num
      ? cached.row
      : services.devices.findRow(id)
    : services.devices.findRow(id);
  if (!row) {
    cache.delete(id);
    return undefined;
  }
  if (!cached && cache.size >= CACHED_DEVICES_MAX) cache.clear();
  cache.set(id, { row, deletions });
  return row;
}

const schema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.saveTimeseries]!;

/**
 * ThingsBoard's DEDUPLICATE processing: only the first message of an originator in each interval is
 * stored; null for the other strategies (every message is stored).
 */
export function deduplicator(
  config: Record<string, unknown>,
): ((originatorId: string, ts: number) => boolean) | null {
  const settings = config.processingSettings as
    { type?: string; deduplicationIntervalSecs?: number } | undefined;
  if (settings?.type !== 'DEDUPLICATE') return null;
  const intervalMs = Math.max(Number(settings.deduplicationIntervalSecs ?? 60), 1) * 1000;
  const last = new Map<string, number>();
  return (originatorId, ts) => {
    const bucket = Math.floor(ts / intervalMs);
    if (last.get(originatorId) === bucket) return false;
    if (last.size >= CACHED_DEVICES_MAX) last.clear();
    last.set(originatorId, bucket);
    return true;
  };
}

/** Stores POST_TELEMETRY_REQUEST data of a device; Success once it is durable. */
export const saveTimeseriesNode: NodeDefinition = {
  type: NODE_TYPES.saveTimeseries,
  label: 'Save Timeseries',
  componentType: 'ACTION',
  description:
    'Saves time series data with a configurable TTL and according to configured processing strategies.',
  relations: ['Success', 'Failure'],
  storesMessageData: true,
  version: 1,
  upgrade: (from, config) =>
    from === 0 && !config.processingSettings
      ? { ...config, processingSettings: { type: 'ON_EVERY_MESSAGE' } }
      : config,
  defaultConfiguration: {
    defaultTTL: 0,
    useServerTs: false,
    processingSettings: { type: 'ON_EVERY_MESSAGE' },
  },
  configurationSchema: schema,
  validate: schemaValidator(schema),
  create: (config, env) => {
    const useServerTs = config.useServerTs === true;
    const firstInInterval = deduplicator(config);
    return {
      async process(msg) {
        if (msg.type !== 'POST_TELEMETRY_REQUEST')
          return failure(msg, new Error(`Unsupported message type ${msg.type}`));
        const { entityType, id } = msg.originator;
        let target: TelemetryTarget | undefined;
        if (entityType === 'DEVICE') target = deviceRow(env.services, id);
        // Any other entity (asset, customer, tenant...) gets its time series number on its first write.
        else if (entityExists(env.services, msg.originator))
          target = { id, entityType, num: env.services.directory.telemetryNum(entityType, id) };
        if (!target)
          return failure(
            msg,
            new Error(`${entityType === 'DEVICE' ? 'Device' : entityType} ${id} not found`),
          );
        const ts = useServerTs ? Date.now() : Number(msg.metadata.ts);
        if (firstInInterval && !firstInInterval(msg.originator.id, Number.isFinite(ts) ? ts : msg.ts))
          return success(msg);
        const parsed = parseTelemetry(msg.data, Number.isFinite(ts) ? ts : msg.ts);
        if (!parsed.ok) return failure(msg, new Error(parsed.error));
        try {
          await env.services.telemetry.saveTimeseries(target, parsed.value);
          return success(msg);
        } catch (err) {
          return failure(msg, err);
        }
      },
    };
  },
};
