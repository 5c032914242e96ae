import type { SqlValue } from 'sql.js';
import type { Param, Writer } from '../store/durable-db.ts';
import type { AttributeData, AttributeScope } from '../../shared/schemas/telemetry.ts';
import type { Aggregation, TsEntry } from './telemetry-repository.ts';
import { decodeKv, encodeKv } from './kv-value.ts';
import type { PlatformContext } from './context.ts';
import type { StoreBudget } from './store-budget.ts';
import { NO_TELEMETRY_NUM, type EntityDirectory } from './entity-directory.ts';

/**
 * Whose time series: an entity's id and number (a device row is one; entityType defaults to DEVICE).
 * An entity other than a device gets its number on its first write (num NO_TELEMETRY_NUM until then).
 */
export interface TelemetryTarget {
  id: string;
  num: number;
  entityType?: string;
}

const ATTRIBUTE_COLUMNS = 6;
const ATTRIBUTE_ROW_CHUNKS = [64, 8, 1];
const attributeUpserts = new Map<number, string>();

/** An upsert of `rows` attribute rows (entity_id, scope, key, t, v, last_update_ts), applied in order. */
function attributeUpsert(rows: number): string {
  let sql = attributeUpserts.get(rows);
  if (!sql) {
    sql = `INSERT INTO attributes (entity_id, scope, key, t, v, last_update_ts) VALUES ${Array(rows).fill('(?, ?, ?, ?, ?, ?)').join(', ')}
         ON CONFLICT (entity_id, scope, key) DO UPDATE SET t = excluded.t, v = excluded.v, last_update_ts = excluded.last_update_ts`;
    attributeUpserts.set(rows, sql);
  }
  return sql;
}

const isDevice = (target: { entityType?: string }) => (target.entityType ?? 'DEVICE') === 'DEVICE';

export interface TimeseriesRequest {
  keys?: string[];
  startTs?: number;
  endTs?: number;
  interval?: number;
  limit?: number;
  agg?: Aggregation;
  orderBy?: 'ASC' | 'DESC';
  strict: boolean;
}

/**
 * Time series and attributes of devices and of every other entity: durable writes, then (for devices,
 * whose followers are the WebSocket and the MQTT sessions) an event.
 */
export class TelemetryService {
  private readonly ctx: PlatformContext;
  private readonly directory: EntityDirectory;
  private readonly storage: StoreBudget | undefined;
  constructor(ctx: PlatformContext, directory: EntityDirectory, storage?: StoreBudget) {
    this.ctx = ctx;
    this.directory = directory;
    this.storage = storage;
  }

  async saveTimeseries(device: TelemetryTarget, entries: TsEntry[]): Promise<number> {
    await this.storage?.admit();
    const count = await this.ctx.db.write((w) => {
      const num =
        device.num !== NO_TELEMETRY_NUM
          ? device.num
          : this.directory.ensureTelemetryNum(w, device.entityType ?? 'DEVICE', device.id);
      return this.ctx.telemetry.save(w, num, entries);
    });
    this.emitSaved(device, entries);
    return count;
  }

  /**
   * Several entities' time series in one write, several datapoints per statement (calculated fields'
   * results of a turn); each entity's event follows once all are durable.
   */
  async saveTimeseriesMany(items: { target: TelemetryTarget; entries: TsEntry[] }[]): Promise<number> {
    await this.storage?.admit();
    const count = await this.ctx.db.write((w) =>
      this.ctx.telemetry.saveMany(
        w,
        items.map(({ target, entries }) => ({
          num:
            target.num !== NO_TELEMETRY_NUM
              ? target.num
              : this.directory.ensureTelemetryNum(w, target.entityType ?? 'DEVICE', target.id),
          entries,
        })),
      ),
    );
    for (const { target, entries } of items) this.emitSaved(target, entries);
    return count;
  }

  private emitSaved(target: TelemetryTarget, entries: TsEntry[]): void {
    if (isDevice(target)) this.ctx.events.emit('telemetry', { deviceId: target.id, entries });
    else
      this.ctx.events.emit('entityTelemetry', {
        entityType: target.entityType!,
        entityId: target.id,
        entries,
      });
  }

  timeseriesKeys(device: TelemetryTarget): string[] {
    return this.ctx.telemetry.keys(device.num);
  }

  /** ThingsBoard's values/timeseries: latest values without a range, history with one. */
  timeseries(
    device: TelemetryTarget,
    q: TimeseriesRequest,
  ): Record<string, { ts: number; value: unknown }[]> {
    const keys = q.keys ?? this.ctx.telemetry.keys(device.num);
    const out: Record<string, { ts: number; value: unknown }[]> = {};
    if (q.startTs === undefined && q.endTs === undefined) {
      for (const [key, p] of this.ctx.telemetry.latest(device.num, keys)) {
        out[key] = [{ ts: p.ts, value: q.strict ? p.value : p.raw }];
      }
      return out;
    }
    const endTs = q.endTs ?? this.ctx.now();
    const startTs = q.startTs ?? 0;
    const agg = q.agg ?? 'NONE';
    const history = this.ctx.telemetry.history(device.num, {
      keys,
      startTs,
      endTs,
      limit: q.limit ?? (agg === 'NONE' ? 100 : 50_000),
      agg,
      interval: q.interval && q.interval > 0 ? q.interval : endTs - startTs,
      orderBy: q.orderBy ?? 'DESC',
    });
    for (const [key, points] of history)
      out[key] = points.map((p) => ({ ts: p.ts, value: q.strict ? p.value : p.raw }));
    return out;
  }

  async deleteTimeseries(
    device: TelemetryTarget,
    keys: string[],
    range: { startTs: number; endTs: number } | 'all',
    latest: { deleteLatest: boolean; rewriteLatest: boolean },
  ): Promise<void> {
    await this.ctx.db.write((w) => this.ctx.telemetry.deleteHistory(w, device.num, keys, range, latest));
  }

  async saveAttributes(
    deviceId: string,
    scope: AttributeScope,
    values: Record<string, unknown>,
    entityType = 'DEVICE',
  ): Promise<void> {
    await this.storage?.admit();
    const ts = this.ctx.now();
    await this.ctx.db.write((w) => this.writeAttributes(w, deviceId, scope, values, ts));
    if (entityType === 'DEVICE') this.ctx.events.emit('attributes', { deviceId, scope, values, ts });
    else this.ctx.events.emit('entityAttributes', { entityType, entityId: deviceId, scope, values, ts });
  }

  /** Several devices' attributes in one store write (one fsync), each device's event once it is durable. */
  async saveAttributesBatch(
    items: { deviceId: string; scope: AttributeScope; values: Record<string, unknown> }[],
  ): Promise<void> {
    if (items.length === 0) return;
    await this.storage?.admit();
    const ts = this.ctx.now();
    await this.ctx.db.write((w) => this.writeAttributeRows(w, items, ts));
    for (const i of items)
      this.ctx.events.emit('attributes', { deviceId: i.deviceId, scope: i.scope, values: i.values, ts });
  }

  /**
   * Several devices' attributes upserted by multi-row statements (rows in ATTRIBUTE_ROW_CHUNKS), in
   * order: a fleet's CONNECT attributes cost one statement and one journal frame per 64 rows, not per row.
   */
  private writeAttributeRows(
    w: Writer,
    items: { deviceId: string; scope: AttributeScope; values: Record<string, unknown> }[],
    ts: number,
  ): void {
    const params: Param[] = [];
    for (const i of items)
      for (const [key, value] of Object.entries(i.values)) {
        const { t, v } = encodeKv(value);
        params.push(i.deviceId, i.scope, key, t, v, ts);
      }
    let at = 0;
    let rows = params.length / ATTRIBUTE_COLUMNS;
    for (const chunk of ATTRIBUTE_ROW_CHUNKS)
      for (; rows >= chunk; rows -= chunk, at += chunk * ATTRIBUTE_COLUMNS)
        w.run(attributeUpsert(chunk), params.slice(at, at + chunk * ATTRIBUTE_COLUMNS));
  }

  /** Upserts attributes inside the caller's write; the caller emits the 'attributes' event once it is durable. */
  writeAttributes(
    w: Writer,
    deviceId: string,
    scope: AttributeScope,
    values: Record<string, unknown>,
    ts: number,
  ): void {
    for (const [key, value] of Object.entries(values)) {
      const { t, v } = encodeKv(value);
      w.run(attributeUpsert(1), [deviceId, scope, key, t, v, ts]);
    }
  }

  attributes(
    deviceId: string,
    scopes: AttributeScope[],
    keys?: string[],
  ): (AttributeData & { scope: AttributeScope })[] {
    const rows = this.ctx.db.all<{
      scope: AttributeScope;
      key: string;
      t: string;
      v: SqlValue;
      last_update_ts: number;
    }>(
      `SELECT scope, key, t, v, last_update_ts FROM attributes WHERE entity_id = ? AND scope IN (${scopes.map(() => '?').join(',')})
       ORDER BY key`,
      [deviceId, ...scopes],
    );
    const wanted = keys && keys.length > 0 ? new Set(keys) : null;
    return rows
      .filter((r) => !wanted || wanted.has(r.key))
      .map((r) => ({
        scope: r.scope,
        key: r.key,
        value: decodeKv(r.t, r.v),
        lastUpdateTs: r.last_update_ts,
      }));
  }

  /** One attribute of many devices (those that have it), read 500 devices a statement. */
  attributeOfMany(deviceIds: string[], scope: AttributeScope, key: string): Map<string, unknown> {
    const found = new Map<string, unknown>();
    for (let i = 0; i < deviceIds.length; i += 500) {
      const ids = deviceIds.slice(i, i + 500);
      const rows = this.ctx.db.all<{ entity_id: string; t: string; v: SqlValue }>(
        `SELECT entity_id, t, v FROM attributes WHERE entity_id IN (${ids.map(() => '?').join(',')}) AND scope = ? AND key = ?`,
        [...ids, scope, key],
      );
      for (const r of rows) found.set(r.entity_id, decodeKv(r.t, r.v));
    }
    return found;
  }

  async deleteAttributes(
    deviceId: string,
    scope: AttributeScope,
    keys: string[],
    entityType = 'DEVICE',
  ): Promise<void> {
    await this.ctx.db.write((w) => {
      for (const key of keys)
        w.run('DELETE FROM attributes WHERE entity_id = ? AND scope = ? AND key = ?', [deviceId, scope, key]);
    });
    if (entityType === 'DEVICE') this.ctx.events.emit('attributesDeleted', { deviceId, scope, keys });
  }

  /** Drops history older than the retention; returns how many datapoints went. */
  async applyRetention(retentionDays: number): Promise<number> {
    if (retentionDays <= 0) return 0;
    const cutoff = this.ctx.now() - retentionDays * 86_400_000;
    return this.ctx.telemetry.purgeOlderThan(cutoff);
  }
}
