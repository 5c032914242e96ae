import { monitorEventLoopDelay } from 'node:perf_hooks';

/** This thread's CPU time (µs), where Node can tell it (process.threadCpuUsage, Node 23.9 and later). */
const threadCpuUs = (() => {
  const read = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
  if (!read) return undefined;
  return () => {
    const { user, system } = read.call(process);
    return user + system;
  };
})();

/**
 * Runs fn and measures this process's longest event-loop stall meanwhile (ms): how long a PUBACK or an
 * HTTP answer would have waited had the work run beside a live platform. maxTurnCpuMs is the most CPU
 * this thread spent between two ticks of a 5 ms timer: the longest turn without the time other processes
 * took the core (the stall on a quiet machine), undefined where Node cannot tell a thread's CPU.
 */
export async function withStallMeter<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; maxStallMs: number; maxTurnCpuMs: number | undefined }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let maxTurnCpuUs = 0;
  let lastCpu = threadCpuUs?.() ?? 0;
  const cpuTimer = threadCpuUs
    ? setInterval(() => {
        const now = threadCpuUs();
        maxTurnCpuUs = Math.max(maxTurnCpuUs, now - lastCpu);
        lastCpu = now;
      }, 5)
    : undefined;
  const tick = () => new Promise((resolve) => setTimeout(resolve, 30));
  try {
    // the monitor measures from its first tick on
    await tick();
    const result = await fn();
    // a stall that ends with fn is recorded when the monitor's timer next runs
    await tick();
    return {
      result,
      maxStallMs: Math.round(histogram.max / 1e5) / 10,
      maxTurnCpuMs: threadCpuUs ? Math.round(maxTurnCpuUs / 100) / 10 : undefined,
    };
  } finally {
    histogram.disable();
    clearInterval(cpuTimer);
  }
}
