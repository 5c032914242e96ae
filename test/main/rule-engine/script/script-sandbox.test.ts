import { afterAll, describe, expect, it } from 'vitest';
import { compileProgram } from '../../../../main/rule-engine/script/script-program.ts';
import {
  NumbersResult,
  ScriptError,
  ScriptSandbox,
} from '../../../../main/rule-engine/script/script-sandbox.ts';

const ARGS = ['msg', 'metadata', 'msgType'];
const DEFAULT_RESULT_CHARS = 300_000;
const TIMEOUT_MS = 300;
const sandbox = new ScriptSandbox({
  limits: { timeoutMs: TIMEOUT_MS, maxErrors: 2 },
  workers: 2,
});
afterAll(() => sandbox.close());

const load = (body: string, lang: 'JS' | 'TBEL' = 'JS') =>
  sandbox.load(lang, compileProgram(lang, body, ARGS));
const run = (body: string, data: unknown = { temperature: 21 }, lang: 'JS' | 'TBEL' = 'JS') =>
  sandbox.invoke(load(body, lang), data, { deviceName: 'A' }, 'POST_TELEMETRY_REQUEST');

async function failureOf(p: Promise<unknown>): Promise<ScriptError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ScriptError);
    return err as ScriptError;
  }
  throw new Error('the script did not fail');
}

describe('script sandbox (QuickJS in worker threads)', () => {
  it('runs a script on the message, metadata and type and returns its result', async () => {
    await expect(
      run('return {t: msg.temperature * 2, name: metadata.deviceName, type: msgType};'),
    ).resolves.toEqual({ t: 42, name: 'A', type: 'POST_TELEMETRY_REQUEST' });
  });

  it('keeps one context per script and reuses it across invocations', async () => {
    const script = load('globalThis.n = (globalThis.n || 0) + 1; return globalThis.n;');
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await sandbox.invoke(script, {}, {}, 'X'));
    expect(results).toEqual([1, 2, 3]);
  });

  it('keeps a pinned script on the worker that holds its context, waiting while that worker is busy', async () => {
    const pinned = sandbox.load(
      'JS',
      compileProgram('JS', 'globalThis.n = (globalThis.n || 0) + 1;\nreturn globalThis.n;', ARGS),
      { pinned: true },
    );
    expect(await sandbox.invoke(pinned, {}, {}, 'X')).toBe(1);
    // another script's slow batch takes the first idle worker, the one that holds the pinned context
    const slow = load('var t = Date.now();\nwhile (Date.now() - t < 200) {}\nreturn 0;');
    const busy = sandbox.invoke(slow, {}, {}, 'X');
    // a script not pinned would go to the other worker, to a fresh context, and count 1 again
    expect(await sandbox.invoke(pinned, {}, {}, 'X')).toBe(2);
    await busy;
    sandbox.release(pinned);
  });

  it('gives a script nothing of the host: no process, require, files, network or timers', async () => {
    await expect(
      run(
        'return [typeof process, typeof require, typeof fetch, typeof setTimeout, typeof XMLHttpRequest, typeof WebAssembly, typeof std, typeof os].join();',
      ),
    ).resolves.toBe(Array(8).fill('undefined').join());
  });

  it('stops a script that loops forever at the time limit, then runs the next message normally', async () => {
    const script = load('if (msg.loop) { while (true) {} } return "done";');
    const started = Date.now();
    const err = await failureOf(sandbox.invoke(script, { loop: true }, {}, 'X'));
    expect(err.reason).toBe('timeout');
    expect(err.message).toBe(`Script execution exceeded the time limit of ${TIMEOUT_MS} ms`);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 5);
    await expect(sandbox.invoke(script, { loop: false }, {}, 'X')).resolves.toBe('done');
  });

  it('stops a script that allocates without end, whether QuickJS counts the memory or not', async () => {
    // a time limit that cannot come first, so that the memory limit is what stops these scripts
    const roomy = new ScriptSandbox({ limits: { timeoutMs: 20_000 }, workers: 1 });
    try {
      for (const body of [
        "var a = []; while (true) a.push('x'.repeat(1000) + a.length);",
        // arrays grown by realloc escape QuickJS's own malloc limit: the linear memory cap stops them
        'var a = []; while (true) a.push(new Array(1000).fill(1));',
      ]) {
        const script = roomy.load('JS', compileProgram('JS', body, ARGS));
        const err = await failureOf(roomy.invoke(script, {}, {}, 'X'));
        expect(err.reason).toBe('memory');
        expect(err.message).toBe('Script exceeded the memory limit of 8 MiB');
      }
    } finally {
      await roomy.close();
    }
  });

  it('reports what a script throws with the line it threw on', async () => {
    const err = await failureOf(run('var x = 1;\nif (x) {\n  throw new Error("sensor offline");\n}'));
    expect(err.reason).toBe('runtime');
    expect(err.message).toBe('sensor offline (line 3)');
    const typeErr = await failureOf(run('return msg.missing.deeper;'));
    expect(typeErr.message).toMatch(/^TypeError: .*\(line 1\)$/);
  });

  it('fails deep recursion with a stack overflow instead of crashing', async () => {
    const err = await failureOf(run('function f(n) { return f(n + 1) + 1; }\nreturn f(0);'));
    expect(err.message).toMatch(/stack overflow/);
  });

  it('keeps running other scripts while one runs away', async () => {
    // both workers up first (starting one is not a script's time)
    const warm = load('return 1;');
    await Promise.all([1, 2, 3, 4].map(() => sandbox.invoke(warm, {}, {}, 'X')));
    let runawaySettled = false;
    const runaway = failureOf(sandbox.invoke(load('while (true) {}'), {}, {}, 'X')).finally(() => {
      runawaySettled = true;
    });
    const quick = load('return msg.temperature + 1;');
    // the first answer comes from another worker, while the runaway one is busy
    await expect(sandbox.invoke(quick, { temperature: 1 }, {}, 'X')).resolves.toBe(2);
    const answeredWhileRunning: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      await expect(sandbox.invoke(quick, { temperature: i }, {}, 'X')).resolves.toBe(i + 1);
      answeredWhileRunning.push(!runawaySettled);
    }
    expect(answeredWhileRunning).toEqual([true, true, true, true, true]);
    expect((await runaway).reason).toBe('timeout');
  });

  it('suspends a script after timeouts in a row, failing at once with the last reason until it is loaded again', async () => {
    const script = load('while (true) {}');
    expect((await failureOf(sandbox.invoke(script, {}, {}, 'X'))).reason).toBe('timeout');
    expect((await failureOf(sandbox.invoke(script, {}, {}, 'X'))).reason).toBe('timeout');
    const started = Date.now();
    const suspended = await failureOf(sandbox.invoke(script, {}, {}, 'X'));
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS);
    expect(suspended.reason).toBe('suspended');
    const reason =
      'Script suspended after 2 failures in a row (last: Script execution exceeded the time limit of 300 ms); edit the node to run it again';
    expect(suspended.message).toBe(reason);
    expect(sandbox.suspension(script)).toBe(reason);
  });

  it('counts only limits hit in a row: a call that succeeds in between starts the count again', async () => {
    const script = load('if (msg.loop) { while (true) {} } return 1;');
    expect((await failureOf(sandbox.invoke(script, { loop: true }, {}, 'X'))).reason).toBe('timeout');
    await expect(sandbox.invoke(script, {}, {}, 'X')).resolves.toBe(1);
    expect((await failureOf(sandbox.invoke(script, { loop: true }, {}, 'X'))).reason).toBe('timeout');
    await expect(sandbox.invoke(script, {}, {}, 'X')).resolves.toBe(1);
    expect(sandbox.suspension(script)).toBeNull();
  });

  it('bounds the input and the result', async () => {
    const big = { s: 'x'.repeat(100_001) };
    expect((await failureOf(run('return 1;', big))).message).toBe(
      'Script input arguments exceed maximum allowed total args size of 100000 symbols',
    );
    expect((await failureOf(run("return 'y'.repeat(300001);"))).message).toBe(
      'Script invocation result exceeds maximum allowed size of 300000 symbols',
    );
  });

  it('refuses a released script', async () => {
    const script = load('return 1;');
    await expect(sandbox.invoke(script, {}, {}, 'X')).resolves.toBe(1);
    sandbox.release(script);
    expect((await failureOf(sandbox.invoke(script, {}, {}, 'X'))).message).toBe('The script was released');
  });

  it('hands a script loaded with numbers the doubles it wrote, and checks its count and size', async () => {
    const numbers = (body: string) =>
      sandbox.invoke(sandbox.load('JS', compileProgram('JS', body, ARGS), { numbers: 4 }), {}, {}, 'T');
    const out = await numbers(
      'var f = new Float64Array(arguments[3]); f[0] = 1.5; f[1] = NaN; f[2] = -Infinity; return ["x", 3];',
    );
    expect(out).toBeInstanceOf(NumbersResult);
    expect((out as NumbersResult).text).toBe('x');
    expect([...(out as NumbersResult).numbers]).toEqual([1.5, NaN, -Infinity]);
    // a count beyond the buffer, or not a whole number, is refused; other results go as JSON
    expect((await failureOf(numbers('return ["x", 5];'))).message).toMatch(/invalid count/);
    expect((await failureOf(numbers('return ["x", 1.5];'))).message).toMatch(/invalid count/);
    await expect(numbers('return ["x", "1"];')).resolves.toEqual(['x', '1']);
    // the text and the doubles count against the result's bound
    const big = await failureOf(numbers(`return ["x".repeat(${DEFAULT_RESULT_CHARS - 20}), 4];`));
    expect(big.reason).toBe('size');
    // a script loaded without numbers gets no buffer, and a [text, count] result is plain JSON
    await expect(run('return [typeof arguments[3], 0];')).resolves.toEqual(['undefined', 0]);
  });
});
