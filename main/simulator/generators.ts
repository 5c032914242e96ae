import type { Generator, TelemetryValue } from '../../shared/schemas/simulation.ts';
import { csvSeries, type CsvSeries } from './csv.ts';

/** What a generator may look at when asked for its next value. */
export interface TickContext {
  /** ms since the simulation started */
  elapsedMs: number;
  /** wall-clock time of the tick (epoch ms; default now): the daily cycle follows local time */
  now?: number;
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

const HOUR_MS = 3_600_000;

/** The daily cycle at a wall-clock time: max at peakHour local time, min twelve hours away. */
export function dailyValue(
  spec: { min: number; max: number; peakHour?: number; decimals?: number },
  now: number,
  shiftMs = 0,
): number {
  const d = new Date(now + shiftMs);
  const hour = d.getHours() + d.getMinutes() / 60 + d.getSeconds() / 3600 + d.getMilliseconds() / HOUR_MS;
  const angle = (2 * Math.PI * (hour - (spec.peakHour ?? 15))) / 24;
  return roundTo(spec.min + ((spec.max - spec.min) * (1 + Math.cos(angle))) / 2, spec.decimals);
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
export function csvGenerator(series: CsvSeries, loop: boolean, startAt = 0): ValueGenerator {
  let row = loop ? Math.floor(startAt * series.values.length) : 0;
  const shiftMs = loop ? startAt * series.spanMs : 0;
  return {
    next({ elapsedMs }) {
      const { values, offsets } = series;
      if (offsets === null) {
        const i = row++;
        if (i >= values.length && !loop) return undefined;
        return values[i % values.length];
      }
      let t = Math.max(0, elapsedMs) + shiftMs;
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
    case 'daily':
      return { next: ({ now }) => dailyValue(spec, now ?? Date.now()) };
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

/** A 32-bit hash of text (FNV-1a), to seed a device's stream. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A seeded stream of numbers in [0, 1) (mulberry32): the same parts give the same stream. */
export function seededRandom(...parts: (string | number)[]): Random {
  let a = hash32(parts.join('\u0000'));
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The largest per-device offset when the spec gives none: 5% of the range, or a number of steps. */
function defaultOffset(spec: Generator): number {
  switch (spec.kind) {
    case 'random':
    case 'sine':
    case 'daily':
      return 0.05 * (spec.max - spec.min);
    case 'randomWalk':
      return spec.min !== undefined && spec.max !== undefined ? 0.05 * (spec.max - spec.min) : 10 * spec.step;
    case 'counter':
      return 100 * Math.abs(spec.step ?? 1);
    default:
      return 0;
  }
}

const decimalsOf = (spec: Generator): number =>
  'decimals' in spec && spec.decimals !== undefined ? spec.decimals : spec.kind === 'counter' ? 10 : 2;

/** One device's series of a key: where the device is */
export interface DeviceSeed {
  /** the scenario's seed */
  seed: string | number;
  /** the device's name (unique in a scenario) */
  device: string;
  /** its number in its gateway (1, 2, ...): ${n} of a CSV column */
  n: number;
  key: string;
}

/** Expands ${n} and ${device} of a CSV column name for one device. */
export const deviceColumn = (column: string | undefined, d: { device: string; n: number }) =>
  column?.replaceAll('${n}', String(d.n)).replaceAll('${device}', d.device);

/**
 * A device's own generator of a key: its stream is seeded by the scenario seed, the device and the key,
 * so devices differ and the same seed repeats the same series. The device draws its offset and phase
 * first, then every value's noise and spikes come from the same stream.
 */
export function deviceGenerator(
  spec: Generator,
  at: DeviceSeed,
  csvFor: (column: string | undefined) => CsvSeries | undefined = () => undefined,
): ValueGenerator {
  if (spec.kind === 'constant') return createGenerator(spec);
  const random = seededRandom(at.seed, at.device, at.key);
  const maxOffset = spec.deviceOffset ?? defaultOffset(spec);
  const phase = spec.devicePhase ?? true;
  const draw = random();
  const offset = spec.kind === 'counter' ? draw * maxOffset : (draw * 2 - 1) * maxOffset;
  const phaseDraw = random();
  let base: ValueGenerator;
  switch (spec.kind) {
    case 'sine':
      base = createGenerator(
        phase ? { ...spec, phaseMs: (spec.phaseMs ?? 0) + phaseDraw * spec.periodMs } : spec,
        random,
      );
      break;
    case 'daily': {
      const shift = phase ? (phaseDraw * 2 - 1) * HOUR_MS : 0;
      base = { next: ({ now }) => dailyValue(spec, now ?? Date.now(), shift) };
      break;
    }
    case 'counter': {
      const step = Math.abs(spec.step ?? 1);
      const whole = step > 0 ? Math.round(offset / step) * step : offset; // stays on the step's grid
      base = createGenerator({ ...spec, start: roundTo((spec.start ?? 0) + whole, 10) }, random);
      break;
    }
    case 'csv': {
      const series =
        csvFor(deviceColumn(spec.column, at)) ??
        csvSeries({ ...spec, column: deviceColumn(spec.column, at) });
      base = csvGenerator(series, spec.loop ?? true, phase ? phaseDraw : 0);
      break;
    }
    default:
      base = createGenerator(spec, random);
  }
  const shift = spec.kind === 'counter' ? 0 : offset;
  const noise = spec.noise ?? 0;
  const spikes = spec.spikes;
  if (shift === 0 && noise === 0 && !spikes?.probability) return base;
  const decimals = decimalsOf(spec);
  return {
    next(tick) {
      const v = base.next(tick);
      if (typeof v !== 'number') return v;
      let out = v + shift;
      if (noise) out += (random() * 2 - 1) * noise;
      if (spikes?.probability && random() < spikes.probability) out += spikes.size;
      return roundTo(out, decimals);
    },
  };
}

/** Makes each device's generator of one key, parsing each CSV column once. */
export function deviceGeneratorFactory(
  spec: Generator,
  seed: string | number,
  key: string,
): (device: string, n: number) => ValueGenerator {
  const parsed = new Map<string, CsvSeries>();
  const csvFor = (column: string | undefined) => {
    if (spec.kind !== 'csv') return undefined;
    const name = column ?? '';
    let series = parsed.get(name);
    if (!series) parsed.set(name, (series = csvSeries({ csv: spec.csv, ...(column ? { column } : {}) })));
    return series;
  };
  return (device, n) => deviceGenerator(spec, { seed, device, n, key }, csvFor);
}
