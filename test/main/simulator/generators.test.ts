import { describe, expect, it } from 'vitest';
import { csvSeries, CsvError, parseCsv } from '../../../main/simulator/csv.ts';
import {
  createGenerator,
  dailyValue,
  deviceGeneratorFactory,
  generatorFactory,
  roundTo,
  sineValue,
  type ValueGenerator,
} from '../../../main/simulator/generators.ts';
import type { Generator } from '../../../shared/schemas/simulation.ts';

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

describe('devices that differ', () => {
  const series = (gen: ValueGenerator, count: number, stepMs = 1000) =>
    Array.from({ length: count }, (_, i) =>
      gen.next({ elapsedMs: i * stepMs, now: 1_700_000_000_000 + i * stepMs }),
    );
  const sine: Generator = { kind: 'sine', min: 20, max: 30, periodMs: 60_000, decimals: 2 };

  it('gives two devices of one spec different series, and the same seed the same series twice', () => {
    for (const spec of [
      sine,
      { kind: 'random', min: 0, max: 100 },
      { kind: 'randomWalk', start: 50, step: 2, min: 0, max: 100 },
      { kind: 'counter', start: 1000, step: 0.5 },
      { kind: 'daily', min: 10, max: 20 },
      { kind: 'csv', csv: `value\n${Array.from({ length: 100 }, (_, i) => i).join('\n')}` },
    ] satisfies Generator[]) {
      const make = deviceGeneratorFactory(spec, 42, 'temperature');
      const a = series(make('Floor 1', 1), 20);
      const b = series(make('Floor 2', 2), 20);
      expect(a, spec.kind).not.toEqual(b);
      expect(series(make('Floor 1', 1), 20), spec.kind).toEqual(a);
      expect(
        series(deviceGeneratorFactory(spec, 43, 'temperature')('Floor 1', 1), 20),
        spec.kind,
      ).not.toEqual(a);
    }
  });

  it('a sine device has its own phase and offset within the given bounds', () => {
    const make = deviceGeneratorFactory({ ...sine, deviceOffset: 1 }, 'seed', 't');
    const firsts = ['A', 'B', 'C', 'D', 'E'].map((d, i) => make(d, i + 1).next({ elapsedMs: 0 }) as number);
    expect(new Set(firsts).size).toBe(5);
    for (const v of firsts) {
      expect(v).toBeGreaterThanOrEqual(19);
      expect(v).toBeLessThanOrEqual(31);
    }
    // without variation every device is the same wave
    const same = deviceGeneratorFactory({ ...sine, deviceOffset: 0, devicePhase: false }, 'seed', 't');
    expect(series(same('A', 1), 10)).toEqual(series(same('B', 2), 10));
    expect(series(same('A', 1), 10)).toEqual(series(createGenerator(sine), 10));
  });

  it('noise stays within its bound; spikes come with their probability', () => {
    const flat: Generator = {
      kind: 'sine',
      min: 10,
      max: 10,
      periodMs: 1000,
      devicePhase: false,
      noise: 0.5,
    };
    const values = series(deviceGeneratorFactory(flat, 1, 'k')('D', 1), 500) as number[];
    expect(Math.min(...values)).toBeGreaterThanOrEqual(9.5);
    expect(Math.max(...values)).toBeLessThanOrEqual(10.5);
    expect(new Set(values).size).toBeGreaterThan(50);
    const spiky: Generator = { ...flat, noise: 0, spikes: { probability: 0.1, size: 100 } };
    const spikes = (series(deviceGeneratorFactory(spiky, 1, 'k')('D', 1), 2000) as number[]).filter(
      (v) => v > 100,
    );
    expect(spikes.length).toBeGreaterThan(120);
    expect(spikes.length).toBeLessThan(280);
  });

  it('the daily cycle follows local time: max at peakHour, min twelve hours away', () => {
    const at = (h: number) => new Date(2026, 5, 1, h, 0, 0).getTime();
    const spec = { kind: 'daily', min: 10, max: 20, peakHour: 14 } as const;
    expect(dailyValue(spec, at(14))).toBe(20);
    expect(dailyValue(spec, at(2))).toBe(10);
    expect(dailyValue(spec, at(8))).toBe(15);
    const gen = deviceGeneratorFactory({ ...spec, deviceOffset: 0, devicePhase: false }, 1, 'k')('D', 1);
    expect(gen.next({ elapsedMs: 0, now: at(14) })).toBe(20);
  });

  it('a CSV column per device: ${n} picks each device its own column', () => {
    const csv = 'floor1,floor2\n1,10\n2,20\n3,30';
    const make = deviceGeneratorFactory(
      { kind: 'csv', csv, column: 'floor${n}', devicePhase: false },
      1,
      'k',
    );
    expect(series(make('F1', 1), 4)).toEqual([1, 2, 3, 1]);
    expect(series(make('F2', 2), 4)).toEqual([10, 20, 30, 10]);
  });

  it('a counter device starts at its own point on the step grid and still counts by step', () => {
    const make = deviceGeneratorFactory({ kind: 'counter', start: 1000, step: 0.5 }, 7, 'energy');
    const a = series(make('M1', 1), 3) as number[];
    expect(a[1]! - a[0]!).toBe(0.5);
    expect((a[0]! - 1000) % 0.5).toBe(0);
    expect(a[0]).toBeGreaterThanOrEqual(1000);
    expect(a[0]).toBeLessThanOrEqual(1050);
  });
});
