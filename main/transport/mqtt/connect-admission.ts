/**
 * Connection work admitted in slices of the event loop. A fleet connecting at once delivers thousands of
 * connections and CONNECT packets in one poll of the event loop; setting each one up there (the broker's
 * client, a credentials lookup, then the session, CONNACK and activity it starts) would make every HTTP
 * request that arrived with them wait for the whole batch. Here each piece of work is queued, and the
 * queue is worked off after the poll phase, at most `maxPerTurn` jobs and `sliceMs` at a time, so the next
 * poll (and the HTTP requests in it) comes between slices. The count bound matters as much as the time:
 * what a job starts (the CONNACK, the session) goes on in microtasks after its slice.
 *
 * `afterSlice` runs once after each slice's jobs: work gathered by them (the credentials of all the
 * CONNECTs of a slice) is done there in one go.
 */
export class ConnectAdmission {
  private readonly queue: (() => void)[] = [];
  private head = 0;
  private scheduled = false;
  private readonly sliceMs: number;
  private readonly maxQueued: number;
  private readonly maxPerTurn: number;
  private readonly afterSlice: () => void;

  constructor(
    options: { sliceMs?: number; maxQueued?: number; maxPerTurn?: number; afterSlice?: () => void } = {},
  ) {
    this.sliceMs = options.sliceMs ?? 5;
    this.maxQueued = options.maxQueued ?? 100_000;
    this.maxPerTurn = options.maxPerTurn ?? 64;
    this.afterSlice = options.afterSlice ?? noop;
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
    const last = Math.min(this.queue.length, this.head + this.maxPerTurn);
    do {
      const job = this.queue[this.head]!;
      this.queue[this.head++] = noop;
      run(job);
    } while (this.head < last && performance.now() < until);
    run(this.afterSlice);
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

function run(job: () => void): void {
  try {
    job();
  } catch (err) {
    process.stderr.write(`MQTT connection setup failed: ${(err as Error).message}\n`);
  }
}

const noop = (): void => undefined;
