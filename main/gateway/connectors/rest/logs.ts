/** Fixed-size logs of the connector: newest entries kept, oldest dropped. */
export class RingLog<T extends { id: number }> {
  private readonly items: (T | undefined)[];
  private next = 0;
  private count = 0;
  private seq = 0;

  constructor(size: number) {
    this.items = new Array<T | undefined>(size);
  }

  /** Adds an entry (its id is assigned here) and returns it. */
  add(entry: Omit<T, 'id'>): T {
    const item = { ...entry, id: ++this.seq } as T;
    this.items[this.next] = item;
    this.next = (this.next + 1) % this.items.length;
    this.count = Math.min(this.count + 1, this.items.length);
    return item;
  }

  /** The last `limit` entries, newest first. */
  latest(limit = this.items.length): T[] {
    const out: T[] = [];
    const n = Math.min(limit, this.count);
    for (let i = 1; i <= n; i++) {
      const item = this.items[(this.next - i + this.items.length) % this.items.length];
      if (item) out.push(item);
    }
    return out;
  }

  clear(): void {
    this.items.fill(undefined);
    this.next = 0;
    this.count = 0;
  }
}
