import type { TappedPublish } from '../../../shared/mqtt-tap-events.ts';

/** What a record costs beyond its payload and topic: the object, its strings, ids (an estimate on the high side). */
const RECORD_OVERHEAD_BYTES = 320;

export function recordCost(r: TappedPublish): number {
  return RECORD_OVERHEAD_BYTES + r.payload.length + r.topic.length * 2 + r.clientId.length * 2;
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
