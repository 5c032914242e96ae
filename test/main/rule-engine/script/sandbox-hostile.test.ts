import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../../../shared/limits.ts';
import { compileProgram } from '../../../../main/rule-engine/script/script-program.ts';
import { ScriptError, ScriptSandbox } from '../../../../main/rule-engine/script/script-sandbox.ts';

const ARGS = ['msg', 'metadata', 'msgType'];
const sandbox = new ScriptSandbox({ limits: { timeoutMs: 300, maxErrors: 1_000 }, workers: 2 });
afterAll(() => sandbox.close());

const healthy = sandbox.load('JS', compileProgram('JS', 'return {t: msg.t + 1};', ARGS));

/** What a script gives: its value, or its ScriptError; anything else thrown fails the test. */
async function outcome(lang: 'JS' | 'TBEL', body: string): Promise<{ value?: unknown; error?: ScriptError }> {
  const script = sandbox.load(lang, compileProgram(lang, body, ARGS));
  try {
    return { value: await sandbox.invoke(script, { t: 1 }, { k: 'v' }, 'POST_TELEMETRY_REQUEST') };
  } catch (err) {
    expect(err).toBeInstanceOf(ScriptError);
    return { error: err as ScriptError };
  } finally {
    sandbox.release(script);
  }
}

const MSG = 'return {msg: {breaker: msg.t}, metadata: metadata, msgType: msgType};';

describe('scripts that try to break the sandbox', () => {
  const unaffected: [string, 'JS' | 'TBEL', string][] = [
    ['replaces Array.prototype.join', 'JS', `Array.prototype.join = function () { return '}{'; };\n${MSG}`],
    ['replaces JSON.stringify', 'JS', `JSON.stringify = function () { return ']]'; };\n${MSG}`],
    ['replaces JSON.parse', 'JS', `JSON.parse = function () { return null; };\n${MSG}`],
    [
      'closes the wrapper early and replaces the built-ins at load',
      'JS',
      `${MSG}\n}\nJSON.stringify = function () { return 'x'; };\nArray.prototype.join = null;\nfunction __after() {`,
    ],
    [
      'puts a setter on Array.prototype[0]',
      'JS',
      `Object.defineProperty(Array.prototype, '0', { set: function () { throw new Error('no'); } });\n${MSG}`,
    ],
    ['replaces join through __proto__ in TBEL', 'TBEL', `var l = [1];\nl.__proto__.join = null;\n${MSG}`],
    ['replaces toJSON through __proto__ in TBEL', 'TBEL', `var m = {};\nm.__proto__.toJSON = 5;\n${MSG}`],
  ];
  for (const [name, lang, body] of unaffected) {
    it(`${name}: its result is read as it is, and the next script runs normally`, async () => {
      expect(await outcome(lang, body)).toEqual({
        value: { msg: { breaker: 1 }, metadata: { k: 'v' }, msgType: 'POST_TELEMETRY_REQUEST' },
      });
      // the same context again: what it replaced stays its own business
      await expect(sandbox.invoke(healthy, { t: 41 }, {}, 'X')).resolves.toEqual({ t: 42 });
    });
  }

  const failing: [string, string, RegExp][] = [
    [
      'a getter that throws on its result',
      "var r = {}; Object.defineProperty(r, 'x', { enumerable: true, get: function () { throw new Error('boom'); } }); return r;",
      /^boom \(line 1\)$/,
    ],
    [
      'a getter that loops',
      "var r = {}; Object.defineProperty(r, 'x', { enumerable: true, get: function () { while (true) {} } }); return r;",
      /^Script execution exceeded the time limit of 300 ms/,
    ],
    ['a cyclic result', 'var r = {}; r.self = r; return r;', /^Script result is cyclic: it contains itself$/],
    [
      'a result 10,000 levels deep',
      'var r = {}; for (var i = 0; i < 10000; i++) r = {r: r}; return r;',
      new RegExp(`^Script result is nested deeper than ${MAX_JSON_DEPTH} levels$`),
    ],
    [
      'a huge string',
      "return {s: 'x'.repeat(5000000)};",
      /^Script invocation result exceeds maximum allowed size of 300000 symbols$/,
    ],
    [
      'an array claiming a huge length',
      'return new Proxy([], { get: function (t, k) { return k === "length" ? 1e9 : 1; } });',
      /^Script invocation result exceeds maximum allowed size/,
    ],
    [
      'a thrown value that cannot be read',
      'throw new Proxy({}, { getPrototypeOf: function () { throw 1; } });',
      /^The script threw a value that cannot be read$/,
    ],
    ['a BigInt result', 'return {n: 10n};', /^TypeError: Do not know how to serialize a BigInt/],
  ];
  for (const [name, body, message] of failing) {
    it(`${name}: the call fails with a message, and the next script runs normally`, async () => {
      const { error } = await outcome('JS', body);
      expect(error?.message).toMatch(message);
      await expect(sandbox.invoke(healthy, { t: 1 }, {}, 'X')).resolves.toEqual({ t: 2 });
    });
  }

  it('answers a healthy script while another one loops (the healthy answer comes first)', async () => {
    const order: string[] = [];
    const looping = sandbox.load('JS', compileProgram('JS', 'while (true) {}', ARGS));
    const loop = sandbox.invoke(looping, {}, {}, 'X').catch(() => order.push('looping'));
    await sandbox.invoke(healthy, { t: 1 }, {}, 'X').then(() => order.push('healthy'));
    await loop;
    expect(order).toEqual(['healthy', 'looping']);
  });
});

/** Hostile statements, each on its own line; `r` is the result the script returns. */
const hostileStatement = fc.oneof(
  fc.constantFrom(
    "Array.prototype.join = function () { return '}{'; };",
    "JSON.stringify = function () { return ']'; };",
    "JSON.parse = function () { throw new Error('parse'); };",
    "Object.prototype.toJSON = function () { return {toJSON: 'again'}; };",
    "Object.defineProperty(Array.prototype, '0', { set: function () { throw 1; }, configurable: true });",
    'String.prototype.slice = null; Reflect.apply = null; Object.keys = null; Array.isArray = null;',
    "Object.defineProperty(r, 'g', { enumerable: true, get: function () { throw new Error('g'); } });",
    "Object.defineProperty(r, 'h', { enumerable: true, get: function () { return r; } });",
    'r.self = r;',
    'r = new Proxy(r, { ownKeys: function () { throw new Error("keys"); } });',
    'throw r;',
    'throw null;',
    'r.f = function () {}; r.s = Symbol("s"); r.u = undefined; r.n = NaN;',
    'return r;\n}\nJSON.stringify = null;\nfunction __z() {',
  ),
  fc.integer({ min: 0, max: 400 }).map((n) => `for (var i = 0; i < ${n}; i++) r = {r: r};`),
  fc.integer({ min: 0, max: 400_000 }).map((n) => `r.big = 'x'.repeat(${n});`),
  fc.integer({ min: 0, max: 100_000 }).map((n) => `r.arr = new Array(${n}).fill(r.a);`),
);

describe('fast-check: scripts built from hostile statements', () => {
  it('never escape the sandbox: each call resolves with a bounded JSON value or fails with a ScriptError', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostileStatement, { minLength: 1, maxLength: 5 }), async (statements) => {
        const body = `var r = {a: 1};\n${statements.join('\n')}\nreturn r;`;
        const { value, error } = await outcome('JS', body);
        if (error) {
          expect(error.message.length).toBeGreaterThan(0);
          expect(['timeout', 'memory', 'runtime', 'size']).toContain(error.reason);
        } else {
          const text = JSON.stringify(value) ?? '';
          expect(text.length).toBeLessThanOrEqual(300_000);
        }
        await expect(sandbox.invoke(healthy, { t: 1 }, {}, 'X')).resolves.toEqual({ t: 2 });
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
