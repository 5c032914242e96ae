/**
 * Trendz's simple-API rate limiter: at most `slots` reports run at once
 * (SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE) and at most `queueCapacity` wait for a slot
 * (SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY); past that a report is refused with 429 at once.
 */
import { ErrorCode, PlatformError } from '../platform/errors.ts';

interface Waiter {
  start: () => void;
}

export class ReportLimiter {
  readonly slots: number;
  readonly queueCapacity: number;
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(slots: number, queueCapacity: number) {
    this.slots = Math.max(1, slots);
    this.queueCapacity = Math.max(0, queueCapacity);
  }

  stats(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Runs fn in a slot, after waiting in the queue if all slots are taken. 429 when the queue is full too.
   * An aborted signal takes a waiting report out of the queue (the client went away).
   */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.running >= this.slots) await this.wait(signal);
    else this.running++;
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private wait(signal?: AbortSignal): Promise<void> {
    if (this.waiting.length >= this.queueCapacity) {
      throw new PlatformError(
        429,
        ErrorCode.TOO_MANY_REQUESTS,
        `Too many reports: ${this.running} running and ${this.waiting.length} waiting, the most the service takes ` +
          `(SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE=${this.slots}, SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY=${this.queueCapacity}). ` +
          'Wait and repeat the request, or raise the limits in the service configuration.',
        { 'retry-after': '1' },
      );
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new PlatformError(499, ErrorCode.GENERAL, 'The client went away'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next)
      next.start(); // the slot passes on: running stays the same
    else this.running--;
  }
}
