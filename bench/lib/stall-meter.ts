import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Runs fn and measures this process's longest event-loop stall meanwhile (ms): how long a PUBACK or an
 * HTTP answer would have waited had the work run beside a live platform.
 */
export async function withStallMeter<T>(fn: () => Promise<T>): Promise<{ result: T; maxStallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const tick = () => new Promise((resolve) => setTimeout(resolve, 30));
  try {
    // the monitor measures from its first tick on
    await tick();
    const result = await fn();
    // a stall that ends with fn is recorded when the monitor's timer next runs
    await tick();
    return { result, maxStallMs: Math.round(histogram.max / 1e5) / 10 };
  } finally {
    histogram.disable();
  }
}
