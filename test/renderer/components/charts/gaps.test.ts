import { describe, expect, it } from 'vitest';
import { splitAtGaps, usualInterval } from '../../../../renderer/src/components/charts/gaps.ts';

const every = (start: number, step: number, n: number) =>
  Array.from({ length: n }, (_, i) => start + i * step);

describe('gaps in a time series', () => {
  it('the usual interval is the median one, whatever a few outliers say', () => {
    expect(usualInterval([0, 10, 20, 30, 1000, 1010])).toBe(10);
    expect(usualInterval([5])).toBeUndefined();
  });

  it('a 7-minute silence in a series sent every 10 s splits it in two runs', () => {
    const before = every(0, 10_000, 12);
    const after = every(before.at(-1)! + 7 * 60_000, 10_000, 12);
    expect(splitAtGaps([...before, ...after])).toEqual([before, after]);
  });

  it('jitter and a few missed samples are no gap', () => {
    const ts = [0, 9_000, 21_000, 30_000, 40_000, 70_000, 80_000];
    expect(splitAtGaps(ts)).toEqual([ts]);
  });

  it('two points have no usual interval and stay one run; none is none', () => {
    expect(splitAtGaps([0, 3_600_000])).toEqual([[0, 3_600_000]]);
    expect(splitAtGaps([])).toEqual([]);
  });
});
