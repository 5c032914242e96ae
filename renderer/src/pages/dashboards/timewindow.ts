/**
 * A dashboard's or widget's timewindow (ThingsBoard's Timewindow: realtime or history, with
 * aggregation) as the tsCmd / historyCmd of an ENTITY_DATA command.
 */
import type { Timewindow } from './dashboard-model.ts';

export const AGGREGATIONS = ['NONE', 'AVG', 'MIN', 'MAX', 'SUM', 'COUNT'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

export interface TimeRange {
  realtime: boolean;
  startTs: number;
  endTs: number;
  /** ms */
  timeWindow: number;
  interval: number;
  agg: Aggregation;
  limit: number;
}

const MIN_INTERVAL = 1_000;
/** points per series a widget asks for at most */
const MAX_LIMIT = 5_000;
/** aggregation buckets per window (ThingsBoard's default is about this many) */
const BUCKETS = 100;

export const DEFAULT_TIMEWINDOW: Timewindow = {
  selectedTab: 0,
  realtime: { realtimeType: 0, timewindowMs: 60_000 },
  aggregation: { type: 'NONE', limit: 1_000 },
};

/** The window a timewindow covers now. */
export function timeRange(tw: Timewindow | undefined, now = Date.now()): TimeRange {
  const w = tw ?? DEFAULT_TIMEWINDOW;
  const agg = (AGGREGATIONS as readonly string[]).includes(w.aggregation?.type ?? '')
    ? (w.aggregation!.type as Aggregation)
    : 'AVG';
  const limit = Math.min(MAX_LIMIT, Math.max(1, Number(w.aggregation?.limit) || 1_000));
  const history = w.selectedTab === 1;
  let startTs: number;
  let endTs: number;
  let configured: number | undefined;
  if (history) {
    const h = w.history ?? {};
    configured = h.interval;
    if (h.historyType === 1 && h.fixedTimewindow) {
      startTs = h.fixedTimewindow.startTimeMs;
      endTs = h.fixedTimewindow.endTimeMs;
    } else {
      endTs = now;
      startTs = now - (h.timewindowMs ?? 86_400_000);
    }
  } else {
    configured = w.realtime?.interval;
    endTs = now;
    startTs = now - (w.realtime?.timewindowMs ?? 60_000);
  }
  const timeWindow = Math.max(1_000, endTs - startTs);
  const interval = Math.max(MIN_INTERVAL, configured ?? Math.floor(timeWindow / BUCKETS));
  return { realtime: !history, startTs, endTs, timeWindow, interval, agg, limit };
}

/** The tsCmd (realtime) or historyCmd (history) of these keys over the range. */
export function timeseriesCmd(keys: string[], r: TimeRange): { tsCmd?: unknown; historyCmd?: unknown } {
  if (r.realtime)
    return {
      tsCmd: {
        keys,
        startTs: r.startTs,
        timeWindow: r.timeWindow,
        interval: r.interval,
        limit: r.limit,
        agg: r.agg,
      },
    };
  return {
    historyCmd: {
      keys,
      startTs: r.startTs,
      endTs: r.endTs,
      interval: r.interval,
      limit: r.limit,
      agg: r.agg,
    },
  };
}

/** "last 5 minutes", "12:00 – 13:00", with the aggregation. */
export function describeTimewindow(tw: Timewindow | undefined): string {
  const r = timeRange(tw);
  const span = (ms: number) =>
    ms % 86_400_000 === 0
      ? `${ms / 86_400_000} d`
      : ms % 3_600_000 === 0
        ? `${ms / 3_600_000} h`
        : ms % 60_000 === 0
          ? `${ms / 60_000} min`
          : `${Math.round(ms / 1000)} s`;
  const what = r.realtime
    ? `Realtime, last ${span(r.timeWindow)}`
    : tw?.history?.historyType === 1
      ? `History ${new Date(r.startTs).toLocaleString()} – ${new Date(r.endTs).toLocaleString()}`
      : `History, last ${span(r.timeWindow)}`;
  return r.agg === 'NONE' ? what : `${what} · ${r.agg.toLowerCase()} per ${span(r.interval)}`;
}
