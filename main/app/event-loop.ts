import { monitorEventLoopDelay } from 'node:perf_hooks';
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
  life.onStop(() => {
    histogram.disable();
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
      memory: memoryNow(storeBytes()),
    };
    if (reset) {
      histogram.reset();
      since = performance.now();
    }
    return delay;
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
