import { describe, expect, it } from 'vitest';
import { ReportLimiter } from '../../../main/analytics/report-limiter.ts';
import { PlatformError } from '../../../main/platform/errors.ts';

/** A task that finishes when the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, task: async () => opened };
}

describe('ReportLimiter', () => {
  it('runs `slots` at once, queues `queueCapacity` in order, refuses the rest with 429', async () => {
    const limiter = new ReportLimiter(2, 1);
    const started: string[] = [];
    const gates = { a: gate(), b: gate(), c: gate() };
    const run = (tag: keyof typeof gates) =>
      limiter.run(async () => {
        started.push(tag);
        await gates[tag].task();
        return tag;
      });
    const a = run('a');
    const b = run('b');
    const c = run('c');
    await Promise.resolve();
    expect(started).toEqual(['a', 'b']);
    expect(limiter.stats()).toEqual({ running: 2, waiting: 1 });
    const refused = await limiter.run(async () => 'd').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(PlatformError);
    expect(refused).toMatchObject({ status: 429, errorCode: 33, headers: { 'retry-after': '1' } });
    gates.b.open();
    expect(await b).toBe('b');
    expect(started).toEqual(['a', 'b', 'c']);
    gates.a.open();
    gates.c.open();
    expect(await Promise.all([a, c])).toEqual(['a', 'c']);
    expect(limiter.stats()).toEqual({ running: 0, waiting: 0 });
  });

  it('frees the slot when a report fails, and drops a waiting report whose client went away', async () => {
    const limiter = new ReportLimiter(1, 2);
    const first = gate();
    const running = limiter.run(first.task);
    const controller = new AbortController();
    const waiting = limiter.run(async () => 'never', controller.signal).catch((err: unknown) => err);
    const failing = limiter.run(async () => {
      throw new Error('boom');
    });
    expect(limiter.stats()).toEqual({ running: 1, waiting: 2 });
    controller.abort();
    expect(await waiting).toMatchObject({ status: 499 });
    expect(limiter.stats()).toEqual({ running: 1, waiting: 1 });
    first.open();
    await running;
    await expect(failing).rejects.toThrow('boom');
    expect(limiter.stats()).toEqual({ running: 0, waiting: 0 });
    expect(await limiter.run(async () => 'next')).toBe('next');
  });
});
