import { compileMathExpression } from '../math-expression.ts';

/** ThingsBoard's AggFunction. */
export const AGG_FUNCTIONS = ['AVG', 'MIN', 'MAX', 'SUM', 'COUNT', 'COUNT_UNIQUE'] as const;

/** ThingsBoard's AggMetric: a function over a key (or a formula of keys), optionally filtered. */
export interface AggMetric {
  function: string;
  filter?: string | null;
  input?: { type?: string; key?: string; function?: string } | null;
  defaultValue?: number | null;
}

/** One entity's (or one point's) argument values, numbers where they are numbers. */
export type Row = Record<string, number>;

export function aggregate(fn: string, values: number[]): number | null {
  if (fn === 'COUNT') return values.length;
  if (fn === 'COUNT_UNIQUE') return new Set(values).size;
  if (values.length === 0) return null;
  switch (fn) {
    case 'MIN':
      return Math.min(...values);
    case 'MAX':
      return Math.max(...values);
    case 'SUM':
      return values.reduce((a, b) => a + b, 0);
    case 'AVG':
      return values.reduce((a, b) => a + b, 0) / values.length;
    default:
      return null;
  }
}

/** Checks a metrics map: null or what is wrong (unknown function, a formula that does not parse). */
export function checkMetrics(metrics: Record<string, AggMetric>, argNames: string[]): string | null {
  for (const [name, m] of Object.entries(metrics)) {
    if (!m || !(AGG_FUNCTIONS as readonly string[]).includes(m.function))
      return `Metric '${name}' has unknown function '${String(m?.function)}'.`;
    try {
      if (m.input?.type === 'function') compileMathExpression(String(m.input.function ?? ''), argNames);
      else if (!argNames.includes(String(m.input?.key ?? '')))
        return `Metric references unknown argument: '${String(m.input?.key)}'.`;
      if (m.filter) compileMathExpression(m.filter, argNames);
    } catch (err) {
      return `Metric '${name}': ${(err as Error).message}`;
    }
  }
  return null;
}

/** The metrics over rows (related entities, or points of an interval): name -> value, when there is one. */
export function computeMetrics(
  metrics: Record<string, AggMetric>,
  rows: Row[],
  argNames: string[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, m] of Object.entries(metrics)) {
    const filter = m.filter ? compileMathExpression(m.filter, argNames) : null;
    const input =
      m.input?.type === 'function' ? compileMathExpression(String(m.input.function ?? ''), argNames) : null;
    const values: number[] = [];
    for (const row of rows) {
      if (filter && !filter.evaluate(row)) continue;
      const v = input ? input.evaluate(row) : row[String(m.input?.key)];
      if (v !== undefined && Number.isFinite(v)) values.push(v);
    }
    const r = aggregate(m.function, values);
    if (r !== null && Number.isFinite(r)) out[name] = r;
    else if (typeof m.defaultValue === 'number') out[name] = m.defaultValue;
  }
  return out;
}
