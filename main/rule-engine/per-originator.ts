/**
 * Runs the work of one originator one message at a time (ThingsBoard's SemaphoreWithTbMsgQueue and
 * SequentialByOriginator queue), so that read-modify-write nodes (calculate delta, math) see each other's
 * results and a sequential queue keeps each originator's order.
 */
export class PerOriginator {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T> | T): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    return this.track(key, before.then(work, work));
  }

  /**
   * Like run, but at once, and synchronously, when nothing of the key is pending and the work itself
   * is synchronous: a hot path pays for a promise only when it has to wait or write.
   */
  runInline<T>(key: string, work: () => Promise<T> | T): Promise<T> | T {
    const before = this.tails.get(key);
    if (before) return this.track(key, before.then(work, work));
    const result = work();
    return result instanceof Promise ? this.track(key, result) : result;
  }

  private track<T>(key: string, mine: Promise<T>): Promise<T> {
    const tail = mine.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return mine;
  }
}
