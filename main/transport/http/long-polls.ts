/** Requests waiting for something of a device, each until it comes or its timeout passes. */
interface Waiter<T> {
  resolve(value: T | 'timeout'): void;
}

/**
 * Long polls of the device HTTP API, by device. The total is bounded: past `max` waiting requests a
 * new one is refused (the caller answers 429).
 */
export class LongPolls<T> {
  private readonly byDevice = new Map<string, Set<Waiter<T>>>();
  private count = 0;
  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  get size(): number {
    return this.count;
  }

  full(): boolean {
    return this.count >= this.max;
  }

  /** Waits for a value for the device; 'timeout' when none came in time or `cancel` fired first. */
  wait(deviceId: string, timeoutMs: number, onCancel: (cancel: () => void) => void): Promise<T | 'timeout'> {
    return new Promise((resolve) => {
      let set = this.byDevice.get(deviceId);
      if (!set) this.byDevice.set(deviceId, (set = new Set()));
      const waiters = set;
      const finish = (value: T | 'timeout') => {
        if (!waiters.delete(waiter)) return;
        this.count--;
        if (waiters.size === 0 && this.byDevice.get(deviceId) === waiters) this.byDevice.delete(deviceId);
        clearTimeout(timer);
        resolve(value);
      };
      const waiter: Waiter<T> = { resolve: finish };
      const timer = setTimeout(() => finish('timeout'), timeoutMs);
      waiters.add(waiter);
      this.count++;
      onCancel(() => finish('timeout'));
    });
  }

  /** Hands a value to the device's oldest waiting request; false if none waits. */
  deliverOne(deviceId: string, value: T): boolean {
    const first = this.byDevice.get(deviceId)?.values().next().value;
    if (!first) return false;
    first.resolve(value);
    return true;
  }

  /** Hands a value to every waiting request of the device. */
  deliverAll(deviceId: string, value: T): void {
    for (const w of [...(this.byDevice.get(deviceId) ?? [])]) w.resolve(value);
  }

  /** Ends every waiting request (as timed out), for shutdown. */
  endAll(): void {
    for (const set of [...this.byDevice.values()]) for (const w of [...set]) w.resolve('timeout');
  }
}
