import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../../shared/schemas/simulation.ts';
import {
  DeviceScript,
  type DeviceScriptError,
  type ScriptOutcome,
} from '../../../main/simulator/device-script.ts';
import { parseScenario } from '../../../main/simulator/scenario.ts';
import { ScriptSandbox } from '../../../main/rule-engine/script/script-sandbox.ts';

const THERMOSTATS = JSON.parse(
  readFileSync(new URL('../../../shared/scenarios/scripted-thermostats.json', import.meta.url), 'utf8'),
) as Scenario;
const THERMOSTAT = THERMOSTATS.gateways[0]!.script!;

const sandbox = new ScriptSandbox({ workers: 2, limits: { timeoutMs: 300, maxResultChars: 16_384 } });
afterAll(() => sandbox.close());

/** One tick of the devices; their outcomes in order (null: skipped, stopped or failed). */
function ticks(script: DeviceScript, devices: string[], now: number, elapsedMs: number) {
  return new Promise<(ScriptOutcome | null)[]>((resolve) => {
    const outcomes = new Map<string, ScriptOutcome | null>();
    script.ticks(devices, now, elapsedMs, (device, out) => {
      outcomes.set(device, out);
      if (outcomes.size === devices.length) resolve(devices.map((d) => outcomes.get(d)!));
    });
  });
}

const tick = async (script: DeviceScript, device: string, now: number, elapsedMs: number) =>
  (await ticks(script, [device], now, elapsedMs))[0]!;

function deviceScript(source: string, names = ['A', 'B']) {
  const errors: DeviceScriptError[] = [];
  const script = new DeviceScript({
    source,
    gateway: 'G',
    deviceType: 'thermostat',
    seed: 'test',
    devices: names.map((name, i) => ({ name, n: i + 1 })),
    onError: (e) => errors.push(e),
    sandbox,
  });
  return { script, errors };
}

describe('device scripts', () => {
  it('are part of the scenario file: the shipped thermostats validate, too many scripted devices do not', () => {
    expect(parseScenario(THERMOSTATS).gateways[0]!.script).toContain('function onRpc(method, params, ctx)');
    const many = structuredClone(THERMOSTATS);
    many.gateways[0]!.devicesCount = 5001;
    many.gateways.push({ ...many.gateways[0]!, name: 'Second', deviceNamePattern: 'Second ${n}' });
    expect(() => parseScenario(many)).toThrow(
      'gateways: must have at most 10000 scripted devices in all (has 10002)',
    );
    const empty = structuredClone(THERMOSTATS);
    empty.gateways[0]!.script = '';
    expect(() => parseScenario(empty)).toThrow(/gateways\[0\]\.script: /);
  });

  it('keep state per device, follow a shared attribute and answer RPC (the shipped thermostat)', async () => {
    const { script, errors } = deviceScript(THERMOSTAT);
    const first = await tick(script, 'A', 1000, 0);
    const start = first!.telemetry[0]!.temperature as number;
    expect(start).toBeGreaterThan(17.9);
    expect(first!.telemetry[0]).toMatchObject({ targetTemp: 21 });
    await script.attributes('A', { targetTemp: 30 }, [], 2000, 1000);
    let last = start;
    for (let i = 0; i < 40; i++)
      last = (await tick(script, 'A', 3000 + i, 0))!.telemetry[0]!.temperature as number;
    expect(last).toBeCloseTo(30, 0);
    // B has its own state: its target is still 21
    expect((await tick(script, 'B', 1000, 0))!.telemetry[0]).toMatchObject({ targetTemp: 21 });
    const state = await script.rpc('A', 'getState', null, 5000, 4000);
    expect(state!.reply).toMatchObject({ targetTemp: 30, heating: false });
    const set = await script.rpc('A', 'setTarget', { targetTemp: 19 }, 5000, 4000);
    expect(set).toMatchObject({ reply: { targetTemp: 19 }, attributes: [{ targetTemp: 19 }] });
    expect(errors).toEqual([]);
  });

  it('stops a device whose hook runs past the time limit, with the line, while the others go on', async () => {
    const { script, errors } = deviceScript(
      '// device 1 is stuck in a loop\nconst STEP = 1;\nfunction onTick(ctx) {\n  let i = 0;\n  while (ctx.device.n === 1) {\n    i += STEP;\n  }\n  return { x: ctx.device.n };\n}',
    );
    const [a, b] = await ticks(script, ['A', 'B'], 1, 0);
    expect(a).toBeNull();
    expect(b!.telemetry).toEqual([{ x: 2 }]);
    expect(errors).toEqual([
      expect.objectContaining({
        device: 'A',
        hook: 'onTick',
        message: 'Script execution exceeded the time limit of 300 ms',
        stopped: true,
      }),
    ]);
    // a line of onTick (QuickJS names the loop, or the function it is in)
    expect(errors[0]!.line).toBeGreaterThanOrEqual(3);
    expect(errors[0]!.line).toBeLessThanOrEqual(7);
    expect(script.runs('A')).toBe(false);
    expect((await tick(script, 'B', 2, 0))!.telemetry).toEqual([{ x: 2 }]);
    expect(script.stoppedCount).toBe(1);
  });

  it('reports a syntax error with its line and runs none of the devices', async () => {
    const { script, errors } = deviceScript('function onTick(ctx) {\n  return { x: 1 ;\n}');
    expect(errors).toEqual([expect.objectContaining({ device: null, hook: null, line: 2, stopped: true })]);
    expect(errors[0]!.message).toMatch(/^Syntax error: /);
    expect(await tick(script, 'A', 1, 0)).toBeNull();
    expect(script.stoppedCount).toBe(2);
  });

  it('skips a call that throws (with the line) and refuses results that are not telemetry', async () => {
    const { script, errors } = deviceScript(
      'function onTick(ctx) {\n  ctx.state.n = (ctx.state.n || 0) + 1;\n  if (ctx.elapsedMs === 0) return [1, 2];\n  if (ctx.elapsedMs === 1) null.x;\n  return { n: ctx.state.n };\n}',
    );
    expect(await tick(script, 'A', 1, 0)).toBeNull();
    expect(await tick(script, 'A', 1, 1)).toBeNull();
    // ctx.state is the device's own object: what a call did to it before it failed stays
    expect((await tick(script, 'A', 1, 2))!.telemetry).toEqual([{ n: 3 }]);
    expect(errors).toEqual([
      expect.objectContaining({
        device: 'A',
        line: null,
        stopped: false,
        message: expect.stringMatching(/must be an object/),
      }),
      expect.objectContaining({
        device: 'A',
        line: 4,
        stopped: false,
        message: expect.stringMatching(/TypeError/),
      }),
    ]);
  });

  it('stops a device whose script allocates past its memory limit', async () => {
    // a time limit that cannot come first, so that the memory limit is what stops it
    const roomy = new ScriptSandbox({ workers: 1, limits: { timeoutMs: 20_000 } });
    try {
      const errors: DeviceScriptError[] = [];
      const script = new DeviceScript({
        source: 'function onTick(ctx) {\n  const a = [];\n  for (;;) a.push("x".repeat(1000) + a.length);\n}',
        gateway: 'G',
        deviceType: 'hog',
        seed: 1,
        devices: [{ name: 'A', n: 1 }],
        onError: (e) => errors.push(e),
        sandbox: roomy,
      });
      expect(await tick(script, 'A', 1, 0)).toBeNull();
      expect(errors).toEqual([
        expect.objectContaining({
          device: 'A',
          stopped: true,
          message: 'Script exceeded the memory limit of 8 MiB',
        }),
      ]);
    } finally {
      await roomy.close();
    }
  });

  it("says so when the sandbox lost the devices' state (a device ran out of memory), and they start over", async () => {
    const roomy = new ScriptSandbox({ workers: 1, limits: { timeoutMs: 20_000 } });
    try {
      const { script, errors } = (() => {
        const errors: DeviceScriptError[] = [];
        const script = new DeviceScript({
          source:
            'function onTick(ctx) {\n  ctx.state.n = (ctx.state.n || 0) + 1;\n  if (ctx.device.n === 2 && ctx.elapsedMs === 1) {\n    const a = [];\n    for (;;) a.push("x".repeat(1000) + a.length);\n  }\n  return { n: ctx.state.n };\n}',
          gateway: 'G',
          deviceType: 'hog',
          seed: 1,
          devices: [
            { name: 'A', n: 1 },
            { name: 'B', n: 2 },
          ],
          onError: (e) => errors.push(e),
          sandbox: roomy,
        });
        return { script, errors };
      })();
      expect((await tick(script, 'A', 1, 0))!.telemetry).toEqual([{ n: 1 }]);
      expect((await tick(script, 'A', 2, 0))!.telemetry).toEqual([{ n: 2 }]);
      await ticks(script, ['A', 'B'], 3, 1);
      expect(script.runs('B')).toBe(false);
      // A goes on, its count started over (a tick may be skipped while the sandbox finds it lost)
      let out: ScriptOutcome | null = null;
      for (let i = 0; i < 3 && !out; i++) out = await tick(script, 'A', 4 + i, 2);
      expect((out!.telemetry[0]!.n as number) <= 2).toBe(true);
      expect(errors).toContainEqual(
        expect.objectContaining({
          device: 'B',
          stopped: true,
          message: 'Script exceeded the memory limit of 8 MiB',
        }),
      );
      expect(errors).toContainEqual(
        expect.objectContaining({
          device: 'A',
          stopped: false,
          message: expect.stringMatching(/ctx\.state starts over/),
        }),
      );
    } finally {
      await roomy.close();
    }
  });

  it('runs many devices in one call: one that throws is reported with its line, the others publish what they returned', async () => {
    const names = Array.from({ length: 300 }, (_, i) => `D${i + 1}`);
    const { script, errors } = deviceScript(
      'function onTick(ctx) {\n  ctx.state.n = (ctx.state.n || 0) + 1;\n  if (ctx.device.n === 150) ctx.nothing.x = 1;\n  return { n: ctx.state.n, who: ctx.device.name, t: 0.1 * ctx.device.n };\n}',
      names,
    );
    for (let round = 1; round <= 2; round++) {
      const outs = await ticks(script, names, round, round);
      outs.forEach((out, i) => {
        if (i === 149) expect(out).toBeNull();
        else expect(out!.telemetry).toEqual([{ n: round, who: names[i], t: 0.1 * (i + 1) }]);
      });
    }
    expect(errors).toHaveLength(2);
    expect(errors[0]).toEqual(
      expect.objectContaining({ device: 'D150', hook: 'onTick', line: 3, stopped: false }),
    );
    expect(errors[0]!.message).toMatch(/TypeError/);
  });

  it('returns a tick whose results are larger than one sandbox result in several, without running the devices again', async () => {
    // 16,384 symbols per result (the test sandbox): 40 devices of 1,000 characters each need three
    const names = Array.from({ length: 40 }, (_, i) => `D${i + 1}`);
    const { script, errors } = deviceScript(
      'function onTick(ctx) {\n  ctx.state.n = (ctx.state.n || 0) + 1;\n  return { n: ctx.state.n, pad: "x".repeat(1000) };\n}',
      names,
    );
    for (let round = 1; round <= 2; round++) {
      const outs = await ticks(script, names, round, round);
      for (const out of outs) expect(out!.telemetry).toEqual([{ n: round, pad: 'x'.repeat(1000) }]);
    }
    expect(errors).toEqual([]);
  });

  it('stops a device whose result alone is larger than a sandbox result; the others of its call go on', async () => {
    const { script, errors } = deviceScript(
      'function onTick(ctx) {\n  return { pad: "x".repeat(ctx.device.n === 1 ? 20000 : 10) };\n}',
    );
    const [a, b] = await ticks(script, ['A', 'B'], 1, 0);
    expect(a).toBeNull();
    expect(b!.telemetry).toEqual([{ pad: 'x'.repeat(10) }]);
    expect(errors).toEqual([
      expect.objectContaining({
        device: 'A',
        stopped: true,
        message: 'Script invocation result exceeds maximum allowed size of 16384 symbols',
      }),
    ]);
    expect(script.runs('A')).toBe(false);
  });

  it('stops the device that loops in a call of many; those that ran before it in that call keep what they did', async () => {
    const { script, errors } = deviceScript(
      'function onTick(ctx) {\n  ctx.state.n = (ctx.state.n || 0) + 1;\n  while (ctx.device.n === 2) {}\n  return { n: ctx.state.n };\n}',
      ['A', 'B', 'C'],
    );
    const [a, b, c] = await ticks(script, ['A', 'B', 'C'], 1, 0);
    expect(b).toBeNull();
    // A ran once, in the call that B stopped: its result is kept and its state moved on once
    expect(a!.telemetry).toEqual([{ n: 1 }]);
    expect(c!.telemetry).toEqual([{ n: 1 }]);
    expect((await ticks(script, ['A', 'C'], 2, 1)).map((o) => o!.telemetry)).toEqual([
      [{ n: 2 }],
      [{ n: 2 }],
    ]);
    expect(errors).toEqual([
      expect.objectContaining({
        device: 'B',
        message: 'Script execution exceeded the time limit of 300 ms',
        stopped: true,
      }),
    ]);
  });

  it('keeps the results of the devices before one that loops when other calls of the tick ran in between', async () => {
    // 300 devices on their first tick pass their init: the tick takes two calls, the second runs while the
    // first is stopped, before its devices' results are taken back
    const names = Array.from({ length: 300 }, (_, i) => `D${i + 1}`);
    const { script, errors } = deviceScript(
      'function onTick(ctx) {\n  ctx.state.n = (ctx.state.n || 0) + 1;\n  while (ctx.device.n === 2) {}\n  return { n: ctx.state.n, d: ctx.device.n * 0.5 };\n}',
      names,
    );
    const out = await ticks(script, names, 1, 0);
    expect(out.map((o) => o?.telemetry)).toEqual(
      names.map((_, i) => (i === 1 ? undefined : [{ n: 1, d: (i + 1) * 0.5 }])),
    );
    expect(errors).toEqual([expect.objectContaining({ device: 'D2', stopped: true })]);
    const again = await ticks(script, ['D1', 'D300'], 2, 1);
    expect(again.map((o) => o?.telemetry)).toEqual([[{ n: 2, d: 0.5 }], [{ n: 2, d: 150 }]]);
  });

  it('sends numeric results as doubles and refuses NaN and infinities as before; other values still go as JSON', async () => {
    const { script, errors } = deviceScript(
      `function onTick(ctx) {
  const n = ctx.device.n;
  if (n === 1) return { t: 21.25, h: 40 };
  if (n === 2) return { h: 0.1 + 0.2, t: -1e-7 };
  if (n === 3) return { t: NaN };
  if (n === 4) return { t: 1 / 0 };
  if (n === 5) return { mode: 'heat', t: 20 };
  return { t: 21.25, h: 41 };
}`,
      ['A', 'B', 'C', 'D', 'E', 'F'],
    );
    const out = await ticks(script, ['A', 'B', 'C', 'D', 'E', 'F'], 1, 0);
    expect(out.map((o) => o?.telemetry)).toEqual([
      [{ t: 21.25, h: 40 }],
      [{ h: 0.1 + 0.2, t: -1e-7 }],
      undefined,
      undefined,
      [{ mode: 'heat', t: 20 }],
      [{ t: 21.25, h: 41 }],
    ]);
    expect(Object.keys(out[1]!.telemetry[0]!)).toEqual(['h', 't']);
    expect(errors).toEqual(
      ['C', 'D'].map((device) =>
        expect.objectContaining({
          device,
          stopped: false,
          message: "onTick's result: 't' must be a number, a string, a boolean or a JSON object",
        }),
      ),
    );
  });

  it('gives each device its own ctx.random() stream in [0, 1): the same seed gives the same numbers', async () => {
    const source = 'function onTick(ctx) { return { a: ctx.random(), b: ctx.random() }; }';
    const names = ['A', 'B', 'C'];
    const series = async () => {
      const { script, errors } = deviceScript(source, names);
      const out: number[][] = [];
      for (let t = 0; t < 20; t++)
        for (const o of await ticks(script, names, t, t))
          out.push(Object.values(o!.telemetry[0]!) as number[]);
      expect(errors).toEqual([]);
      script.release();
      return out;
    };
    const first = await series();
    expect(await series()).toEqual(first);
    const all = first.flat();
    expect(all.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(all).size).toBe(all.length);
    // the devices' streams differ, and spread over [0, 1)
    expect(first[0]).not.toEqual(first[1]);
    expect(all.filter((x) => x < 0.5).length).toBeGreaterThan(all.length / 4);
    expect(all.filter((x) => x >= 0.5).length).toBeGreaterThan(all.length / 4);
  });

  it('gives each device its own values when many of a call share a shape, whichever of them tick', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `D${i + 1}`);
    const { script, errors } = deviceScript(
      `function onTick(ctx) {
  const n = ctx.device.n;
  if (n === 6) return { h: n, t: 0 };
  if (n === 7) return { t: 'off' };
  return { t: n * 1.5, h: -n };
}`,
      names,
    );
    // devices 2, 5 and 9 sit this tick out: the others go in runs of numbers
    const ticking = names.filter((_, i) => ![1, 4, 8].includes(i));
    for (let round = 0; round < 2; round++) {
      const out = await ticks(script, ticking, 1, 0);
      expect(out.map((o) => o?.telemetry)).toEqual(
        ticking.map((d) => {
          const n = Number(d.slice(1));
          return [n === 6 ? { h: 6, t: 0 } : n === 7 ? { t: 'off' } : { t: n * 1.5, h: -n }];
        }),
      );
    }
    expect(errors).toEqual([]);
  });

  it('gives every device its own outcome when most results share a shape and the others do not, as the shape changes', async () => {
    const names = Array.from({ length: 50 }, (_, i) => `D${i + 1}`);
    const { script, errors } = deviceScript(
      `function onTick(ctx) {
  const n = ctx.device.n, s = ctx.state;
  if (n % 10 === 3) throw new Error('bad ' + n);
  s.c = (s.c || 0) + 1;
  if (n % 10 === 4) { ctx.publish({ extra: n }); return { t: s.c, h: n }; }
  if (n % 10 === 5) return [1, 2];
  if (n % 10 === 6) return null;
  if (n % 10 === 7) return { t: s.c, h: n, more: 'yes' };
  if (n % 10 === 8) { ctx.state = { c: s.c }; return { t: s.c, h: n }; }
  return ctx.elapsedMs >= 3 ? { h: n, t: s.c } : { t: s.c, h: n };
}`,
      names,
    );
    // from round 3 on, most results have their keys the other way round
    for (let round = 1; round <= 5; round++) {
      const outs = await ticks(script, names, round, round);
      expect(outs.map((o) => o && [...o.telemetry])).toEqual(
        names.map((_, i) => {
          const n = i + 1;
          if (n % 10 === 3 || n % 10 === 5) return null;
          if (n % 10 === 4) return [{ extra: n }, { t: round, h: n }];
          if (n % 10 === 6) return [];
          if (n % 10 === 7) return [{ t: round, h: n, more: 'yes' }];
          return [round >= 3 && n % 10 !== 8 ? { h: n, t: round } : { t: round, h: n }];
        }),
      );
      for (const out of outs.filter((o) => o && o.telemetry.length === 1 && !('more' in o.telemetry[0]!)))
        expect(Object.keys(out!.telemetry[0]!)).toEqual(
          round >= 3 && (out!.telemetry[0]!.h as number) % 10 !== 8 ? ['h', 't'] : ['t', 'h'],
        );
    }
    expect(errors).toHaveLength(50);
    for (const e of errors.filter((x) => x.message.includes('bad')))
      expect(e).toEqual(expect.objectContaining({ hook: 'onTick', line: 3, stopped: false }));
    expect(errors.filter((x) => /must be an object of key: value/.test(x.message))).toHaveLength(25);
  });

  it('trusts nothing a script forges as its result of doubles: shapes, entries and counts are checked', async () => {
    const forged = [
      // an entry naming no shape
      'var f = new Float64Array(arguments[3]); f[0] = 1; return [\'{"r":[2],"i":[],"m":0,"s":[["t"]]}\', 1];',
      // fewer doubles than the entries take, and doubles left over
      'return [\'{"r":[1],"i":[],"m":0,"s":[["t","h"]]}\', 1];',
      'return [\'{"r":[1],"i":[],"m":0,"s":[["t"]]}\', 2];',
      // a shape that is not one: empty key, repeated key, __proto__
      'return [\'{"r":[1],"i":[],"m":0,"s":[[""]]}\', 1];',
      'return [\'{"r":[1],"i":[],"m":0,"s":[["t","t"]]}\', 2];',
      'return [\'{"r":[1],"i":[],"m":0,"s":[["__proto__"]]}\', 1];',
      // runs of a shape: after no shape, past the call's devices, not a whole number
      'return [\'{"r":[-1],"i":[],"m":0,"s":[["t"]]}\', 0];',
      'return [\'{"r":[1,-1000000000],"i":[],"m":0,"s":[["t"]]}\', 1];',
      'return [\'{"r":[1,-0.5],"i":[],"m":0,"s":[["t"]]}\', 1];',
    ];
    for (const body of forged) {
      const { script, errors } = deviceScript(`function onTick() { return { t: 1 }; }\n${body}`, ['A']);
      expect(await tick(script, 'A', 1, 0)).toBeNull();
      expect(errors).toEqual([
        expect.objectContaining({ device: 'A', message: 'The script sandbox gave a result it cannot read' }),
      ]);
    }
  });
});
