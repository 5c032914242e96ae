import { CsvSyntaxError, parseCsvRows } from '../../shared/csv.ts';
import type { TelemetryValue } from '../../shared/schemas/simulation.ts';

/** A CSV column ready to replay: its values and, with a "ts" column, each row's offset from the first. */
export interface CsvSeries {
  column: string;
  values: (TelemetryValue | undefined)[];
  /** ms from the first row, ascending; null when the CSV has no "ts" column (one row per message) */
  offsets: number[] | null;
  /** length of one loop on the ts timeline: the last offset plus the average gap */
  spanMs: number;
}

export class CsvError extends Error {
  /** 'csv' or 'column': which field of the generator is wrong */
  readonly field: 'csv' | 'column';
  constructor(message: string, field: 'csv' | 'column' = 'csv') {
    super(message);
    this.field = field;
  }
}

/** RFC 4180 rows: comma-separated, fields optionally in double quotes ("" is a quote), blank lines skipped. */
export function parseCsv(text: string): string[][] {
  try {
    return parseCsvRows(text);
  } catch (err) {
    if (err instanceof CsvSyntaxError) throw new CsvError(err.message);
    throw err;
  }
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** A CSV cell as a telemetry value: numbers and booleans typed, empty cells missing. */
export function csvValue(cell: string): TelemetryValue | undefined {
  const s = cell.trim();
  if (s === '') return undefined;
  if (NUMBER.test(s)) return Number(s);
  if (s === 'true' || s === 'false') return s === 'true';
  return s;
}

function tsOf(cell: string, line: number): number {
  const s = cell.trim();
  const n = NUMBER.test(s) ? Number(s) : Date.parse(s);
  if (!Number.isFinite(n)) throw new CsvError(`row ${line}: ts '${s}' is neither a number (ms) nor a date`);
  return n;
}

/** The column to replay: the named one, else "value", else the first column that is not "ts". */
export function csvSeries(spec: { csv: string; column?: string }): CsvSeries {
  const [header, ...rows] = parseCsv(spec.csv);
  if (!header) throw new CsvError('is empty: give a header row and at least one data row');
  const names = header.map((h) => h.trim());
  const tsIndex = names.indexOf('ts');
  let index: number;
  if (spec.column !== undefined) {
    index = names.indexOf(spec.column);
    if (index < 0)
      throw new CsvError(
        `'${spec.column}' is not a column of the CSV (columns: ${names.join(', ')})`,
        'column',
      );
  } else {
    index = names.indexOf('value');
    if (index < 0) index = names.findIndex((n, i) => i !== tsIndex);
    if (index < 0) throw new CsvError(`has no column to replay besides ts (header: ${names.join(', ')})`);
  }
  if (rows.length === 0) throw new CsvError('has a header row but no data rows');
  const values = rows.map((r) => csvValue(r[index] ?? ''));
  if (tsIndex < 0 || index === tsIndex) return { column: names[index]!, values, offsets: null, spanMs: 0 };
  const stamps = rows.map((r, i) => tsOf(r[tsIndex] ?? '', i + 2));
  const offsets = stamps.map((t) => t - stamps[0]!);
  for (let i = 1; i < offsets.length; i++) {
    if (offsets[i]! < offsets[i - 1]!)
      throw new CsvError(`row ${i + 2}: ts goes back in time (rows must be in ascending ts order)`);
  }
  const last = offsets.at(-1)!;
  const spanMs = offsets.length > 1 && last > 0 ? last + last / (offsets.length - 1) : 1000;
  return { column: names[index]!, values, offsets, spanMs };
}
