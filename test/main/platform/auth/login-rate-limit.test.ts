import { describe, expect, it } from 'vitest';
import { LoginRateLimiter } from '../../../../main/platform/auth/login-rate-limit.ts';

describe('LoginRateLimiter', () => {
  it('blocks a client after max failures until the window has passed, without touching others', () => {
    let now = 0;
    const limiter = new LoginRateLimiter(3, 60_000, () => now);
    for (let i = 0; i < 3; i++) {
      expect(limiter.retryAfterMs('a')).toBe(0);
      limiter.recordFailure('a');
    }
    now = 10_000;
    expect(limiter.retryAfterMs('a')).toBe(50_000);
    expect(limiter.retryAfterMs('b')).toBe(0);
    now = 60_000;
    expect(limiter.retryAfterMs('a')).toBe(0);
  });

  it('forgets failures after a successful login', () => {
    const limiter = new LoginRateLimiter(2, 60_000, () => 0);
    limiter.recordFailure('a');
    limiter.recordSuccess('a');
    limiter.recordFailure('a');
    expect(limiter.retryAfterMs('a')).toBe(0);
  });
});
