import { describe, expect, it } from 'vitest';
import { EDGE_SIMULATOR_LIMITS } from '../../../shared/schemas/edge-simulator.ts';
import { CutOffCheck } from '../../../main/simulator/edge-delivery-check.ts';
import { ReceiveFaults } from '../../../main/simulator/edge-receive-faults.ts';

/** The cut-off check's rules on its own: the window, its bounds, and what counts as which finding. */
const seqs = (...n: number[]) => n.map((edgeSeq) => ({ edgeSeq }));

function reconnected(after: number, last: number): CutOffCheck {
  const check = new CutOffCheck(after, 1000, 2000);
  check.reconnected(2000, after);
  check.window(last);
  return check;
}

describe('cut-off check', () => {
  it('judges nothing before reconnect, from the last event before the edge stopped; an empty queue is a clean verdict of no events', () => {
    const check = new CutOffCheck(7, 1000, 2000);
    check.window(9);
    check.pulled(9, seqs(8, 9), 1500);
    expect(check.toJSON()).toEqual(
      expect.objectContaining({ phase: 'cutOff', toEdgeSeq: null, verdict: null }),
    );
    // Fixed when the edge stopped pulling, not by what it holds when it reconnects.
    check.disconnected(7);
    check.reconnected(2000, 99);
    check.window(7);
    check.pulled(null, [], 2100);
    expect(check.toJSON().verdict).toEqual(
      expect.objectContaining({ clean: true, fromEdgeSeq: 8, toEdgeSeq: 7, expected: 0, received: 0 }),
    );
    expect(check.toJSON()).toEqual(
      expect.objectContaining({ phase: 'done', reconnectedTime: 2000, doneTime: 2100 }),
    );
  });

  it('waits until the queue passes the window, then lists what never came', () => {
    const check = reconnected(10, 15);
    check.pulled(12, seqs(11, 12), 1);
    expect(check.done).toBe(false);
    // 14 lost; 16 and 17 are after the window and not judged.
    check.pulled(17, seqs(13, 15, 16, 17), 2);
    const v = check.toJSON().verdict!;
    expect(v.missing).toEqual({ count: 1, edgeSeqs: [14] });
    expect(v.received).toBe(4);
    expect(check.toJSON().receivedSinceReconnect).toBe(6);
  });

  it('counts an event received before the cut-off as duplicated, and a later one arriving early as out of order', () => {
    const check = reconnected(10, 14);
    check.pulled(14, seqs(9, 11, 13, 12, 14, 13), 1);
    const v = check.toJSON().verdict!;
    expect(v.duplicated).toEqual({ count: 2, edgeSeqs: [9, 13] });
    expect(v.outOfOrder).toEqual({ count: 1, edgeSeqs: [12] });
    expect(v.missing.count).toBe(0);
    expect(v.clean).toBe(false);
  });

  it('lists at most the first ids of each finding with the whole count, and bounds the window', () => {
    const big = EDGE_SIMULATOR_LIMITS.checkWindow + 5;
    const check = reconnected(0, big);
    check.pulled(null, seqs(1), 1);
    const v = check.toJSON().verdict!;
    expect(v.missing.count).toBe(EDGE_SIMULATOR_LIMITS.checkWindow - 1);
    expect(v.missing.edgeSeqs).toHaveLength(EDGE_SIMULATOR_LIMITS.listedIds);
    expect(v.missing.edgeSeqs.slice(0, 3)).toEqual([2, 3, 4]);
    expect(v.unchecked).toBe(5);
  });

  it('draws the same receiving-side faults from the same seed', () => {
    const draw = () => {
      const faults = new ReceiveFaults();
      faults.set({ drop: 0.3, duplicate: 0.3, reorder: 0.3, seed: 42 });
      const hits: string[] = [];
      const handed = faults.apply(seqs(...Array.from({ length: 30 }, (_, i) => i + 1)), (kind, n) =>
        hits.push(`${kind}:${n}`),
      );
      return { handed: handed.map((e) => e.edgeSeq), hits };
    };
    const first = draw();
    expect(first.hits.length).toBeGreaterThan(0);
    expect(draw()).toEqual(first);
  });
});
