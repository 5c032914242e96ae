/**
 * Runs the work of one originator one message at a time (ThingsBoard's SemaphoreWithTbMsgQueue and
 * SequentialByOriginator queue), so that read-modify-write nodes (calculate delta, math) see each other's
 * results and a sequential queue keeps each originator's order.
 */
export class PerOriginator {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T> | T): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const mine = before.then(work, work);
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
