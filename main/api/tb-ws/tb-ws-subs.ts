import type {
  AlarmCountQuery,
  AlarmDataQuery,
  EntityCountQuery,
  EntityDataQuery,
  EntityKey,
  TsValue,
} from '../../../shared/schemas/entity-query.ts';
import type { AttributeScope } from '../../../shared/schemas/telemetry.ts';
import { SubscriptionErrorCode, TB_WS_LIMITS, type PageDataOf } from '../../../shared/schemas/tb-ws.ts';
import type { AlarmSeverity } from '../../../shared/schemas/alarms.ts';
import type { Aggregation } from '../../platform/telemetry-repository.ts';
import type { AlarmEvent } from '../../platform/events.ts';
import type { Services } from '../../platform/services.ts';
import { LiveSub, type FlushInput, type TbWsHub, type WsSink } from './tb-ws-hub.ts';

type Ref = { entityType: string; id: string };
type Points = Record<string, [number, string][]>;

/** A TelemetrySubscriptionUpdate frame: data key -> [[ts, text]], latestValues key -> ts of its last entry. */
export function telemetryFrame(
  subscriptionId: number,
  data: Points | null,
  error?: [number, string],
): string {
  const latestValues: Record<string, number> = {};
  if (data)
    for (const [key, list] of Object.entries(data)) if (list.length) latestValues[key] = list.at(-1)![0];
  return JSON.stringify({
    subscriptionId,
    errorCode: error?.[0] ?? SubscriptionErrorCode.NO_ERROR,
    errorMsg: error?.[1] ?? null,
    data: error ? null : data,
    latestValues,
  });
}

/** A CmdUpdate frame of any cmdUpdateType. */
export function cmdFrame(cmdId: number, cmdUpdateType: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ cmdId, errorCode: 0, errorMsg: null, cmdUpdateType, ...fields });
}

export function cmdErrorFrame(cmdId: number, cmdUpdateType: string, code: number, message: string): string {
  return JSON.stringify({ cmdId, errorCode: code, errorMsg: message, cmdUpdateType });
}

const SCOPE_OF_KEY_TYPE: Partial<Record<EntityKey['type'], AttributeScope>> = {
  CLIENT_ATTRIBUTE: 'CLIENT_SCOPE',
  SHARED_ATTRIBUTE: 'SHARED_SCOPE',
  SERVER_ATTRIBUTE: 'SERVER_SCOPE',
};

/** The newest point of a list. */
const newest = (points: TsValue[]) => points.reduce((a, b) => (b.ts >= a.ts ? b : a));

// --- v1: ATTRIBUTES and TIMESERIES -----------------------------------------------------------------------

/** TIMESERIES of one entity: every new point of its keys (all keys when none were named). */
export class TimeseriesSub extends LiveSub {
  private readonly entityId: string;
  private readonly keys: Set<string> | null;
  private readonly signature: string;
  constructor(sink: WsSink, cmdId: number, entityId: string, keys: string[] | null) {
    super(sink, cmdId);
    this.entityId = entityId;
    this.keys = keys ? new Set(keys) : null;
    this.signature = `v1ts|${entityId}|${keys?.join(',') ?? '*'}`;
  }
  entities() {
    return [this.entityId];
  }
  override wantsTs(_id: string, keys: string[]): boolean {
    return !this.keys || keys.some((k) => this.keys!.has(k));
  }
  flush(input: FlushInput): string | null {
    this.dirty.clear();
    let body = input.cache.get(this.signature);
    if (body === undefined) {
      const data: Points = {};
      for (const [key, points] of input.ts(this.entityId) ?? []) {
        if (!this.keys || this.keys.has(key)) data[key] = points.map((p) => [p.ts, p.value]);
      }
      body = Object.keys(data).length ? telemetryFrame(0, data).slice('{"subscriptionId":0'.length) : '';
      input.cache.set(this.signature, body);
    }
    return body ? `{"subscriptionId":${this.cmdId}${body}` : null;
  }
}

/** ATTRIBUTES of one entity, of one scope or all. */
export class AttributesSub extends LiveSub {
  private readonly entityId: string;
  private readonly scope: AttributeScope | null;
  private readonly keys: Set<string> | null;
  constructor(
    sink: WsSink,
    cmdId: number,
    entityId: string,
    scope: AttributeScope | null,
    keys: string[] | null,
  ) {
    super(sink, cmdId);
    this.entityId = entityId;
    this.scope = scope;
    this.keys = keys ? new Set(keys) : null;
  }
  entities() {
    return [this.entityId];
  }
  override wantsAttributes(_id: string, scope: AttributeScope, keys: string[]): boolean {
    return (!this.scope || this.scope === scope) && (!this.keys || keys.some((k) => this.keys!.has(k)));
  }
  flush(input: FlushInput): string | null {
    this.dirty.clear();
    const data: Points = {};
    for (const [scope, values] of input.attributes(this.entityId) ?? []) {
      if (this.scope && scope !== this.scope) continue;
      for (const [key, v] of values) if (!this.keys || this.keys.has(key)) data[key] = [[v.ts, v.value]];
    }
    return Object.keys(data).length ? telemetryFrame(this.cmdId, data) : null;
  }
}

// --- ENTITY_DATA -----------------------------------------------------------------------------------------

/** A tsCmd with aggregation, or an aggTsCmd: values recomputed from the store when an entity changes. */
export interface AggregatedFollow {
  kind: 'series' | 'latest';
  keys: { id?: number; key: string; agg: Aggregation }[];
  startTs: number;
  interval: number;
  limit: number;
}

/**
 * ENTITY_DATA: the entities its query found, followed for the latestCmd keys (one newest value each), the
 * tsCmd keys (every point, or the aggregated current interval) and the aggTsCmd keys.
 */
export class EntityDataSub extends LiveSub {
  private readonly services: Services;
  refs = new Map<string, Ref>();
  /** latest keys by ThingsBoard key type (TIME_SERIES, ATTRIBUTE, SERVER_ATTRIBUTE, ...) */
  latest = new Map<EntityKey['type'], Set<string>>();
  series: Set<string> | null = null;
  aggregated: AggregatedFollow | null = null;
  /** a dynamic page link's query (pageLink.dynamic): run again when entities change */
  dynamicQuery: EntityDataQuery | null = null;
  private entitiesChanged = false;
  private signature = '';
  private readonly hub: TbWsHub;

  constructor(sink: WsSink, cmdId: number, services: Services, hub: TbWsHub) {
    super(sink, cmdId);
    this.services = services;
    this.hub = hub;
  }

  override wantsEntityChange(): boolean {
    if (!this.dynamicQuery) return false;
    this.entitiesChanged = true;
    return true;
  }

  /** Its query run again: a new data page when the entities it finds differ, else null. */
  private requery(): string | null {
    this.entitiesChanged = false;
    const page = this.services.entityQuery.find(this.dynamicQuery!, this.sink.principal!);
    const ids = page.data.map((e) => e.entityId.id);
    if (ids.length === this.refs.size && ids.every((id) => this.refs.has(id))) return null;
    this.hub.remove(this);
    this.refs = new Map(page.data.map((e) => [e.entityId.id, e.entityId]));
    this.hub.follow(this);
    this.hub.watch(this);
    return cmdFrame(this.cmdId, 'ENTITY_DATA', {
      data: page,
      update: null,
      allowedEntities: TB_WS_LIMITS.maxEntitiesPerDataSubscription,
    });
  }

  entities() {
    return this.refs.keys();
  }

  /** Call after changing what it follows. */
  sealed(): void {
    const latest = [...this.latest].map(([t, keys]) => `${t}:${[...keys].join(',')}`).join(';');
    this.signature = `ed|${latest}|${[...(this.series ?? [])].join(',')}`;
  }

  clear(): void {
    this.latest = new Map();
    this.series = null;
    this.aggregated = null;
    this.sealed();
  }

  override forget(entityId: string): void {
    this.refs.delete(entityId);
    this.dirty.delete(entityId);
  }

  override wantsTs(_id: string, keys: string[]): boolean {
    const latest = this.latest.get('TIME_SERIES');
    if (latest && keys.some((k) => latest.has(k))) return true;
    if (this.series && keys.some((k) => this.series!.has(k))) return true;
    return !!this.aggregated && keys.some((k) => this.aggregated!.keys.some((a) => a.key === k));
  }

  override wantsAttributes(_id: string, scope: AttributeScope, keys: string[]): boolean {
    for (const [type, wanted] of this.latest) {
      if (type === 'TIME_SERIES' || type === 'ENTITY_FIELD' || type === 'ALARM_FIELD') continue;
      const s = SCOPE_OF_KEY_TYPE[type];
      if ((!s || s === scope) && keys.some((k) => wanted.has(k))) return true;
    }
    return false;
  }

  flush(input: FlushInput): string | null {
    if (this.entitiesChanged) {
      const frame = this.requery();
      if (frame) {
        this.dirty.clear();
        return frame;
      }
    }
    const fragments: string[] = [];
    for (const id of this.dirty) {
      const ref = this.refs.get(id);
      if (!ref) continue;
      const cacheKey = `${id}|${this.signature}`;
      let fragment = input.cache.get(cacheKey);
      if (fragment === undefined) {
        fragment = this.fragment(ref, input);
        input.cache.set(cacheKey, fragment);
      }
      const own = this.aggregated ? this.aggregatedFragment(ref) : '';
      if (fragment) fragments.push(fragment);
      if (own) fragments.push(own);
    }
    this.dirty.clear();
    if (fragments.length === 0) return null;
    return (
      `{"cmdId":${this.cmdId},"errorCode":0,"errorMsg":null,"cmdUpdateType":"ENTITY_DATA","data":null,` +
      `"update":[${fragments.join(',')}],"allowedEntities":${TB_WS_LIMITS.maxEntitiesPerDataSubscription}}`
    );
  }

  /** What changed of an entity's latest values and raw time series, as one EntityData (or ''). */
  private fragment(ref: Ref, input: FlushInput): string {
    const ts = input.ts(ref.id);
    const attributes = input.attributes(ref.id);
    let latest: Record<string, Record<string, TsValue>> | null = null;
    for (const [type, keys] of this.latest) {
      const values: Record<string, TsValue> = {};
      if (type === 'TIME_SERIES') {
        for (const key of keys) {
          const points = ts?.get(key);
          if (points?.length) values[key] = newest(points);
        }
      } else if (attributes) {
        const only = SCOPE_OF_KEY_TYPE[type];
        for (const [scope, changed] of attributes) {
          if (only && only !== scope) continue;
          for (const key of keys) {
            const v = changed.get(key);
            if (v) values[key] = v;
          }
        }
      }
      if (Object.keys(values).length) (latest ??= {})[type] = values;
    }
    let timeseries: Record<string, TsValue[]> | null = null;
    if (this.series && ts) {
      for (const key of this.series) {
        const points = ts.get(key);
        if (points?.length) (timeseries ??= {})[key] = points;
      }
    }
    if (!latest && !timeseries) return '';
    return JSON.stringify({ entityId: ref, latest, timeseries });
  }

  /** The aggregated interval the entity's change falls in, read again from the store. */
  private aggregatedFragment(ref: Ref): string {
    const a = this.aggregated!;
    const now = this.services.ctx.now();
    const target = {
      id: ref.id,
      num: this.services.directory.telemetryNum(ref.entityType, ref.id),
      entityType: ref.entityType,
    };
    if (a.kind === 'series') {
      const interval = a.interval > 0 ? a.interval : Math.max(1, now - a.startTs);
      const from = a.startTs + Math.floor((now - a.startTs) / interval) * interval;
      const timeseries: Record<string, TsValue[]> = {};
      for (const k of a.keys) {
        const got = this.services.telemetry.timeseries(target, {
          keys: [k.key],
          startTs: from,
          endTs: from + interval,
          interval,
          agg: k.agg,
          limit: a.limit,
          strict: false,
        })[k.key];
        if (got?.length) timeseries[k.key] = got.map((p) => ({ ts: p.ts, value: String(p.value) }));
      }
      return Object.keys(timeseries).length
        ? JSON.stringify({ entityId: ref, latest: null, timeseries })
        : '';
    }
    const aggLatest = aggregateKeys(this.services, target, a.keys, a.startTs, now);
    return JSON.stringify({ entityId: ref, latest: null, timeseries: null, aggLatest });
  }
}

/** One aggregated value per AggKey over [startTs, endTs] ({ts: 0, value: ''} when there is none). */
export function aggregateKeys(
  services: Services,
  target: { id: string; num: number; entityType: string },
  keys: { id?: number; key: string; agg: Aggregation }[],
  startTs: number,
  endTs: number,
): Record<number, { current: TsValue; previous?: TsValue }> {
  const out: Record<number, { current: TsValue }> = {};
  for (const k of keys) {
    const got = services.telemetry.timeseries(target, {
      keys: [k.key],
      startTs,
      endTs,
      interval: Math.max(1, endTs - startTs),
      agg: k.agg,
      limit: 1,
      strict: false,
    })[k.key]?.[0];
    out[k.id ?? 0] = { current: got ? { ts: got.ts, value: String(got.value) } : { ts: 0, value: '' } };
  }
  return out;
}

// --- counts, alarm tables and alarm status: read again when alarms or entities change ---------------------

/** Whether the session's user may see an alarm of this customer (null: the tenant's own). */
function maySeeAlarm(sink: WsSink, e: AlarmEvent): boolean {
  const p = sink.principal;
  if (!p) return false;
  return p.authority === 'TENANT_ADMIN' || (!!p.customerId && e.alarm.customerId?.id === p.customerId);
}

/** What makes a RereadSub read again: alarm changes it may show, or entity changes. */
export interface RereadTrigger {
  alarm?: (e: AlarmEvent) => boolean;
  entities?: boolean;
}

/** A subscription answered by reading again when its trigger fires: it sends only when the answer changed. */
export class RereadSub extends LiveSub {
  private last = '';
  private readonly read: () => string;
  private readonly trigger: RereadTrigger;
  constructor(sink: WsSink, cmdId: number, read: () => string, trigger: RereadTrigger) {
    super(sink, cmdId);
    this.read = read;
    this.trigger = trigger;
  }
  entities() {
    return [];
  }
  override wantsAlarm(e: AlarmEvent): boolean {
    return this.trigger.alarm?.(e) ?? false;
  }
  override wantsEntityChange(): boolean {
    return this.trigger.entities ?? false;
  }
  /** The first answer (and the reference for later ones). */
  first(): string {
    this.last = this.read();
    return this.last;
  }
  flush(): string | null {
    const next = this.read();
    if (next === this.last) return null;
    this.last = next;
    return next;
  }
}

/** ENTITY_COUNT: read again when devices or relations change. */
export function entityCountSub(sink: WsSink, cmdId: number, services: Services, query: EntityCountQuery) {
  const read = () =>
    cmdFrame(cmdId, 'COUNT_DATA', { count: services.entityQuery.count(query, sink.principal!) });
  return new RereadSub(sink, cmdId, read, { entities: true });
}

/** ALARM_COUNT: read again when an alarm the user may see changes. */
export function alarmCountSub(sink: WsSink, cmdId: number, services: Services, query: AlarmCountQuery) {
  const read = () =>
    cmdFrame(cmdId, 'ALARM_COUNT_DATA', { count: services.entityQuery.countAlarms(query, sink.principal!) });
  return new RereadSub(sink, cmdId, read, { alarm: (e) => maySeeAlarm(sink, e) });
}

/** ALARM_DATA: its page read again when an alarm the user may see changes. */
export function alarmDataSub(sink: WsSink, cmdId: number, services: Services, query: AlarmDataQuery) {
  const pageSize = Math.min(query.pageLink.pageSize, TB_WS_LIMITS.maxEntitiesPerAlarmSubscription);
  const capped = { ...query, pageLink: { ...query.pageLink, pageSize } };
  const read = () => {
    const principal = sink.principal!;
    const data: PageDataOf<unknown> = services.entityQuery.findAlarms(capped, principal);
    const totalEntities = capped.entityFilter
      ? services.entityQuery.count({ entityFilter: capped.entityFilter }, principal)
      : 0;
    return cmdFrame(cmdId, 'ALARM_DATA', {
      data,
      update: null,
      allowedEntities: TB_WS_LIMITS.maxEntitiesPerAlarmSubscription,
      totalEntities,
    });
  };
  return new RereadSub(sink, cmdId, read, { alarm: (e) => maySeeAlarm(sink, e) });
}

/** ALARM_STATUS: whether the originator has an active alarm (of these types and severities). */
export function alarmStatusSub(
  sink: WsSink,
  cmdId: number,
  services: Services,
  filter: { originatorId: string; typeList?: string[] | null; severityList?: AlarmSeverity[] | null },
) {
  const read = () => {
    const active =
      services.alarms.count({
        originatorIds: [filter.originatorId],
        statusList: ['ACTIVE'],
        ...(filter.typeList?.length ? { typeList: filter.typeList } : {}),
        ...(filter.severityList?.length ? { severityList: filter.severityList } : {}),
      }) > 0;
    return cmdFrame(cmdId, 'ALARM_STATUS', { active });
  };
  return new RereadSub(sink, cmdId, read, { alarm: (e) => e.alarm.originator.id === filter.originatorId });
}
