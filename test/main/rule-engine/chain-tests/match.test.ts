import { describe, expect, it } from 'vitest';
import { differences, listedDifferences } from '../../../../main/rule-engine/chain-tests/match.ts';

describe('comparing what a test expects with what the chain did', () => {
  it('names the path of each difference: values, missing and extra keys, array lengths', () => {
    expect(differences({ a: 1, b: { c: 'x' }, d: [1, 2] }, { a: 2, b: { c: 'x', e: true }, d: [1] })).toEqual(
      ['a: expected 1, got 2', 'b.e: not expected, got true', 'd: expected 2 items, got 1'],
    );
    expect(differences({ 'odd key': null }, {})).toEqual(['["odd key"]: expected null, got nothing']);
    expect(differences(5, '5')).toEqual(['(value): expected 5, got "5"']);
  });

  it('leaves out ignored paths with everything under them, and allows numbers within a tolerance', () => {
    const expected = { ts: 1, readings: [{ raw: 'a', value: 10 }], t: 20 };
    const actual = { ts: 99, readings: [{ raw: 'b', value: 10.04 }], t: 20.3, extra: 1 };
    expect(
      differences(expected, actual, { ignore: ['ts', 'readings[0].raw', 'extra'], tolerance: 0.05 }),
    ).toEqual(['t: expected 20 ±0.05, got 20.3']);
    expect(
      differences(expected, actual, { ignore: ['ts', 'readings', 'extra'], tolerance: { t: 0.5 } }),
    ).toEqual([]);
    expect(differences({ v: 1 }, { v: Number.NaN }, { tolerance: 10 })).toHaveLength(1);
  });

  it('compares only the keys an expectation lists', () => {
    expect(listedDifferences({ a: '1' }, { a: '1', b: '2' })).toEqual([]);
    expect(listedDifferences({ a: '1', c: '3' }, { a: '2' }, {}, 'metadata')).toEqual([
      'metadata.a: expected "1", got "2"',
      'metadata.c: expected "3", got nothing',
    ]);
  });
});
