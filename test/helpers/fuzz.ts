import fc from 'fast-check';
import { expect } from 'vitest';

/**
 * The seed of every property in a run: FUZZ_SEED reproduces a failure (fast-check's failure message
 * names the seed and the path of the counterexample; the run prints its seed up front too).
 */
export const FUZZ_SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2_147_483_647;
process.stderr.write(`fuzz seed ${FUZZ_SEED} (FUZZ_SEED=${FUZZ_SEED} reproduces this run)\n`);

export function fuzzParams<T>(numRuns: number): fc.Parameters<T> {
  return { seed: FUZZ_SEED, numRuns, endOnFailure: true, interruptAfterTimeLimit: 40_000 };
}

/** Strings an attacker or a careless user sends: blanks, huge, control characters, injections, lookalikes. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\t\n',
    '\u0000',
    'null',
    'true',
    '1e300',
    '-1',
    '9007199254740993',
    "' OR 1=1 --",
    '%zz',
    '../../etc/passwd',
    '<script>alert(1)</script>',
    '\uD800',
    'ｔｅｎａｎｔ',
    '__proto__',
    'constructor',
    '13814000-1dd2-11b2-8080-808080808080',
  ),
  fc.integer({ min: 256, max: 5_000 }).map((n) => 'x'.repeat(n)),
  fc.uuid(),
);

/**
 * JSON nested `levels` deep, kept as its text in a marker object: building (or printing) the value
 * itself would overflow the test's own stack. toJsonText() splices the text in.
 */
export function nested(levels: number): { [RAW]: string } {
  let text = '1';
  for (let i = 0; i < levels; i++) text = i % 2 ? `[${text}]` : `{"a":${text}}`;
  return { [RAW]: text };
}

export const RAW = '__rawJsonText';

/** JSON text of a value that may hold nested() markers. */
export function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && RAW in v) {
      raws.push((v as Record<string, string>)[RAW]!);
      return `\u0000raw${raws.length - 1}\u0000`;
    }
    return v;
  });
  return (text ?? 'null').replace(/"\\u0000raw(\d+)\\u0000"/g, (_m, i: string) => raws[Number(i)]!);
}

const numberish = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 1e300, -1e300, 9e18, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER),
);

/** Any JSON value, with the odd deep nesting, big numbers and nasty strings. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 2, arbitrary: nastyString },
  { weight: 2, arbitrary: numberish },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 5_000 }).map((n) => nested(n)) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
);

/** A JSON object of a few keys (nasty ones among them) to any values. */
export const anyObject: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(
  fc.oneof(fc.string({ maxLength: 12 }), nastyString),
  anyJson,
  { maxKeys: 5 },
);

type Json = unknown;

function paths(
  value: Json,
  prefix: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  out.push(prefix);
  if (out.length > 200) return out;
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...prefix, i], out));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], out);
  return out;
}

function setAt(root: Json, path: (string | number)[], value: Json | typeof REMOVE): Json {
  if (path.length === 0) return value === REMOVE ? undefined : value;
  const copy = structuredClone(root) as Record<string | number, Json>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, Json>;
  const last = path.at(-1)!;
  if (value === REMOVE) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = value;
  return copy;
}

const REMOVE = Symbol('remove');

/** A valid document with a few of its values replaced by anything, or removed: near misses of the schema. */
export function mutationsOf(base: Json, maxMutations = 3): fc.Arbitrary<Json> {
  const all = paths(base);
  return fc
    .array(fc.tuple(fc.nat({ max: all.length - 1 }), fc.oneof(anyJson, fc.constant(REMOVE))), {
      minLength: 1,
      maxLength: maxMutations,
    })
    .map((ops) => {
      let doc = base;
      for (const [i, value] of ops) {
        const path = all[i]!;
        try {
          doc = setAt(doc, path, value);
        } catch {
          /* the path went away with an earlier mutation */
        }
      }
      return doc;
    });
}

export interface TbError {
  status: number;
  message: string;
  errorCode: number;
  timestamp: number;
}

/** The properties every HTTP answer has: no 5xx, and an error is ThingsBoard's error JSON. */
export async function expectWellFormed(res: Response, what: string): Promise<void> {
  const text = await res.text();
  expect(res.status, `${what} answered ${res.status}: ${text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.headers.get('content-type'), what).toMatch(/^application\/json/);
    const body = JSON.parse(text) as TbError;
    expect(Object.keys(body).sort(), what).toEqual(['errorCode', 'message', 'status', 'timestamp']);
    expect(body.status, what).toBe(res.status);
    expect(typeof body.message, what).toBe('string');
  }
}
