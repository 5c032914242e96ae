/** Clients (addresses, keys) remembered at once; past it the oldest is forgotten. */
const MAX_CLIENTS = 10_000;

/** Counts failed logins per client address in a fixed window; past the limit, logins are refused. */
export class LoginRateLimiter {
  private readonly failures = new Map<string, { count: number; windowStart: number }>();
  private readonly max: number;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(max: number, windowMs: number, now: () => number = Date.now) {
    this.max = max;
    this.windowMs = windowMs;
    this.now = now;
  }

  /** Milliseconds until the client may try again, or 0 when it may try now. */
  retryAfterMs(client: string): number {
    const entry = this.failures.get(client);
    if (!entry) return 0;
    const elapsed = this.now() - entry.windowStart;
    if (elapsed >= this.windowMs) {
      this.failures.delete(client);
      return 0;
    }
    return entry.count >= this.max ? this.windowMs - elapsed : 0;
  }

  recordFailure(client: string): void {
    const now = this.now();
    const entry = this.failures.get(client);
    if (entry && now - entry.windowStart < this.windowMs) {
      entry.count++;
      return;
    }
    this.failures.delete(client);
    if (this.failures.size >= MAX_CLIENTS) this.failures.delete(this.failures.keys().next().value!);
    this.failures.set(client, { count: 1, windowStart: now });
  }

  recordSuccess(client: string): void {
    this.failures.delete(client);
  }
}
