import type { TappedPublish } from '../../../shared/mqtt-tap-events.ts';

/**
 * What a record costs besides its payload bytes, topic, client id and message ids, measured on Node 24 for
 * gateway publishes of 1,031 bytes with 10 message ids each: ~1,100 bytes of V8 heap (the record, its
 * payload's ArrayBuffer and view, msgIds) and ~1,270 outside it (the payload's malloc'd copy). Counted as
 * 320 without the ids, a 16 MB ring held about 28 MB.
 */
const RECORD_OVERHEAD_BYTES = 560;
/** a flat rule engine message id (36 one-byte characters) and its slot in msgIds */
const MSG_ID_BYTES = 64;

export function recordCost(r: TappedPublish): number {
  return (
    RECORD_OVERHEAD_BYTES +
    r.payload.length +
    r.topic.length * 2 +
    r.clientId.length * 2 +
    (r.msgIds?.length ?? 0) * MSG_ID_BYTES
  );
}

/** The newest records within a byte budget, oldest dropped first. */
export class TrafficRing {
  private items: (TappedPublish | undefined)[] = [];
  private costs: number[] = [];
  private head = 0;
  private used = 0;
  evicted = 0;
  budget: number;

  constructor(budgetBytes: number) {
    this.budget = budgetBytes;
  }

  push(r: TappedPublish): void {
    const cost = recordCost(r);
    this.items.push(r);
    this.costs.push(cost);
    this.used += cost;
    if (this.used > this.budget) this.trim();
  }

  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.items.length - this.head;
  }

  setBudget(bytes: number): void {
    this.budget = bytes;
    this.trim();
  }

  clear(): void {
    this.evicted += this.size;
    this.items = [];
    this.costs = [];
    this.head = 0;
    this.used = 0;
  }

  /** Newest first, while visit returns true. */
  newestFirst(visit: (r: TappedPublish) => boolean): void {
    for (let i = this.items.length - 1; i >= this.head; i--) if (!visit(this.items[i]!)) return;
  }

  private trim(): void {
    while (this.used > this.budget && this.head < this.items.length) {
      this.used -= this.costs[this.head]!;
      this.items[this.head] = undefined;
      this.head++;
      this.evicted++;
    }
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.costs = this.costs.slice(this.head);
      this.head = 0;
    }
  }
}
