/**
 * SCRIPT fields that only return arithmetic of their arguments are computed without the sandbox: their
 * results must be the sandbox's, to the key order, and anything more must still go to the sandbox.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  arithmeticOfCfScript,
  CfScriptBatch,
} from '../../../../main/rule-engine/calculated-fields/cf-script.ts';
import { testScriptSandbox } from '../../../../main/rule-engine/script/script-sandbox.ts';

const ARGS = ['t', 'h'];

/** What the sandbox answers for the script on these argument values (as the engine calls it). */
async function inSandbox(source: string, values: Record<string, number>[]): Promise<unknown[]> {
  const batch = new CfScriptBatch(testScriptSandbox(), [{ source, argNames: ARGS }]);
  try {
    return await Promise.all(
      values.map((v) =>
        batch.run(0, { args: { t: { ts: 1, value: v.t }, h: { ts: 1, value: v.h } }, latestTs: 1 }, v),
      ),
    );
  } finally {
    batch.release();
  }
}

describe('arithmetic SCRIPT fields', () => {
  afterAll(() => testScriptSandbox().close());

  const values = [
    { t: 20, h: 40 },
    { t: 0, h: 0 },
    { t: -0, h: 3 },
    { t: -7, h: 3 },
    { t: 1e308, h: -1e308 },
    { t: 0.1, h: 0.2 },
  ];
  const scripts = [
    'return {"cf": t};',
    'return {"f": t * 1.8 + 32 + h / 3};',
    'return {"div": t / h, "nan": (t - t) / (h - h), "neg": -t * 0, "mod": t % h};',
    'return {b: -t * 2 + h % 4 / 2, "a": +(t + h) * (t - -h)};',
    'return {"big": t * 1e3 * 0x10 * 2L * 1.5f * 1.5d, "sum": t + h};',
    '// a comment\nreturn {\n  "x": (t)\n};',
    'return {"n": - -t, "p": + +h, "m": -(-t) - +h};',
  ];

  it.each(scripts)('gives the sandbox’s result for %s', async (source) => {
    const arithmetic = arithmeticOfCfScript(source, ARGS);
    expect(arithmetic).not.toBeNull();
    const here = values.map((v) => arithmetic!.evaluate((n) => v[n as 't' | 'h']));
    const there = await inSandbox(source, values);
    expect(here).toEqual(there);
    here.forEach((r, i) => {
      expect(Object.keys(r!)).toEqual(Object.keys(there[i] as object));
      for (const x of Object.values(r!)) expect(Object.is(x, -0)).toBe(false);
    });
  });

  it('writes division by zero, NaN and overflow as null, as the sandbox does', () => {
    const a = arithmeticOfCfScript(
      'return {"inf": t / 0, "nan": 0 / 0, "over": t * 1e308, "z": -t * 0};',
      ARGS,
    )!;
    expect(a.evaluate((n) => ({ t: 5, h: 1 })[n])).toEqual({ inf: null, nan: null, over: null, z: 0 });
  });

  it.each([
    ['ctx', 'return {"l": ctx.latestTs};'],
    ['a call', 'return {"a": Math.abs(t)};'],
    ['a comparison', 'return {"a": t > h ? 1 : 0};'],
    ['a string', 'return {"a": "x" + t};'],
    ['a decrement', 'return {"a": --t};'],
    ['a variable', 'var x = t * 2; return {"a": x};'],
    ['an unknown name', 'return {"a": y};'],
    ['__proto__', 'return {"__proto__": t};'],
    ['an index key (reordered)', 'return {"b": t, "1": h};'],
    ['a repeated key', 'return {"a": t, "a": h};'],
    ['two statements', 'return {"a": t}; return {"b": h};'],
    ['a nested object', 'return {"a": {"b": t}};'],
    ['an empty object', 'return {};'],
    ['a script that does not compile', 'return {"a": t +};'],
  ])('leaves %s to the sandbox', (_, source) => {
    expect(arithmeticOfCfScript(source, ARGS)).toBeNull();
  });

  it('leaves scripts of very many keys or operations to the sandbox (and its limits)', () => {
    const keys = (n: number) =>
      `return {${Array.from({ length: n }, (_, i) => `"k${i}": t * ${i}`).join(', ')}};`;
    expect(arithmeticOfCfScript(keys(64), ARGS)?.evaluate(() => 2)).toMatchObject({ k63: 126 });
    expect(arithmeticOfCfScript(keys(65), ARGS)).toBeNull();
    expect(arithmeticOfCfScript(`return {"s": ${Array(200).fill('t').join(' + ')}};`, ARGS)).not.toBeNull();
    expect(arithmeticOfCfScript(`return {"s": ${Array(600).fill('t').join(' + ')}};`, ARGS)).toBeNull();
  });

  it('leaves arguments that are not finite numbers, or missing, to the sandbox', () => {
    const a = arithmeticOfCfScript('return {"s": t + h};', ARGS)!;
    for (const t of ['2', true, null, undefined, Number.NaN, Number.POSITIVE_INFINITY, { v: 1 }])
      expect(a.evaluate((n) => (n === 't' ? t : 1))).toBeNull();
    expect(a.evaluate((n) => (n === 't' ? 2 : 1))).toEqual({ s: 3 });
  });
});
