import {
  EDGE_SIMULATOR_LIMITS,
  type EdgeCutOff,
  type EdgeDeliveryVerdict,
  type EdgeSeqList,
} from '../../shared/schemas/edge-simulator.ts';

/** Event numbers with a count: the first EDGE_SIMULATOR_LIMITS.listedIds kept (sorted when read). */
export class SeqList {
  private count = 0;
  private readonly ids: number[] = [];

  add(edgeSeq: number): void {
    this.count++;
    if (this.ids.length < EDGE_SIMULATOR_LIMITS.listedIds) this.ids.push(edgeSeq);
  }

  get size(): number {
    return this.count;
  }

  toJSON(): EdgeSeqList {
    return { count: this.count, edgeSeqs: [...this.ids].sort((a, b) => a - b) };
  }
}

/**
 * One cut-off of a simulated edge and the check after it: every event numbered after the last one received
 * before the cut-off, up to the last one queued when the edge reconnects, must arrive exactly once and in
 * order. Fed with the events the edge's receiving side hands on (after any injected fault).
 */
export class CutOffCheck {
  readonly startedTime: number;
  readonly untilTime: number;
  private afterEdgeSeq: number;
  /** afterEdgeSeq is final: the edge stopped pulling with it */
  private fixed = false;
  private phase: EdgeCutOff['phase'] = 'cutOff';
  private reconnectedTime: number | null = null;
  private doneTime: number | null = null;
  private toEdgeSeq: number | null = null;
  /** arrivals per event number, from afterEdgeSeq + 1 (255 at most) */
  private arrivals: Uint8Array | null = null;
  private maxSeen: number;
  private received = 0;
  private receivedSinceReconnect = 0;
  private readonly duplicated = new SeqList();
  private readonly outOfOrder = new SeqList();
  private readonly injected = { dropped: new SeqList(), duplicated: new SeqList(), reordered: new SeqList() };
  private verdict: EdgeDeliveryVerdict | null = null;

  constructor(afterEdgeSeq: number, startedTime: number, untilTime: number) {
    this.afterEdgeSeq = afterEdgeSeq;
    this.maxSeen = afterEdgeSeq;
    this.startedTime = startedTime;
    this.untilTime = untilTime;
  }

  get done(): boolean {
    return this.phase === 'done';
  }

  /** The edge stopped pulling, having received every event up to `afterEdgeSeq`. */
  disconnected(afterEdgeSeq: number): void {
    if (this.phase !== 'cutOff' || this.fixed) return;
    this.fix(afterEdgeSeq);
  }

  /**
   * The edge is connected again: what it pulls from now on is judged (if it was reconnected before it
   * stopped pulling, from what it had received by now).
   */
  reconnected(now: number, afterEdgeSeq: number): void {
    if (this.phase !== 'cutOff') return;
    if (!this.fixed) this.fix(afterEdgeSeq);
    this.phase = 'draining';
    this.reconnectedTime = now;
  }

  /** A pull answered: the first one after reconnect fixes the window's end at the edge's last event number. */
  window(lastEdgeSeq: number): void {
    if (this.phase !== 'draining' || this.toEdgeSeq !== null) return;
    this.toEdgeSeq = Math.max(lastEdgeSeq, this.afterEdgeSeq);
    this.arrivals = new Uint8Array(
      Math.min(this.toEdgeSeq - this.afterEdgeSeq, EDGE_SIMULATOR_LIMITS.checkWindow),
    );
  }

  /**
   * What the receiving side handed on from one pull; `pulledUpTo` is the highest event number pulled
   * (before faults), null for an empty pull. The check ends once the queue went past the window, or a pull
   * found nothing.
   */
  pulled(pulledUpTo: number | null, handed: readonly { edgeSeq: number }[], now: number): void {
    if (this.phase !== 'draining' || this.toEdgeSeq === null) return;
    for (const e of handed) this.arrive(e.edgeSeq);
    if (pulledUpTo === null || pulledUpTo >= this.toEdgeSeq) this.finish(now);
  }

  /** A fault the receiving side injected on an event (counted only if the event is judged). */
  injectedFault(kind: keyof CutOffCheck['injected'], edgeSeq: number): void {
    if (this.phase !== 'draining' || !this.judged(edgeSeq)) return;
    this.injected[kind].add(edgeSeq);
  }

  toJSON(): EdgeCutOff {
    return {
      phase: this.phase,
      startedTime: this.startedTime,
      untilTime: this.untilTime,
      reconnectedTime: this.reconnectedTime,
      doneTime: this.doneTime,
      afterEdgeSeq: this.afterEdgeSeq,
      toEdgeSeq: this.toEdgeSeq,
      receivedSinceReconnect: this.receivedSinceReconnect,
      injected: {
        dropped: this.injected.dropped.toJSON(),
        duplicated: this.injected.duplicated.toJSON(),
        reordered: this.injected.reordered.toJSON(),
      },
      verdict: this.verdict,
    };
  }

  private fix(afterEdgeSeq: number): void {
    this.afterEdgeSeq = afterEdgeSeq;
    this.maxSeen = afterEdgeSeq;
    this.fixed = true;
  }

  private judged(edgeSeq: number): boolean {
    return (
      this.arrivals !== null &&
      edgeSeq > this.afterEdgeSeq &&
      edgeSeq - this.afterEdgeSeq <= this.arrivals.length
    );
  }

  private arrive(edgeSeq: number): void {
    this.receivedSinceReconnect++;
    const arrivals = this.arrivals!;
    if (edgeSeq <= this.afterEdgeSeq) {
      // Received before the cut-off already.
      this.duplicated.add(edgeSeq);
      return;
    }
    if (this.judged(edgeSeq)) {
      this.received++;
      const i = edgeSeq - this.afterEdgeSeq - 1;
      const seen = arrivals[i]!;
      if (seen < 255) arrivals[i] = seen + 1;
      if (seen === 1) this.duplicated.add(edgeSeq);
      else if (seen === 0 && edgeSeq < this.maxSeen) this.outOfOrder.add(edgeSeq);
    }
    if (edgeSeq > this.maxSeen) this.maxSeen = edgeSeq;
  }

  private finish(now: number): void {
    const arrivals = this.arrivals!;
    const missing = new SeqList();
    for (let i = 0; i < arrivals.length; i++) if (arrivals[i] === 0) missing.add(this.afterEdgeSeq + 1 + i);
    const to = this.toEdgeSeq!;
    this.verdict = {
      clean: missing.size === 0 && this.duplicated.size === 0 && this.outOfOrder.size === 0,
      fromEdgeSeq: this.afterEdgeSeq + 1,
      toEdgeSeq: to,
      expected: to - this.afterEdgeSeq,
      received: this.received,
      missing: missing.toJSON(),
      duplicated: this.duplicated.toJSON(),
      outOfOrder: this.outOfOrder.toJSON(),
      unchecked: to - this.afterEdgeSeq - arrivals.length,
    };
    this.arrivals = null;
    this.phase = 'done';
    this.doneTime = now;
  }
}
