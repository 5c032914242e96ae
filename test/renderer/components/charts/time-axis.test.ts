import { describe, expect, it } from 'vitest';
import { MIN_TIME_SPAN_MS, windowUntilNow } from '../../../../renderer/src/components/charts/time-axis.ts';

describe("the Overview rate chart's window", () => {
  const now = 1_800_000_000_000;
  it('ends now, never in the future, even for a first sample seconds old', () => {
    expect(windowUntilNow(now - 4_000, now)).toEqual([now - MIN_TIME_SPAN_MS, now]);
  });
  it('starts at the first sample once there is more than a minute of them', () => {
    expect(windowUntilNow(now - 5 * 60_000, now)).toEqual([now - 5 * 60_000, now]);
  });
});
