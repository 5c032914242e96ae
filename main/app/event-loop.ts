import {
  constants,
  monitorEventLoopDelay,
  PerformanceObserver,
  type PerformanceEntry,
} from 'node:perf_hooks';
import type { EventLoopDelay } from '../../shared/schemas/sandboard.ts';
import type { Lifecycle } from './lifecycle.ts';

/** sampling resolution: a stall shows at this granularity, and the timer costs nothing measurable */
const RESOLUTION_MS = 10;

/**
 * Watches the network thread's event-loop delay (a stall there delays every PUBACK and HTTP answer) from
 * the moment the platform answers; read() reports the period since start or the last reset.
 */
export function setupEventLoopMonitor(
  life: Lifecycle,
  storeBytes: () => number,
): (reset: boolean) => EventLoopDelay {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let since = performance.now();
  let gc = noPauses();
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gc = withPause(gc, entry);
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  life.onStop(() => {
    histogram.disable();
    gcObserver.disconnect();
  });
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  return (reset) => {
    const samples = histogram.count;
    const delay: EventLoopDelay = {
      p50Ms: samples ? ms(histogram.percentile(50)) : 0,
      p99Ms: samples ? ms(histogram.percentile(99)) : 0,
      maxMs: samples ? ms(histogram.max) : 0,
      samples,
      sinceMs: Math.round(performance.now() - since),
      gc: { ...gc, totalMs: ms(gc.totalMs * 1e6), maxMs: ms(gc.maxMs * 1e6) },
      memory: memoryNow(storeBytes()),
    };
    if (reset) {
      gc = noPauses();
      histogram.reset();
      since = performance.now();
    }
    return delay;
  };
}

type GcPauses = NonNullable<EventLoopDelay['gc']>;

const noPauses = (): GcPauses => ({ pauses: 0, totalMs: 0, maxMs: 0, maxKind: '' });

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak',
};

/** a 'gc' entry: its detail says which kind of collection it was */
type GcEntry = PerformanceEntry & { detail?: { kind?: number } };

function withPause(gc: GcPauses, entry: GcEntry): GcPauses {
  const longest = entry.duration > gc.maxMs;
  const kind = entry.detail?.kind ?? -1;
  return {
    pauses: gc.pauses + 1,
    totalMs: gc.totalMs + entry.duration,
    maxMs: longest ? entry.duration : gc.maxMs,
    maxKind: longest ? (GC_KINDS[kind] ?? String(kind)) : gc.maxKind,
  };
}

const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;

function memoryNow(storeBytes: number): NonNullable<EventLoopDelay['memory']> {
  const m = process.memoryUsage();
  return {
    rssMB: mb(m.rss),
    heapTotalMB: mb(m.heapTotal),
    heapUsedMB: mb(m.heapUsed),
    externalMB: mb(m.external),
    arrayBuffersMB: mb(m.arrayBuffers),
    storeMB: mb(storeBytes),
  };
}
