/** The pieces of calculated fields a user meets directly: zones, aggregation metrics, the test run. */
import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../../../main/rule-engine/calculated-fields/cf-metrics.ts';
import { testCalculatedField } from '../../../../main/rule-engine/calculated-fields/cf-test-script.ts';
import { insideZone, parseZone } from '../../../../main/rule-engine/calculated-fields/geofencing.ts';

describe('geofencing zones', () => {
  // ThingsBoard's GeofencingCalculatedFieldStateTest zone and point
  const polygon = parseZone(
    '[[50.472000, 30.504000], [50.472000, 30.506000], [50.474000, 30.506000], [50.474000, 30.504000]]',
  )!;

  it('tells a point inside a polygon from one outside', () => {
    expect(insideZone(polygon, 50.473, 30.505)).toBe(true);
    expect(insideZone(polygon, 50.476, 30.505)).toBe(false);
  });

  it('measures circles in their radius unit', () => {
    const circle = parseZone({ latitude: 50.45, longitude: 30.52, radius: 1, radiusUnit: 'KILOMETER' })!;
    expect(insideZone(circle, 50.455, 30.52)).toBe(true); // ~556 m north
    expect(insideZone(circle, 50.46, 30.52)).toBe(false); // ~1.1 km north
  });

  it('is no zone when the attribute is no perimeter', () => {
    expect(parseZone('not json')).toBeNull();
    expect(parseZone([[1, 2]])).toBeNull();
    expect(parseZone({ latitude: 'x' })).toBeNull();
  });
});

describe('aggregation metrics', () => {
  it('computes each function over the rows, formulas included, defaults when nothing is there', () => {
    const rows: Record<string, number>[] = [{ t: 20, h: 40 }, { t: 24, h: 60 }, { t: 24 }];
    expect(
      computeMetrics(
        {
          avg: { function: 'AVG', input: { type: 'key', key: 't' } },
          unique: { function: 'COUNT_UNIQUE', input: { type: 'key', key: 't' } },
          sumF: { function: 'SUM', input: { type: 'function', function: 't * 2' } },
          none: { function: 'MAX', input: { type: 'key', key: 'x' }, defaultValue: -1 },
          count: { function: 'COUNT', input: { type: 'key', key: 'h' } },
        },
        rows,
        ['t', 'h', 'x'],
      ),
    ).toEqual({ avg: 68 / 3, unique: 2, sumF: 136, none: -1, count: 2 });
  });
});

describe('the test run', () => {
  it('evaluates a SIMPLE formula and reports a bad one', async () => {
    expect(
      await testCalculatedField({
        type: 'SIMPLE',
        expression: '(t - 32) / 1.8',
        arguments: { t: { value: 212 } },
      }),
    ).toEqual({ output: '100', error: '' });
    const bad = await testCalculatedField({
      type: 'SIMPLE',
      expression: 't +',
      arguments: { t: { value: 1 } },
    });
    expect(bad.output).toBe('');
    expect(bad.error).not.toBe('');
  });

  it('answers an empty expression with an error, not an exception', async () => {
    expect(await testCalculatedField({ expression: ' ' })).toEqual({
      output: '',
      error: 'Expression must be specified',
    });
  });
});

describe('SCRIPT fields batched into one sandbox program', () => {
  it('gives each call its own field, arguments and error', async () => {
    const { CfScriptBatch } = await import('../../../../main/rule-engine/calculated-fields/cf-script.ts');
    const { testScriptSandbox } = await import('../../../../main/rule-engine/script/script-sandbox.ts');
    const batch = new CfScriptBatch(testScriptSandbox(), [
      { source: 'return {"double": t * 2};', argNames: ['t'] },
      { source: 'if (t > 5) { raiseError("too hot"); } return {"next": t + 1};', argNames: ['t'] },
    ]);
    try {
      const results = await Promise.allSettled([
        batch.run(0, { args: {} }, { t: 2 }),
        batch.run(1, { args: {} }, { t: 3 }),
        batch.run(1, { args: {} }, { t: 9 }),
      ]);
      expect(results[0]).toEqual({ status: 'fulfilled', value: { double: 4 } });
      expect(results[1]).toEqual({ status: 'fulfilled', value: { next: 4 } });
      expect(results[2]!.status).toBe('rejected');
      expect(String((results[2] as PromiseRejectedResult).reason)).toContain('too hot');
    } finally {
      batch.release();
    }
  });

  it('sends the same values of an entity once, yet gives each field its own ctx and arguments', async () => {
    const { CfScriptBatch } = await import('../../../../main/rule-engine/calculated-fields/cf-script.ts');
    const { testScriptSandbox } = await import('../../../../main/rule-engine/script/script-sandbox.ts');
    const batch = new CfScriptBatch(testScriptSandbox(), [
      { source: 'ctx.args.t.value = 100; t = 50; return {"a": ctx.args.t.value + t};', argNames: ['t'] },
      {
        source: 'return {"b": ctx.args.t.value * 10 + t, "ts": ctx.args.t.ts, "l": ctx.latestTs};',
        argNames: ['t'],
      },
    ]);
    const ctx = { args: { t: { ts: 7, value: 2 } }, latestTs: 7 };
    try {
      const results = await Promise.all([batch.run(0, ctx, { t: 2 }), batch.run(1, ctx, { t: 2 })]);
      expect(results).toEqual([{ a: 150 }, { b: 22, ts: 7, l: 7 }]);
    } finally {
      batch.release();
    }
  });
  it('gives ctx only to the scripts naming it, and no script a change another made to its arguments', async () => {
    const { CfScriptBatch } = await import('../../../../main/rule-engine/calculated-fields/cf-script.ts');
    const { testScriptSandbox } = await import('../../../../main/rule-engine/script/script-sandbox.ts');
    const plain = [
      { source: 't = t * 2; return {"a": t};', argNames: ['t'] },
      { source: 'return {"b": t, "l": ctx.latestTs, "v": ctx.args.t.value};', argNames: ['t'] },
      { source: 'return {"c": t + 1};', argNames: ['t'] },
    ];
    const meddling = [
      { source: '__cfArgs.t = 100; return {"a": t};', argNames: ['t'] },
      { source: 'return {"b": __cfArgs.t + t};', argNames: ['t'] },
    ];
    const ctx = { args: { t: { ts: 7, value: 3 } }, latestTs: 9 };
    for (const [scripts, expected] of [
      [plain, [{ a: 6 }, { b: 3, l: 9, v: 3 }, { c: 4 }]],
      [meddling, [{ a: 3 }, { b: 6 }]],
    ] as const) {
      const batch = new CfScriptBatch(testScriptSandbox(), [...scripts]);
      try {
        const outcomes = await batch.runMany(
          scripts.map((_, i) => i),
          ctx,
          { t: 3 },
        );
        expect(outcomes).toEqual(expected.map((value) => ({ ok: true, value })));
      } finally {
        batch.release();
      }
    }
  });

  it('gives what JSON would give for results of numbers, of other values and of changing keys', async () => {
    const { CfScriptBatch } = await import('../../../../main/rule-engine/calculated-fields/cf-script.ts');
    const { testScriptSandbox } = await import('../../../../main/rule-engine/script/script-sandbox.ts');
    const batch = new CfScriptBatch(testScriptSandbox(), [
      {
        source: 'if (t > 1) { return {"a": t / 4, "b": -t * 0}; } return {"b": t, "a": 1};',
        argNames: ['t'],
      },
      {
        source: 'return {"nan": t / 0 - t / 0, "inf": t / 0, "big": t * 1e308, "zero": t - t};',
        argNames: ['t'],
      },
      { source: 'return {"ts": 5, "values": {"x": t}, "s": "text", "ok": true};', argNames: ['t'] },
      { source: 'return {};', argNames: ['t'] },
    ]);
    try {
      const results = await Promise.all([
        batch.run(0, { args: {} }, { t: 2 }),
        batch.run(0, { args: {} }, { t: 1 }),
        batch.run(1, { args: {} }, { t: 3 }),
        batch.run(2, { args: {} }, { t: 4 }),
        batch.run(3, { args: {} }, { t: 5 }),
        batch.run(0, { args: {} }, { t: 6 }),
      ]);
      expect(results).toEqual([
        { a: 0.5, b: 0 },
        { b: 1, a: 1 },
        { nan: null, inf: null, big: null, zero: 0 },
        { ts: 5, values: { x: 4 }, s: 'text', ok: true },
        {},
        { a: 1.5, b: 0 },
      ]);
      expect(Object.keys(results[1]!)).toEqual(['b', 'a']);
      expect(Object.is((results[0] as { b: number }).b, -0)).toBe(false);
    } finally {
      batch.release();
    }
  });

  it("computes every call of many entities sent at once, each with its own entity's values", async () => {
    const { CfScriptBatch } = await import('../../../../main/rule-engine/calculated-fields/cf-script.ts');
    const { ScriptSandbox } = await import('../../../../main/rule-engine/script/script-sandbox.ts');
    const sandbox = new ScriptSandbox({ workers: 1 });
    const batch = new CfScriptBatch(sandbox, [
      { source: 'return {"f": t * 1.8 + 32};', argNames: ['t'] },
      { source: 'return {"d": t - h / 2};', argNames: ['t', 'h'] },
    ]);
    try {
      const calls: Promise<unknown>[] = [];
      const expected: unknown[] = [];
      for (let e = 0; e < 1500; e++) {
        const t = e / 10;
        const h = 50 + e;
        const ctx = { args: { t: { ts: e, value: t }, h: { ts: e, value: h } }, latestTs: e };
        const args = { t, h };
        calls.push(batch.run(0, ctx, args), batch.run(1, ctx, args));
        expected.push({ f: t * 1.8 + 32 }, { d: t - h / 2 });
      }
      expect(await Promise.all(calls)).toEqual(expected);
    } finally {
      batch.release();
      await sandbox.close();
    }
  });
});
