import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import type { EventLoopDelay } from '../../../shared/schemas/sandboard.ts';
import { startTestPlatform } from '../../helpers/platform.ts';

/** Holds this thread (the platform's network thread: it runs in-process) for `ms`, as a stall would. */
function stall(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe('the event-loop delay report', () => {
  it('reports the longest stall of the network thread since the last reset, to tenant administrators', async () => {
    const platform = await startTestPlatform();
    const token = await platform.login();
    const read = async (reset: boolean): Promise<EventLoopDelay> => {
      const res = await platform.http(`/api/sandboard/eventLoop${reset ? '?reset=true' : ''}`, { token });
      expect(res.status).toBe(200);
      return (await res.json()) as EventLoopDelay;
    };

    await read(true);
    // a snapshot during the period: its export runs on a worker thread, and the report covers the period
    await platform.db.snapshot();
    const afterSnapshot = await read(true);
    expect(afterSnapshot.samples).toBeGreaterThan(0);
    expect(Number.isFinite(afterSnapshot.maxMs)).toBe(true);

    // timers are late by the whole stall: the report must show it
    await new Promise((resolve) => setTimeout(resolve, 30));
    stall(200);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const stalled = await read(true);
    expect(stalled.maxMs).toBeGreaterThanOrEqual(180);
    expect(stalled.p99Ms).toBeLessThanOrEqual(stalled.maxMs);

    // a garbage collection on the network thread is a stall too: the report names the longest pause
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
    const collected = await vi.waitFor(async () => {
      const delay = await read(false);
      expect(delay.gc!.pauses).toBeGreaterThan(0);
      return delay;
    });
    expect(collected.gc!.maxKind).toBe('major');
    expect(collected.gc!.maxMs).toBeGreaterThan(0);
    expect(collected.gc!.totalMs).toBeGreaterThanOrEqual(collected.gc!.maxMs);
    await read(true);

    // the reset started a new period: the stall is no longer in it
    const next = await read(false);
    expect(next.sinceMs).toBeLessThan(stalled.sinceMs + 1_000);

    // what holds the memory: the V8 heap, what lies outside it, and the store's image within the RSS
    const memory = next.memory!;
    expect(memory.heapUsedMB).toBeLessThanOrEqual(memory.heapTotalMB);
    expect(memory.storeMB).toBeGreaterThan(0);
    expect(memory.heapTotalMB + memory.externalMB).toBeLessThan(memory.rssMB * 1.5);

    const customer = await platform.login('customer@thingsboard.org', 'customer');
    const denied = await platform.http('/api/sandboard/eventLoop', { token: customer });
    expect(denied.status).toBe(403);
  });
});
