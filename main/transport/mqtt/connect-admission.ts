/**
 * CONNECTs admitted in slices of the event loop. A fleet connecting at once delivers thousands of CONNECT
 * packets in one poll of the event loop; authenticating each one there (a credentials lookup, then the
 * session, CONNACK and activity it starts) would make every HTTP request that arrived with them wait for
 * the whole batch. Here each CONNECT is queued, and the queue is worked off after the poll phase for at
 * most `sliceMs` at a time, so the next poll (and the HTTP requests in it) comes between slices.
 */
export class ConnectAdmission {
  private readonly queue: (() => void)[] = [];
  private head = 0;
  private scheduled = false;
  private readonly sliceMs: number;
  private readonly maxQueued: number;

  constructor(options: { sliceMs?: number; maxQueued?: number } = {}) {
    this.sliceMs = options.sliceMs ?? 5;
    this.maxQueued = options.maxQueued ?? 100_000;
  }

  get pending(): number {
    return this.queue.length - this.head;
  }

  /** Runs `job` in a later slice; false (and nothing runs) when the queue is full. */
  admit(job: () => void): boolean {
    if (this.pending >= this.maxQueued) return false;
    this.queue.push(job);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
    return true;
  }

  private readonly drain = (): void => {
    const until = performance.now() + this.sliceMs;
    do {
      const job = this.queue[this.head]!;
      this.queue[this.head++] = noop;
      try {
        job();
      } catch (err) {
        process.stderr.write(`MQTT CONNECT failed: ${(err as Error).message}\n`);
      }
    } while (this.head < this.queue.length && performance.now() < until);
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
      this.scheduled = false;
    } else {
      if (this.head > 4_096) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      setImmediate(this.drain);
    }
  };
}

const noop = (): void => undefined;
