/** What was started, stopped in reverse order: the composition root's one list of cleanups. */
export class Lifecycle {
  private readonly cleanups: (() => Promise<void> | void)[] = [];

  onStop(fn: () => Promise<void> | void): void {
    this.cleanups.push(fn);
  }

  async stop(): Promise<void> {
    while (this.cleanups.length > 0) await this.cleanups.pop()!();
  }
}
