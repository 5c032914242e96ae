/**
 * Data key post-processing (a key's `postFuncBody`, ThingsBoard's
 * `function (time, value, prevValue, timePrev, prevOrigValue)`), run in the server's QuickJS sandbox
 * through the rule node script test endpoint, never in the page. Values go in batches of a bounded
 * size; a key whose function fails keeps its raw values and says why.
 */
import type { TestScriptRequest, TestScriptResponse } from '../../../../shared/schemas/rule-script.ts';
import type { ApiClient } from '../../api/client.ts';

export interface RawPoint {
  ts: number;
  value: unknown;
}

export interface PrevPoint {
  value: unknown;
  ts: number;
  orig: unknown;
}

/** points per request (the endpoint takes 100,000 characters of message) */
const BATCH = 500;
const MAX_BODY = 10_000;

function script(body: string): string {
  return [
    'var __fn = function (time, value, prevValue, timePrev, prevOrigValue) {',
    body,
    '\n};',
    'var out = [];',
    'var p = msg.prev;',
    'for (var i = 0; i < msg.points.length; i++) {',
    '  var pt = msg.points[i];',
    '  var v = __fn(pt[0], pt[1], p.value, p.ts, p.orig);',
    '  out.push(v === undefined ? null : v);',
    '  p = { value: v, ts: pt[0], orig: pt[1] };',
    '}',
    'return { out: out };',
  ].join('\n');
}

/** The script test request that runs the function over a batch of points (JS, returns {out: [...]}) . */
export function postProcessRequest(body: string, points: RawPoint[], prev: PrevPoint): TestScriptRequest {
  return {
    script: script(body),
    scriptType: 'json',
    argNames: ['msg', 'metadata', 'msgType'],
    msg: JSON.stringify({ prev, points: points.map((c) => [c.ts, c.value]) }),
  };
}

/** The processed values of a script test's answer, or an Error saying why there are none. */
export function postProcessAnswer(answer: TestScriptResponse, count: number): unknown[] | Error {
  if (answer.error) return new Error(answer.error);
  const values = (JSON.parse(answer.output || 'null') as { out?: unknown[] } | null)?.out;
  if (!Array.isArray(values) || values.length !== count) return new Error('the function returned no values');
  return values;
}

/** Runs one key's function over points in order; resolves to the processed values (same length). */
export async function postProcess(
  client: ApiClient,
  body: string,
  points: RawPoint[],
  prev: PrevPoint,
): Promise<unknown[]> {
  if (body.length > MAX_BODY) throw new Error(`the function is longer than ${MAX_BODY} characters`);
  const out: unknown[] = [];
  let p = prev;
  for (let i = 0; i < points.length; i += BATCH) {
    const chunk = points.slice(i, i + BATCH);
    const answer = await client.testScript(
      {
        script: script(body),
        scriptType: 'json',
        argNames: ['msg', 'metadata', 'msgType'],
        msg: JSON.stringify({ prev: p, points: chunk.map((c) => [c.ts, c.value]) }),
      },
      'JS',
    );
    if (answer.error) throw new Error(answer.error);
    const values = (JSON.parse(answer.output) as { out?: unknown[] } | null)?.out;
    if (!Array.isArray(values) || values.length !== chunk.length)
      throw new Error('the function returned no values');
    out.push(...values);
    const last = chunk[chunk.length - 1]!;
    p = { value: values[values.length - 1], ts: last.ts, orig: last.value };
  }
  return out;
}
