import { describe, expect, it } from 'vitest';
import { Meter, RingLog } from '../../../main/simulator/counters.ts';

describe('simulation counters', () => {
  it('counts sent, acknowledged, failed by reason and in flight, into the parent too', () => {
    let now = 10_000;
    const total = new Meter(undefined, () => now);
    const gw = new Meter(total, () => now);
    gw.recordSent(1);
    gw.recordSent(1);
    gw.recordSent(0);
    gw.recordAck();
    gw.recordFailure('0x97', 1);
    gw.recordFailure('connection-lost', 0);
    gw.recordTelemetry(30);
    now += 500;
    for (const m of [gw, total]) {
      expect(m.snapshot()).toMatchObject({
        sent: 3,
        acknowledged: 1,
        failed: 2,
        failedByReason: { '0x97': 1, 'connection-lost': 1 },
        inFlight: 0,
        telemetryMessages: 1,
        datapoints: 30,
      });
    }
  });

  it('gives msgs/s over the last 5 whole seconds and a zero-filled per-second history', () => {
    let now = 100_000;
    const m = new Meter(undefined, () => now);
    for (let sec = 0; sec < 8; sec++) {
      for (let i = 0; i < (sec === 3 ? 0 : 10); i++) m.recordSent(0);
      now += 1000;
    }
    // seconds 3..7 hold 0 + 4 x 10 messages
    expect(m.messagesPerSecond()).toBe(8);
    const history = m.history();
    expect(history).toHaveLength(8);
    expect(history.map((s) => s.sent)).toEqual([10, 10, 10, 0, 10, 10, 10, 10]);
    expect(history[0]!.ts).toBe(100_000);
    now += 120_000;
    expect(m.history()).toHaveLength(60);
    expect(m.messagesPerSecond()).toBe(0);
  });

  it('keeps the last N log entries, newest first, with sequence numbers', () => {
    const log = new RingLog<{ v: number }>(3);
    for (let v = 1; v <= 5; v++) log.push({ v });
    expect(log.list()).toEqual([
      { v: 5, seq: 5 },
      { v: 4, seq: 4 },
      { v: 3, seq: 3 },
    ]);
  });
});

describe('a halted meter (a stopped run or gateway)', () => {
  it('reads zero msgs/s at once, and its chart ends at the stop with a zero, while totals keep counting', () => {
    let now = 200_000;
    const m = new Meter(undefined, () => now);
    for (let sec = 0; sec < 6; sec++) {
      for (let i = 0; i < 10; i++) m.recordSent(1);
      now += 1000;
    }
    expect(m.messagesPerSecond()).toBe(10);
    m.halt();
    const haltedAt = now;
    expect(m.messagesPerSecond()).toBe(0);
    // the stop itself publishes (device disconnects): counted, but no spike in the chart
    for (let i = 0; i < 50; i++) m.recordSent(1);
    now += 3000;
    expect(m.messagesPerSecond()).toBe(0);
    expect(m.snapshot()).toMatchObject({ sent: 110, messagesPerSecond: 0 });
    const history = m.history();
    expect(history.at(-1)).toEqual({ ts: haltedAt, sent: 0, acknowledged: 0, failed: 0 });
    expect(Math.max(...history.map((s) => s.sent))).toBe(10);
    m.reset();
    m.recordSent(0);
    expect(m.snapshot().sent).toBe(1);
  });
});
