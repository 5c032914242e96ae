/**
 * Work queued as it arrives and done in chunks, each after the poll phase of the event loop (so the
 * sockets' CONNECTs and HTTP requests that arrived meanwhile come first) and each gathered for at most
 * `maxChunk` items (the worker may put back what its time slice had no room for). One chunk runs at a
 * time: the next is gathered while the last one's promise (its store write) settles.
 */
export class ChunkedQueue<T> {
  private items: T[] = [];
  private scheduled = false;
  private running = false;
  private readonly run: (chunk: T[]) => Promise<void>;
  private readonly maxChunk: number;

  constructor(run: (chunk: T[]) => Promise<void>, options: { maxChunk?: number } = {}) {
    this.run = run;
    this.maxChunk = options.maxChunk ?? 200;
  }

  get pending(): number {
    return this.items.length;
  }

  add(item: T): void {
    this.items.push(item);
    this.schedule();
  }

  /** Items a chunk had no time for: first in the next chunk. */
  putBack(items: T[]): void {
    this.items.unshift(...items);
  }

  private schedule(): void {
    if (this.scheduled || this.running || this.items.length === 0) return;
    this.scheduled = true;
    setImmediate(this.next);
  }

  private readonly next = (): void => {
    this.scheduled = false;
    const chunk = this.items.splice(0, this.maxChunk);
    this.running = true;
    this.run(chunk)
      .catch((err: unknown) => process.stderr.write(`chunked work failed: ${(err as Error).message}\n`))
      .finally(() => {
        this.running = false;
        this.schedule();
      });
  };
}
