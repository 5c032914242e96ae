import type { QueryClient, QueryKey } from '@tanstack/react-query';
import type { WsServerMessage, WsServerMessageOf } from '../../../shared/ws-messages.ts';
import type { AttributeData, TimeseriesData } from '../api/client.ts';
import { RAW_HISTORY_MAX_RANGE_MS } from '../api/hooks.ts';
import { entityKeys, queryKeys, type HistoryWindow } from '../api/query-keys.ts';
import type { StatsHistory } from './stats-history.ts';

/** Aggregated charts are refetched at most this often while data flows. */
const AGGREGATED_REFETCH_MS = 5_000;
/** Telemetry is applied in batches: a busy device redraws a few times a second, not per message. */
const TELEMETRY_BATCH_MS = 200;
/** Device lists are refetched at most this often while devices are being created (a gateway, a simulator). */
const DEVICE_LIST_REFETCH_MS = 1_000;
/** Alarm lists and counts are refetched at most this often while alarms change (a rule raising many). */
const ALARM_REFETCH_MS = 500;

type TsPoint = { ts: number; value: unknown };

function insertSorted(points: TsPoint[], point: TsPoint): TsPoint[] {
  const out = points.slice();
  let i = out.length;
  while (i > 0 && out[i - 1]!.ts > point.ts) i--;
  if (i > 0 && out[i - 1]!.ts === point.ts) out[i - 1] = point;
  else out.splice(i, 0, point);
  return out;
}

/**
 * Applies what the WebSocket pushes to React Query's cache: pages read the same cache, so they update
 * without polling. Only queries that are already cached are touched.
 */
export class LiveCache {
  private readonly qc: QueryClient;
  private readonly history: StatsHistory;
  private readonly lastAggregatedRefetch = new Map<string, number>();
  private readonly pendingTelemetry = new Map<string, WsServerMessageOf<'telemetry'>['entries']>();
  private telemetryTimer: ReturnType<typeof setTimeout> | null = null;
  private deviceListTimer: ReturnType<typeof setTimeout> | null = null;
  private lastDeviceListRefetch = 0;
  private alarmTimer: ReturnType<typeof setTimeout> | null = null;
  private lastAlarmRefetch = 0;

  constructor(qc: QueryClient, history: StatsHistory) {
    this.qc = qc;
    this.history = history;
  }

  apply(message: WsServerMessage): void {
    switch (message.type) {
      case 'stats':
        this.qc.setQueryData(queryKeys.stats, message.stats);
        this.history.add(message.stats);
        return;
      case 'telemetry':
        this.queueTelemetry(message);
        return;
      case 'attributes':
        return this.attributes(message);
      case 'attributesDeleted':
        this.qc.setQueryData<AttributeData[]>(queryKeys.attributes(message.deviceId, message.scope), (old) =>
          old?.filter((a) => !message.keys.includes(a.key)),
        );
        return;
      case 'device':
        this.refetchDeviceLists();
        if (message.change !== 'created')
          void this.qc.invalidateQueries({ queryKey: queryKeys.device(message.deviceId) });
        return;
      case 'alarm':
        this.refetchAlarms();
        return;
      case 'subscribed':
        // whatever changed between the first fetch and the subscription would be missed: fetch again
        for (const key of [
          queryKeys.latestTelemetry(message.deviceId),
          queryKeys.timeseriesKeys(message.deviceId),
          queryKeys.attributesAll(message.deviceId),
          queryKeys.historyAll(message.deviceId),
        ])
          void this.qc.invalidateQueries({ queryKey: key });
        return;
      case 'resync':
        this.refetchEverything();
        return;
      default:
        return;
    }
  }

  /** After a gap (reconnect, dropped messages) whatever is shown may be behind: fetch it again. */
  refetchEverything(): void {
    void this.qc.invalidateQueries({
      predicate: (q) => !['currentUser', 'demoLogins', 'platformInfo'].includes(String(q.queryKey[0])),
    });
  }

  private refetchDeviceLists(): void {
    if (this.deviceListTimer) return;
    const wait = Math.max(100, this.lastDeviceListRefetch + DEVICE_LIST_REFETCH_MS - Date.now());
    this.deviceListTimer = setTimeout(() => {
      this.deviceListTimer = null;
      this.lastDeviceListRefetch = Date.now();
      void this.qc.invalidateQueries({ queryKey: queryKeys.devicesAll });
    }, wait);
  }

  private refetchAlarms(): void {
    if (this.alarmTimer) return;
    const wait = Math.max(50, this.lastAlarmRefetch + ALARM_REFETCH_MS - Date.now());
    this.alarmTimer = setTimeout(() => {
      this.alarmTimer = null;
      this.lastAlarmRefetch = Date.now();
      void this.qc.invalidateQueries({ queryKey: entityKeys.alarmsAll });
    }, wait);
  }

  private queueTelemetry(message: WsServerMessageOf<'telemetry'>): void {
    const queued = this.pendingTelemetry.get(message.deviceId);
    if (queued) queued.push(...message.entries);
    else this.pendingTelemetry.set(message.deviceId, [...message.entries]);
    this.telemetryTimer ??= setTimeout(() => {
      this.telemetryTimer = null;
      const batch = [...this.pendingTelemetry];
      this.pendingTelemetry.clear();
      for (const [deviceId, entries] of batch) this.telemetry(deviceId, entries);
    }, TELEMETRY_BATCH_MS);
  }

  private telemetry(deviceId: string, entries: WsServerMessageOf<'telemetry'>['entries']): void {
    this.qc.setQueryData<TimeseriesData>(queryKeys.latestTelemetry(deviceId), (old) => {
      if (!old) return old;
      const next = { ...old };
      for (const entry of entries) {
        for (const [key, value] of Object.entries(entry.values)) {
          const current = next[key]?.[0];
          if (!current || current.ts <= entry.ts) next[key] = [{ ts: entry.ts, value }];
        }
      }
      return next;
    });
    this.qc.setQueryData<string[]>(queryKeys.timeseriesKeys(deviceId), (old) => {
      if (!old) return old;
      const seen = new Set(old);
      const added = entries.flatMap((e) => Object.keys(e.values)).filter((k) => !seen.has(k) && seen.add(k));
      return added.length ? [...old, ...added] : old;
    });
    const now = Date.now();
    for (const [key, data] of this.qc.getQueriesData<TimeseriesData>({
      queryKey: queryKeys.historyAll(deviceId),
    })) {
      const window = key[2] as HistoryWindow | undefined;
      if (!window || !data) continue;
      if (window.rangeMs > RAW_HISTORY_MAX_RANGE_MS) {
        this.refetchAggregated(key, now);
        continue;
      }
      const startTs = now - window.rangeMs;
      const next: TimeseriesData = { ...data };
      let changed = false;
      for (const entry of entries) {
        if (entry.ts < startTs) continue;
        for (const k of window.keys) {
          if (!(k in entry.values)) continue;
          next[k] = insertSorted(next[k] ?? [], { ts: entry.ts, value: entry.values[k] });
          changed = true;
        }
      }
      if (!changed) continue;
      for (const k of Object.keys(next)) {
        const points = next[k]!;
        if (points.length && points[0]!.ts < startTs) next[k] = points.filter((p) => p.ts >= startTs);
      }
      this.qc.setQueryData(key, next);
    }
  }

  private refetchAggregated(key: QueryKey, now: number): void {
    const id = JSON.stringify(key);
    if (now - (this.lastAggregatedRefetch.get(id) ?? 0) < AGGREGATED_REFETCH_MS) return;
    this.lastAggregatedRefetch.set(id, now);
    void this.qc.invalidateQueries({ queryKey: key, exact: true });
  }

  private attributes(message: WsServerMessageOf<'attributes'>): void {
    this.qc.setQueryData<AttributeData[]>(queryKeys.attributes(message.deviceId, message.scope), (old) => {
      if (!old) return old;
      const byKey = new Map(old.map((a) => [a.key, a]));
      for (const [key, value] of Object.entries(message.values))
        byKey.set(key, { key, value, lastUpdateTs: message.ts });
      return [...byKey.values()].sort((a, b) => a.key.localeCompare(b.key));
    });
  }
}
