import type { Static } from 'typebox';
import type { EntityData, EntityKey, TsValue } from '../../../shared/schemas/entity-query.ts';
import { ATTRIBUTE_SCOPES } from '../../../shared/schemas/telemetry.ts';
import {
  SubscriptionErrorCode,
  TB_WS_LIMITS,
  type AggKey,
  type EntityDataCmd,
  type WsCmd,
} from '../../../shared/schemas/tb-ws.ts';
import type { Aggregation } from '../../platform/telemetry-repository.ts';
import type { Services } from '../../platform/services.ts';
import {
  AttributesSub,
  EntityDataSub,
  TimeseriesSub,
  aggregateKeys,
  alarmCountSub,
  alarmDataSub,
  alarmStatusSub,
  entityCountSub,
  cmdFrame,
  telemetryFrame,
} from './tb-ws-subs.ts';
import type { LiveSub, TbWsHub, WsSink } from './tb-ws-hub.ts';

/** A command that cannot be served: its error update says why. */
export class CmdError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/** What commands need of the session that runs them. */
export interface CmdSession extends WsSink {
  readonly subs: Map<number, LiveSub>;
  readonly hub: TbWsHub;
  readonly services: Services;
  /** replaces (or drops, with null) the subscription of a cmdId */
  setSub(cmdId: number, sub: LiveSub | null): void;
}

type Target = { id: string; num: number; entityType: string };
/** An entity of an ENTITY_DATA answer as it is being filled. */
interface EntityOut {
  entityId: { entityType: string; id: string };
  latest: unknown;
  timeseries: Record<string, TsValue[]>;
  aggLatest?: unknown;
}

const splitKeys = (keys: string | null | undefined) =>
  keys
    ? keys
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean)
    : [];

function target(services: Services, entityType: string, id: string): Target {
  return { id, num: services.directory.telemetryNum(entityType, id), entityType };
}

/** The entity of a v1 command, which the session's user must be allowed to read. */
function v1Target(
  session: CmdSession,
  cmd: { entityType?: string | null; entityId?: string | null },
): Target {
  if (!cmd.entityId) throw new CmdError(SubscriptionErrorCode.BAD_REQUEST, 'Device id is empty!');
  const entityType = cmd.entityType || 'DEVICE';
  session.services.directory.require({ entityType, id: cmd.entityId }, session.principal!, 'read');
  return target(session.services, entityType, cmd.entityId);
}

/** Adds a subscription under its cmdId, within the session's bound. */
function subscribe(session: CmdSession, sub: LiveSub, follow: 'entities' | 'watch'): void {
  if (!session.subs.has(sub.cmdId) && session.subs.size >= TB_WS_LIMITS.maxSubscriptionsPerSession)
    throw new CmdError(
      SubscriptionErrorCode.BAD_REQUEST,
      `Max subscriptions limit reached! (${TB_WS_LIMITS.maxSubscriptionsPerSession} a session)`,
    );
  session.setSub(sub.cmdId, sub);
  if (follow === 'entities') session.hub.follow(sub);
  else session.hub.watch(sub);
}

const asPoints = (list: { ts: number; value: unknown }[]) =>
  list.map((p): [number, string] => [p.ts, String(p.value)]);

/** Runs a command of the cmds array (errors are thrown, and become its error update). */
export function handleCmd(session: CmdSession, cmd: WsCmd): void {
  const services = session.services;
  const principal = session.principal!;
  switch (cmd.type) {
    case 'ATTRIBUTES': {
      if (cmd.unsubscribe) return session.setSub(cmd.cmdId, null);
      const t = v1Target(session, cmd);
      const keys = splitKeys(cmd.keys);
      const scope = cmd.scope ?? null;
      const data: Record<string, [number, string][]> = {};
      for (const a of services.telemetry.attributes(t.id, scope ? [scope] : ATTRIBUTE_SCOPES, keys))
        data[a.key] = [[a.lastUpdateTs, valueOf(a.value)]];
      subscribe(
        session,
        new AttributesSub(session, cmd.cmdId, t.id, scope, keys.length ? keys : null),
        'entities',
      );
      session.deliver(telemetryFrame(cmd.cmdId, data));
      return;
    }
    case 'TIMESERIES': {
      if (cmd.unsubscribe) return session.setSub(cmd.cmdId, null);
      const t = v1Target(session, cmd);
      const keys = splitKeys(cmd.keys);
      const now = services.ctx.now();
      const windowed = (cmd.timeWindow ?? 0) > 0 || (cmd.startTs ?? 0) > 0;
      const startTs = cmd.startTs || now - (cmd.timeWindow ?? 0);
      const found = services.telemetry.timeseries(t, {
        ...(keys.length ? { keys } : {}),
        ...(windowed
          ? {
              startTs,
              endTs: cmd.timeWindow ? startTs + cmd.timeWindow : now,
              interval: cmd.interval,
              limit: cmd.limit || TB_WS_LIMITS.defaultLimit,
              agg: (cmd.agg ?? 'NONE') as Aggregation,
            }
          : {}),
        strict: false,
      });
      const data = Object.fromEntries(Object.entries(found).map(([k, list]) => [k, asPoints(list)]));
      subscribe(session, new TimeseriesSub(session, cmd.cmdId, t.id, keys.length ? keys : null), 'entities');
      session.deliver(telemetryFrame(cmd.cmdId, data));
      return;
    }
    case 'TIMESERIES_HISTORY': {
      const t = v1Target(session, cmd);
      const keys = splitKeys(cmd.keys);
      if (keys.length === 0) throw new CmdError(SubscriptionErrorCode.BAD_REQUEST, 'Keys are empty!');
      const found = services.telemetry.timeseries(t, {
        keys,
        startTs: cmd.startTs ?? 0,
        endTs: cmd.endTs ?? services.ctx.now(),
        interval: cmd.interval,
        limit: cmd.limit || TB_WS_LIMITS.defaultLimit,
        agg: (cmd.agg ?? 'NONE') as Aggregation,
        strict: false,
      });
      const data = Object.fromEntries(keys.map((k) => [k, asPoints(found[k] ?? [])]));
      session.deliver(telemetryFrame(cmd.cmdId, data));
      return;
    }
    case 'ENTITY_DATA':
      return entityData(session, cmd);
    case 'ENTITY_COUNT': {
      if (!cmd.query) throw new CmdError(SubscriptionErrorCode.BAD_REQUEST, 'Query is empty!');
      if (session.subs.has(cmd.cmdId)) return; // ThingsBoard ignores a duplicate
      const sub = entityCountSub(session, cmd.cmdId, services, cmd.query);
      const first = sub.first();
      subscribe(session, sub, 'watch');
      session.deliver(first);
      return;
    }
    case 'ALARM_DATA': {
      if (!cmd.query) throw new CmdError(SubscriptionErrorCode.BAD_REQUEST, 'Query is empty!');
      const sub = alarmDataSub(session, cmd.cmdId, services, cmd.query);
      const first = sub.first();
      subscribe(session, sub, 'watch');
      session.deliver(first);
      return;
    }
    case 'ALARM_COUNT': {
      if (session.subs.has(cmd.cmdId)) return;
      const sub = alarmCountSub(session, cmd.cmdId, services, cmd.query ?? {});
      const first = sub.first();
      subscribe(session, sub, 'watch');
      session.deliver(first);
      return;
    }
    case 'ALARM_STATUS': {
      if (!cmd.originatorId) throw new CmdError(SubscriptionErrorCode.BAD_REQUEST, 'Originator id is empty!');
      services.directory.require(cmd.originatorId, principal, 'read');
      const sub = alarmStatusSub(session, cmd.cmdId, services, {
        originatorId: cmd.originatorId.id,
        typeList: cmd.typeList,
        severityList: cmd.severityList,
      });
      const first = sub.first();
      subscribe(session, sub, 'watch');
      session.deliver(first);
      return;
    }
    default:
      // the *_UNSUBSCRIBE commands
      session.setSub(cmd.cmdId, null);
  }
}

const valueOf = (v: unknown) =>
  v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/**
 * ENTITY_DATA as DefaultTbEntityDataSubscriptionService runs it: the query (when given) picks the
 * entities; history and aggregated commands answer once; latestCmd and tsCmd answer and subscribe. The
 * first answer is a `data` page, the next ones `update` lists.
 */
function entityData(session: CmdSession, cmd: EntityDataCmd & { type: 'ENTITY_DATA' }): void {
  const services = session.services;
  const existing = session.subs.get(cmd.cmdId);
  let eds: EntityDataSub;
  if (existing instanceof EntityDataSub) eds = existing;
  else {
    if (!cmd.query) throw new CmdError(SubscriptionErrorCode.BAD_REQUEST, 'Query is empty!');
    eds = new EntityDataSub(session, cmd.cmdId, services, session.hub);
  }
  const hasAnyCmd = !!(cmd.latestCmd || cmd.tsCmd || cmd.historyCmd || cmd.aggHistoryCmd || cmd.aggTsCmd);
  let page: { data: EntityData[]; totalPages: number; totalElements: number; hasNext: boolean } | null = null;
  if (cmd.query) {
    const latestValues = [...(cmd.query.latestValues ?? [])];
    for (const key of cmd.latestCmd?.keys ?? [])
      if (!latestValues.some((k) => k.type === key.type && k.key === key.key)) latestValues.push(key);
    const pageSize = Math.min(cmd.query.pageLink.pageSize, TB_WS_LIMITS.maxEntitiesPerDataSubscription);
    const query = { ...cmd.query, latestValues, pageLink: { ...cmd.query.pageLink, pageSize } };
    page = services.entityQuery.find(query, session.principal!);
    eds.dynamicQuery = cmd.query.pageLink.dynamic ? query : null;
  }
  if (hasAnyCmd || page) {
    session.hub.remove(eds);
    eds.clear();
  }
  if (page) eds.refs = new Map(page.data.map((e) => [e.entityId.id, e.entityId]));
  const refs = [...eds.refs.values()];
  const entities = new Map<string, EntityOut>(
    (page?.data ?? refs.map((entityId) => ({ entityId, latest: {}, timeseries: {} }))).map((e) => [
      e.entityId.id,
      { ...e },
    ]),
  );

  const ts = cmd.historyCmd ?? cmd.tsCmd;
  if (ts) {
    const startTs = ts.startTs;
    const endTs = cmd.historyCmd ? cmd.historyCmd.endTs : startTs + (cmd.tsCmd?.timeWindow ?? 0);
    const agg = (ts.agg ?? 'NONE') as Aggregation;
    for (const ref of refs) {
      const found = services.telemetry.timeseries(target(services, ref.entityType, ref.id), {
        keys: ts.keys,
        startTs,
        endTs,
        interval: ts.interval,
        limit: ts.limit || TB_WS_LIMITS.defaultLimit,
        agg,
        strict: false,
      });
      const timeseries: Record<string, TsValue[]> = {};
      for (const key of ts.keys)
        timeseries[key] = (found[key] ?? []).map((p) => ({ ts: p.ts, value: String(p.value) }));
      entities.get(ref.id)!.timeseries = timeseries;
    }
    if (cmd.tsCmd) {
      if (agg === 'NONE') eds.series = new Set(cmd.tsCmd.keys);
      else
        eds.aggregated = {
          kind: 'series',
          keys: cmd.tsCmd.keys.map((key) => ({ key, agg })),
          startTs,
          interval: cmd.tsCmd.interval ?? 0,
          limit: cmd.tsCmd.limit || TB_WS_LIMITS.defaultLimit,
        };
    }
  }
  const aggCmd = cmd.aggHistoryCmd ?? cmd.aggTsCmd;
  if (aggCmd) {
    const startTs = aggCmd.startTs;
    const endTs = cmd.aggHistoryCmd ? cmd.aggHistoryCmd.endTs : startTs + (cmd.aggTsCmd?.timeWindow ?? 0);
    for (const ref of refs) {
      const t = target(services, ref.entityType, ref.id);
      const aggLatest: Record<number, { current: TsValue; previous?: TsValue }> = aggregateKeys(
        services,
        t,
        aggCmd.keys.map(aggKey),
        startTs,
        endTs,
      );
      for (const k of aggCmd.keys as Static<typeof AggKey>[]) {
        if (k.previousStartTs != null && k.previousEndTs != null && k.previousEndTs >= k.previousStartTs)
          aggLatest[k.id]!.previous = aggregateKeys(
            services,
            t,
            [aggKey(k)],
            k.previousStartTs,
            k.previousEndTs,
          )[k.id]!.current;
      }
      entities.get(ref.id)!.aggLatest = aggLatest;
    }
    if (cmd.aggTsCmd)
      eds.aggregated = {
        kind: 'latest',
        keys: cmd.aggTsCmd.keys.map(aggKey),
        startTs,
        interval: 0,
        limit: 1,
      };
  }
  for (const key of cmd.latestCmd?.keys ?? []) {
    if (key.type === 'ENTITY_FIELD' || key.type === 'ALARM_FIELD') continue;
    let set = eds.latest.get(key.type);
    if (!set) eds.latest.set(key.type, (set = new Set()));
    set.add(key.key);
  }
  eds.sealed();
  const list = [...entities.values()];
  if (!session.subs.has(cmd.cmdId)) subscribe(session, eds, 'entities');
  else session.hub.follow(eds);
  if (eds.dynamicQuery) session.hub.watch(eds);
  const fields = page
    ? { data: { ...page, data: list }, update: null }
    : {
        data: null,
        update: list.map((e) => ({
          ...e,
          latest: cmd.latestCmd ? latestOf(services, eds.refs.get(e.entityId.id)!, cmd.latestCmd.keys) : null,
          timeseries: e.timeseries && Object.keys(e.timeseries).length ? e.timeseries : null,
        })),
      };
  session.deliver(
    cmdFrame(cmd.cmdId, 'ENTITY_DATA', {
      ...fields,
      allowedEntities: TB_WS_LIMITS.maxEntitiesPerDataSubscription,
    }),
  );
}

/** An entity's current values of latestCmd keys (a command without a query: its entities are known). */
function latestOf(services: Services, ref: { entityType: string; id: string }, keys: EntityKey[]) {
  const out: Record<string, Record<string, TsValue>> = {};
  const tsKeys = keys.filter((k) => k.type === 'TIME_SERIES').map((k) => k.key);
  if (tsKeys.length) {
    const num = services.directory.telemetryNum(ref.entityType, ref.id);
    out.TIME_SERIES = {};
    for (const [key, p] of services.ctx.telemetry.latest(num, tsKeys))
      out.TIME_SERIES[key] = { ts: p.ts, value: p.raw };
  }
  const attributeKeys = keys.filter((k) => k.type.endsWith('ATTRIBUTE'));
  if (attributeKeys.length) {
    const found = services.telemetry.attributes(
      ref.id,
      ATTRIBUTE_SCOPES,
      attributeKeys.map((k) => k.key),
    );
    for (const k of attributeKeys) {
      const scopes =
        k.type === 'ATTRIBUTE'
          ? ['SERVER_SCOPE', 'SHARED_SCOPE', 'CLIENT_SCOPE']
          : [`${k.type.split('_')[0]}_SCOPE`];
      for (const scope of scopes) {
        const a = found.find((f) => f.scope === scope && f.key === k.key);
        if (a) {
          (out[k.type] ??= {})[k.key] = { ts: a.lastUpdateTs, value: valueOf(a.value) };
          break;
        }
      }
    }
  }
  return out;
}

const aggKey = (k: Static<typeof AggKey>) => ({ id: k.id, key: k.key, agg: k.agg as Aggregation });
