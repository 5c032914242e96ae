import { describe, expect, it } from 'vitest';
import { Meter } from '../../../main/simulator/counters.ts';
import { shardGateways } from '../../../main/simulator/simulation-run.ts';

const gw = (devices: number) => ({ plan: { devices: Array.from({ length: devices }, (_, i) => i) } });

describe("a run's worker threads", () => {
  it('share the gateways so that each thread drives about as many devices, each keeping the scenario order', () => {
    const groups = shardGateways([gw(1000), gw(10), gw(500), gw(500), gw(10)], 2);
    expect(groups).toEqual([
      [0, 1],
      [2, 3, 4],
    ]);
    // never more threads than gateways
    expect(shardGateways([gw(5), gw(5)], 4)).toEqual([[0], [1]]);
  });

  it("add up on the run's meter exactly what each thread counted, nothing twice", () => {
    let now = 50_000;
    const worker = new Meter(undefined, () => now);
    const run = new Meter(undefined, () => now);
    worker.delta();
    worker.recordSent(1);
    worker.recordSent(1);
    worker.recordAck(12);
    worker.recordFailure('0x97', 1);
    worker.recordTelemetry(20);
    run.absorb(worker.delta());
    worker.recordSent(0);
    worker.recordFailure('0x97', 0);
    worker.recordTelemetry(5);
    run.absorb(worker.delta());
    run.absorb(worker.delta()); // nothing new
    now += 1000;
    expect(run.snapshot()).toMatchObject({
      sent: 3,
      acknowledged: 1,
      failed: 2,
      failedByReason: { '0x97': 2 },
      inFlight: 0,
      telemetryMessages: 2,
      datapoints: 25,
    });
    expect(run.latency.percentiles()).toMatchObject({ count: 1, p50: 12 });
    expect(run.history().at(-1)).toMatchObject({ sent: 3, acknowledged: 1, failed: 2 });
  });
});
