import { parseCsvRows } from './csv.ts';

/**
 * Payload templates of the in-app MQTT client's snippets: text with generators, filled in at each
 * publish. `${random(20,30)}` a number in [20, 30] (whole when both bounds are), `${counter}` 1, 2, 3...,
 * `${timestamp}` epoch ms, `${uuid}` a random UUID, `${csv(column)}` the column of the CSV's next row
 * (the first row names the columns; rows cycle).
 */
export interface TemplateState {
  counter: number;
  csvRow: number;
}

export class TemplateError extends Error {}

const PLACEHOLDER = /\$\{\s*([a-z]+)\s*(?:\(([^)]*)\))?\s*\}/gi;
export const MAX_TEMPLATE_CHARS = 65_536;

export interface CsvTable {
  columns: string[];
  rows: string[][];
}

export function parseCsvTable(text: string): CsvTable {
  const [columns = [], ...rows] = parseCsvRows(text);
  return { columns: columns.map((c) => c.trim()), rows };
}

/** Checks a template without filling it in: the first problem, or null. */
export function templateProblem(template: string, csv?: CsvTable): string | null {
  try {
    expandTemplate(template, { counter: 0, csvRow: 0 }, csv);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Fills a template in; advances the counter and the CSV row once per call. */
export function expandTemplate(template: string, state: TemplateState, csv?: CsvTable): string {
  if (template.length > MAX_TEMPLATE_CHARS)
    throw new TemplateError(`A payload template is at most ${MAX_TEMPLATE_CHARS} characters`);
  let counterUsed = false;
  let rowUsed = false;
  const counter = state.counter + 1;
  const row = csv && csv.rows.length ? csv.rows[state.csvRow % csv.rows.length]! : undefined;
  const out = template.replace(PLACEHOLDER, (whole, name: string, args: string | undefined) => {
    switch (name.toLowerCase()) {
      case 'random': {
        const [a, b] = (args ?? '').split(',').map((x) => Number(x.trim()));
        if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || a > b)
          throw new TemplateError(`${whole}: random(min,max) needs two numbers, min <= max`);
        const v = a + Math.random() * (b - a);
        return Number.isInteger(a) && Number.isInteger(b)
          ? String(Math.round(v))
          : String(Math.round(v * 100) / 100);
      }
      case 'counter':
        counterUsed = true;
        return String(counter);
      case 'timestamp':
        return String(Date.now());
      case 'uuid':
        return crypto.randomUUID();
      case 'csv': {
        const column = (args ?? '').trim();
        if (!csv) throw new TemplateError(`${whole}: attach a CSV file to use csv(column)`);
        const i = csv.columns.indexOf(column);
        if (i < 0)
          throw new TemplateError(
            `${whole}: the CSV has no column '${column}' (it has ${csv.columns.join(', ')})`,
          );
        rowUsed = true;
        return row?.[i] ?? '';
      }
      default:
        throw new TemplateError(`${whole}: unknown generator (random, counter, timestamp, uuid, csv)`);
    }
  });
  if (counterUsed) state.counter = counter;
  if (rowUsed) state.csvRow++;
  return out;
}
