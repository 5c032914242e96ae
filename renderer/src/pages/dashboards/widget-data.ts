/**
 * What a widget shows: the entities its datasources resolve to, with their latest values and time
 * series, kept live by ENTITY_DATA subscriptions on the page's socket (a query with a latestCmd, and a
 * tsCmd or historyCmd for time series widgets), and processed by each key's post-processing function.
 */
import type { ApiClient } from '../../api/client.ts';
import { resolveAlias, type EntityFilter, type StateParams } from './aliases.ts';
import type { DataKey, Datasource, EntityAlias, TbEntityId } from './dashboard-model.ts';
import { postProcess, type RawPoint } from './post-process.ts';
import { timeseriesCmd, type TimeRange } from './timewindow.ts';
import type { TbCmdUpdate, TbSocket } from './tb-socket.ts';

export interface Point {
  ts: number;
  value: unknown;
}

export interface EntityRow {
  entityId: TbEntityId;
  name: string;
  label: string;
  type: string;
  /** by data key name (of any key type) */
  latest: Record<string, Point>;
  series: Record<string, Point[]>;
}

export interface DatasourceData {
  datasource: Datasource;
  keys: DataKey[];
  rows: EntityRow[];
  error?: string;
  loaded: boolean;
}

export type DataMode = 'latest' | 'timeseries';

/** entities a datasource that resolves to many shows at most */
export const MAX_ENTITIES = 100;

const KEY_TYPES: Record<string, string> = {
  timeseries: 'TIME_SERIES',
  attribute: 'ATTRIBUTE',
  entityField: 'ENTITY_FIELD',
};

/** A value as a widget shows it: numbers as numbers, the rest as sent. */
export function parseValue(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  if (v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  if (v === 'true') return true;
  if (v === 'false') return false;
  return v;
}

export function datasourceFilter(
  ds: Datasource,
  aliases: Record<string, EntityAlias>,
  params: StateParams,
): { filter: EntityFilter; single: boolean } | Error {
  if (ds.type === 'device' && ds.deviceId)
    return {
      filter: { type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: ds.deviceId } },
      single: true,
    };
  if (!ds.entityAliasId) return new Error('The datasource has no entity alias');
  const alias = aliases[ds.entityAliasId];
  if (!alias) return new Error(`The entity alias ${ds.entityAliasId} is not in this dashboard`);
  return resolveAlias(alias, params);
}

export function entityQuery(filter: EntityFilter, single: boolean, keys: DataKey[]) {
  const fields = new Set(['name', 'label', 'type']);
  for (const k of keys) if (k.type === 'entityField') fields.add(k.name);
  return {
    entityFilter: filter,
    pageLink: {
      page: 0,
      pageSize: single ? 1 : MAX_ENTITIES,
      sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' },
    },
    entityFields: [...fields].map((key) => ({ type: 'ENTITY_FIELD', key })),
    latestValues: keys
      .filter((k) => k.type === 'timeseries' || k.type === 'attribute')
      .map((k) => ({ type: KEY_TYPES[k.type], key: k.name })),
  };
}

interface RawEntityData {
  entityId: TbEntityId;
  latest?: Record<string, Record<string, { ts: number; value: string }>>;
  timeseries?: Record<string, { ts: number; value: string }[]>;
}

/**
 * One widget's data: subscribes each datasource on start(), merges updates, runs post-processing, and
 * notifies its listeners (React reads it through useSyncExternalStore).
 */
export class WidgetData {
  private data: DatasourceData[];
  private readonly listeners = new Set<() => void>();
  private readonly closers: (() => void)[] = [];
  private readonly processed = new Map<string, Map<number, unknown>>();
  private readonly processing = new Set<string>();
  private stopped = false;
  postError: string | undefined;

  constructor(
    private readonly socket: TbSocket,
    private readonly client: ApiClient,
    private readonly datasources: Datasource[],
    private readonly aliases: Record<string, EntityAlias>,
    private readonly params: StateParams,
    private readonly mode: DataMode,
    private readonly range: TimeRange,
  ) {
    this.data = datasources.map((datasource) => ({
      datasource,
      keys: [...(datasource.dataKeys ?? []), ...(datasource.latestDataKeys ?? [])],
      rows: [],
      loaded: false,
    }));
  }

  get snapshot(): DatasourceData[] {
    return this.data;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private emit(): void {
    this.data = [...this.data];
    for (const l of this.listeners) l();
  }

  start(): void {
    // started again after a stop (React's strict mode runs effects twice in development)
    this.stopped = false;
    this.data.forEach((entry, i) => {
      if (entry.datasource.type === 'function') {
        entry.error = 'Function datasources generate no data here';
        entry.loaded = true;
        return;
      }
      const resolved = datasourceFilter(entry.datasource, this.aliases, this.params);
      if (resolved instanceof Error) {
        entry.error = resolved.message;
        entry.loaded = true;
        return;
      }
      const query = entityQuery(resolved.filter, resolved.single, entry.keys);
      const latestKeys =
        this.mode === 'latest'
          ? query.latestValues
          : query.latestValues.filter((k) => k.type !== 'TIME_SERIES');
      const tsKeys = entry.keys.filter((k) => k.type === 'timeseries').map((k) => k.name);
      const cmd = {
        type: 'ENTITY_DATA',
        query,
        ...(latestKeys.length > 0 ? { latestCmd: { keys: latestKeys } } : {}),
        ...(this.mode === 'timeseries' && tsKeys.length > 0 ? timeseriesCmd(tsKeys, this.range) : {}),
      };
      this.closers.push(this.socket.subscribe(cmd, (u) => this.onUpdate(i, u)));
    });
    this.emit();
  }

  stop(): void {
    this.stopped = true;
    for (const close of this.closers.splice(0)) close();
  }

  private onUpdate(i: number, u: TbCmdUpdate): void {
    const entry = { ...this.data[i]! };
    if (u.errorCode) {
      entry.error = u.errorMsg ?? `Error ${u.errorCode}`;
      entry.loaded = true;
      this.data[i] = entry;
      this.emit();
      return;
    }
    entry.error = undefined;
    const byId = new Map(entry.rows.map((r) => [r.entityId.id, r]));
    if (u.data) {
      const fresh = new Map<string, EntityRow>();
      for (const d of u.data.data as RawEntityData[])
        fresh.set(d.entityId.id, this.merge(byId.get(d.entityId.id), d));
      entry.rows = [...fresh.values()];
      entry.loaded = true;
    }
    if (u.update) {
      for (const d of u.update as RawEntityData[])
        byId.set(d.entityId.id, this.merge(byId.get(d.entityId.id), d));
      const rows = u.data ? new Map(entry.rows.map((r) => [r.entityId.id, r])) : byId;
      for (const d of u.update as RawEntityData[]) rows.set(d.entityId.id, byId.get(d.entityId.id)!);
      entry.rows = [...rows.values()];
      entry.loaded = true;
    }
    this.data[i] = entry;
    this.emit();
    this.runPostProcessing(i);
  }

  private merge(row: EntityRow | undefined, d: RawEntityData): EntityRow {
    const fields = d.latest?.ENTITY_FIELD ?? {};
    const next: EntityRow = row
      ? { ...row, latest: { ...row.latest }, series: { ...row.series } }
      : { entityId: d.entityId, name: '', label: '', type: '', latest: {}, series: {} };
    if (fields.name) next.name = fields.name.value;
    if (fields.label) next.label = fields.label.value;
    if (fields.type) next.type = fields.type.value;
    for (const group of Object.values(d.latest ?? {}))
      for (const [key, v] of Object.entries(group)) {
        if (v.ts === 0 && v.value === '' && next.latest[key]) continue;
        next.latest[key] = { ts: v.ts, value: parseValue(v.value) };
      }
    const from = this.range.realtime ? Date.now() - this.range.timeWindow : this.range.startTs;
    for (const [key, points] of Object.entries(d.timeseries ?? {})) {
      const byTs = new Map((next.series[key] ?? []).map((p) => [p.ts, p]));
      for (const p of points) byTs.set(p.ts, { ts: p.ts, value: parseValue(p.value) });
      const sorted = [...byTs.values()].filter((p) => p.ts >= from).sort((a, b) => a.ts - b.ts);
      next.series[key] = sorted.slice(-this.range.limit);
      const last = sorted[sorted.length - 1];
      if (last && (!next.latest[key] || next.latest[key].ts <= last.ts)) next.latest[key] = last;
    }
    return next;
  }

  /** The value to show of a key's point: its post-processed value once there is one. */
  shown(entityId: string, key: DataKey, p: Point | undefined): unknown {
    if (!p) return undefined;
    if (!key.usePostProcessing || !key.postFuncBody) return p.value;
    const done = this.processed.get(`${entityId}|${key.name}`)?.get(p.ts);
    return done === undefined ? p.value : done;
  }

  private runPostProcessing(i: number): void {
    const entry = this.data[i]!;
    for (const key of entry.keys) {
      if (!key.usePostProcessing || !key.postFuncBody) continue;
      for (const row of entry.rows) {
        const id = `${row.entityId.id}|${key.name}`;
        if (this.processing.has(id)) continue;
        const cache = this.processed.get(id) ?? new Map<number, unknown>();
        this.processed.set(id, cache);
        const points: RawPoint[] = (
          row.series[key.name] ?? (row.latest[key.name] ? [row.latest[key.name]!] : [])
        ).filter((p) => !cache.has(p.ts));
        if (points.length === 0) continue;
        const lastTs = Math.max(-1, ...[...cache.keys()].filter((ts) => ts < points[0]!.ts));
        const prev =
          lastTs >= 0
            ? { value: cache.get(lastTs), ts: lastTs, orig: null }
            : { value: null, ts: 0, orig: null };
        this.processing.add(id);
        postProcess(this.client, key.postFuncBody, points, prev)
          .then((values) => {
            points.forEach((p, j) => cache.set(p.ts, values[j]));
            // bounded: only what is still shown
            if (cache.size > 2 * this.range.limit)
              for (const ts of [...cache.keys()].slice(0, cache.size - this.range.limit)) cache.delete(ts);
            this.postError = undefined;
          })
          .catch((err: unknown) => {
            this.postError = `Post-processing of ${key.label ?? key.name}: ${(err as Error).message}`;
            for (const p of points) cache.set(p.ts, p.value);
          })
          .finally(() => {
            this.processing.delete(id);
            if (this.stopped) return;
            this.emit();
            this.runPostProcessing(i);
          });
      }
    }
  }
}
