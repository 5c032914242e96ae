import { describe, expect, it } from 'vitest';
import { csvSeries, CsvError, parseCsv } from '../../../main/simulator/csv.ts';
import { createGenerator, generatorFactory, roundTo, sineValue } from '../../../main/simulator/generators.ts';

/** A repeatable "random": cycles through the given numbers in [0, 1). */
function sequence(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length]!;
}

const values = (gen: { next(t: { elapsedMs: number }): unknown }, ticks: number[]) =>
  ticks.map((elapsedMs) => gen.next({ elapsedMs }));

describe('generators', () => {
  it('constant gives the same value every time, of any JSON primitive type', () => {
    expect(values(createGenerator({ kind: 'constant', value: 21.5 }), [0, 10, 20])).toEqual([
      21.5, 21.5, 21.5,
    ]);
    expect(createGenerator({ kind: 'constant', value: 'on' }).next({ elapsedMs: 0 })).toBe('on');
    expect(createGenerator({ kind: 'constant', value: false }).next({ elapsedMs: 0 })).toBe(false);
  });

  it('random stays in [min, max] with the given decimals (2 by default)', () => {
    const gen = createGenerator({ kind: 'random', min: 10, max: 20 }, sequence(0, 0.5, 0.99999, 0.123456));
    expect(values(gen, [0, 0, 0, 0])).toEqual([10, 15, 20, 11.23]);
    const ints = createGenerator({ kind: 'random', min: 1, max: 6, decimals: 0 }, sequence(0.31));
    expect(ints.next({ elapsedMs: 0 })).toBe(3);
    const real = createGenerator({ kind: 'random', min: -5, max: 5, decimals: 3 });
    for (let i = 0; i < 500; i++) {
      const v = real.next({ elapsedMs: 0 }) as number;
      expect(v).toBeGreaterThanOrEqual(-5);
      expect(v).toBeLessThanOrEqual(5);
      expect(roundTo(v, 3)).toBe(v);
    }
  });

  it('sine is mid-range at 0, max at a quarter period, min at three quarters, and periodic', () => {
    const spec = { min: 10, max: 30, periodMs: 4000 };
    expect(sineValue(spec, 0)).toBe(20);
    expect(sineValue(spec, 1000)).toBe(30);
    expect(sineValue(spec, 2000)).toBe(20);
    expect(sineValue(spec, 3000)).toBe(10);
    expect(sineValue(spec, 4000)).toBe(20);
    expect(sineValue(spec, 500)).toBe(27.07); // 20 + 10 sin(π/4)
    expect(sineValue({ ...spec, phaseMs: 1000 }, 0)).toBe(30);
    expect(sineValue({ ...spec, decimals: 0 }, 500)).toBe(27);
    const gen = createGenerator({ kind: 'sine', ...spec });
    expect(values(gen, [0, 1000, 3000, 5000])).toEqual([20, 30, 10, 30]);
  });

  it('random walk starts at start, moves at most step per message and stays within [min, max]', () => {
    const gen = createGenerator(
      { kind: 'randomWalk', start: 50, step: 10, min: 40, max: 60, decimals: 1 },
      sequence(1, 1, 0.75, 0, 0, 0, 0),
    );
    // 50, +10 -> 60, +10 clamped at 60, +5 -> 60 (clamped), -10 -> 50, -10 -> 40, -10 clamped at 40
    expect(values(gen, [0, 0, 0, 0, 0, 0, 0])).toEqual([50, 60, 60, 60, 50, 40, 40]);
    const free = createGenerator({ kind: 'randomWalk', start: 0, step: 1 });
    let last = free.next({ elapsedMs: 0 }) as number;
    for (let i = 0; i < 200; i++) {
      const v = free.next({ elapsedMs: 0 }) as number;
      expect(Math.abs(v - last)).toBeLessThanOrEqual(1.0000001);
      last = v;
    }
  });

  it('counter counts from start by step (0 and 1 by default) without float drift', () => {
    expect(values(createGenerator({ kind: 'counter' }), [0, 0, 0])).toEqual([0, 1, 2]);
    expect(values(createGenerator({ kind: 'counter', start: 100, step: -5 }), [0, 0, 0])).toEqual([
      100, 95, 90,
    ]);
    const tenths = createGenerator({ kind: 'counter', start: 0, step: 0.1 });
    expect(values(tenths, [0, 0, 0, 0])).toEqual([0, 0.1, 0.2, 0.3]);
  });

  it('each device gets its own state from a factory', () => {
    const make = generatorFactory({ kind: 'counter', start: 1 });
    const a = make();
    const b = make();
    expect([a.next({ elapsedMs: 0 }), a.next({ elapsedMs: 0 }), b.next({ elapsedMs: 0 })]).toEqual([1, 2, 1]);
  });
});

describe('CSV replay', () => {
  it('replays a "value" column one row per message, typed, looping by default', () => {
    const gen = createGenerator({ kind: 'csv', csv: 'value\n1\n2.5\non\ntrue' });
    expect(values(gen, [0, 0, 0, 0, 0, 0])).toEqual([1, 2.5, 'on', true, 1, 2.5]);
  });

  it('stops giving values at the end when loop is false', () => {
    const gen = createGenerator({ kind: 'csv', csv: 'value\n7\n8', loop: false });
    expect(values(gen, [0, 0, 0, 0])).toEqual([7, 8, undefined, undefined]);
  });

  it('replays a named column, with quoted fields and CRLF lines', () => {
    const csv = 'label,temp,hum\r\n"a, b",20.5,40\r\n"say ""hi""",21,41\r\n';
    expect(parseCsv(csv)).toEqual([
      ['label', 'temp', 'hum'],
      ['a, b', '20.5', '40'],
      ['say "hi"', '21', '41'],
    ]);
    expect(values(createGenerator({ kind: 'csv', csv, column: 'hum' }), [0, 0, 0])).toEqual([40, 41, 40]);
    expect(values(createGenerator({ kind: 'csv', csv, column: 'label' }), [0, 0])).toEqual([
      'a, b',
      'say "hi"',
    ]);
    // without "value" and without a column: the first column that is not ts
    expect(csvSeries({ csv: 'ts,temp\n0,1' }).column).toBe('temp');
  });

  it('with a ts column, follows the rows on their own timeline (relative to the first row)', () => {
    const csv = 'ts,value\n1000,1\n2000,2\n4000,3';
    const series = csvSeries({ csv });
    expect(series.offsets).toEqual([0, 1000, 3000]);
    expect(series.spanMs).toBe(4500); // last offset + the average gap
    const gen = createGenerator({ kind: 'csv', csv });
    expect(values(gen, [0, 999, 1000, 2500, 3000, 4400, 4500, 5600])).toEqual([1, 1, 2, 2, 3, 3, 1, 2]);
    const once = createGenerator({ kind: 'csv', csv, loop: false });
    expect(values(once, [0, 3200, 4499, 4500])).toEqual([1, 3, 3, undefined]);
    // dates work as ts too
    const dated = csvSeries({ csv: 'ts,value\n2025-01-01T00:00:00Z,1\n2025-01-01T00:00:10Z,2' });
    expect(dated.offsets).toEqual([0, 10_000]);
  });

  it('reports what is wrong with a CSV, and which field', () => {
    const error = (spec: { csv: string; column?: string }) => {
      try {
        csvSeries(spec);
      } catch (err) {
        expect(err).toBeInstanceOf(CsvError);
        return `${(err as CsvError).field}: ${(err as Error).message}`;
      }
      return 'no error';
    };
    expect(error({ csv: 'value' })).toBe('csv: has a header row but no data rows');
    expect(error({ csv: 'a,b\n1,2', column: 'c' })).toBe(
      "column: 'c' is not a column of the CSV (columns: a, b)",
    );
    expect(error({ csv: 'ts\n1' })).toMatch(/^csv: has no column to replay/);
    expect(error({ csv: 'ts,value\n10,1\n5,2' })).toMatch(/^csv: row 3: ts goes back in time/);
    expect(error({ csv: 'ts,value\nnoon,1' })).toMatch(/^csv: row 2: ts 'noon' is neither/);
    expect(error({ csv: 'value\n"open' })).toBe('csv: a quoted field is not closed');
  });
});
