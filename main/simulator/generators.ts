import type { Generator, TelemetryValue } from '../../shared/schemas/simulation.ts';
import { csvSeries, type CsvSeries } from './csv.ts';

/** What a generator may look at when asked for its next value. */
export interface TickContext {
  /** ms since the simulation started */
  elapsedMs: number;
}

/** One key of one device: a value per message, or undefined when it has nothing (a CSV that ran out). */
export interface ValueGenerator {
  next(tick: TickContext): TelemetryValue | undefined;
}

/** A number in [0, 1), as Math.random; tests pass a seeded one. */
export type Random = () => number;

const DEFAULT_DECIMALS = 2;

export function roundTo(value: number, decimals = DEFAULT_DECIMALS): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

const clamp = (v: number, min?: number, max?: number) =>
  Math.min(max ?? Number.POSITIVE_INFINITY, Math.max(min ?? Number.NEGATIVE_INFINITY, v));

/** The sine wave at a point in time: mid-range at 0 (with no phase), max at a quarter period. */
export function sineValue(
  spec: { min: number; max: number; periodMs: number; phaseMs?: number; decimals?: number },
  elapsedMs: number,
): number {
  const angle = (2 * Math.PI * (elapsedMs + (spec.phaseMs ?? 0))) / spec.periodMs;
  return roundTo(spec.min + ((spec.max - spec.min) * (1 + Math.sin(angle))) / 2, spec.decimals);
}

/** Index of the last offset <= t (offsets ascending, offsets[0] = 0). */
function rowAt(offsets: number[], t: number): number {
  let lo = 0;
  let hi = offsets.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid]! <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** CSV replay: one row per message, or on the rows' own ts timeline; looping or running out. */
export function csvGenerator(series: CsvSeries, loop: boolean): ValueGenerator {
  let row = 0;
  return {
    next({ elapsedMs }) {
      const { values, offsets } = series;
      if (offsets === null) {
        const i = row++;
        if (i >= values.length && !loop) return undefined;
        return values[i % values.length];
      }
      let t = Math.max(0, elapsedMs);
      if (t >= series.spanMs) {
        if (!loop) return undefined;
        t %= series.spanMs;
      }
      return values[rowAt(offsets, t)];
    },
  };
}

/** A fresh generator for one device's key. Stateful kinds (random walk, counter, CSV rows) keep their own state. */
export function createGenerator(
  spec: Generator,
  random: Random = Math.random,
  csv?: CsvSeries,
): ValueGenerator {
  switch (spec.kind) {
    case 'constant':
      return { next: () => spec.value };
    case 'random':
      return { next: () => roundTo(spec.min + random() * (spec.max - spec.min), spec.decimals) };
    case 'sine':
      return { next: ({ elapsedMs }) => sineValue(spec, elapsedMs) };
    case 'randomWalk': {
      let value: number | undefined;
      return {
        next() {
          value =
            value === undefined
              ? clamp(spec.start, spec.min, spec.max)
              : clamp(value + (random() * 2 - 1) * spec.step, spec.min, spec.max);
          return roundTo(value, spec.decimals);
        },
      };
    }
    case 'counter': {
      const start = spec.start ?? 0;
      const step = spec.step ?? 1;
      let k = 0;
      return { next: () => roundTo(start + step * k++, 10) };
    }
    case 'csv':
      return csvGenerator(csv ?? csvSeries(spec), spec.loop ?? true);
  }
}

/** Makes generators for many devices from one spec, parsing a CSV once. */
export function generatorFactory(spec: Generator, random: Random = Math.random): () => ValueGenerator {
  const csv = spec.kind === 'csv' ? csvSeries(spec) : undefined;
  return () => createGenerator(spec, random, csv);
}
