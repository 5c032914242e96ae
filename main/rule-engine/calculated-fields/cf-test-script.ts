import { compileMathExpression } from '../math-expression.ts';
import { testScriptSandbox } from '../script/script-sandbox.ts';
import { CfScript } from './cf-script.ts';

export interface CfTestRequest {
  /** Sandboard: SIMPLE tests a formula; otherwise (ThingsBoard's) the expression is TBEL */
  type?: string;
  expression?: unknown;
  arguments?: unknown;
}

/**
 * POST /api/calculatedField/testScript (CalculatedFieldController.testScript): runs an expression once on
 * sample arguments ({name: {type: SINGLE_VALUE, ts, value} | {type: TS_ROLLING, timeWindow, values}}) and
 * answers {output, error}; never throws. Scripts run in the test sandbox, apart from the live fields.
 */
export async function testCalculatedField(req: CfTestRequest): Promise<{ output: string; error: string }> {
  const expression = typeof req.expression === 'string' ? req.expression : '';
  if (!expression.trim()) return { output: '', error: 'Expression must be specified' };
  const raw =
    req.arguments && typeof req.arguments === 'object' ? (req.arguments as Record<string, unknown>) : {};
  const entries: Record<string, unknown> = {};
  const values: Record<string, unknown> = {};
  let latestTs = 0;
  for (const [name, a] of Object.entries(raw)) {
    const arg = (a && typeof a === 'object' ? a : { value: a }) as Record<string, unknown>;
    if (arg.type === 'TS_ROLLING') {
      const rolling = {
        timeWindow: arg.timeWindow ?? {},
        values: Array.isArray(arg.values) ? arg.values : [],
      };
      entries[name] = rolling;
      values[name] = rolling;
    } else {
      const ts = typeof arg.ts === 'number' ? arg.ts : Date.now();
      latestTs = Math.max(latestTs, ts);
      entries[name] = { ts, value: arg.value };
      values[name] = arg.value;
    }
  }
  const names = Object.keys(raw).filter((n) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(n));
  try {
    if (req.type === 'SIMPLE') {
      const nums: Record<string, number> = {};
      for (const n of names) nums[n] = Number(values[n]);
      return { output: JSON.stringify(compileMathExpression(expression, names).evaluate(nums)), error: '' };
    }
    const script = new CfScript(testScriptSandbox(), expression, names);
    try {
      const out = await script.run({ args: entries, latestTs }, values);
      return { output: JSON.stringify(out ?? null), error: '' };
    } finally {
      script.release();
    }
  } catch (err) {
    return { output: '', error: (err as Error).message || String(err) };
  }
}
