import { describe, expect, it } from 'vitest';
import { testScript } from '../../../../main/rule-engine/script/test-script.ts';
import {
  postProcessAnswer,
  postProcessRequest,
} from '../../../../renderer/src/pages/dashboards/post-process.ts';

const points = [
  { ts: 1000, value: 20 },
  { ts: 2000, value: 22 },
  { ts: 3000, value: 25 },
];

describe('data key post-processing in the sandbox', () => {
  it("runs ThingsBoard's function over a batch in order, with the previous processed value and time", async () => {
    const req = postProcessRequest('return value * 1.8 + 32;', points, { value: null, ts: 0, orig: null });
    expect(postProcessAnswer(await testScript(req, 'JS'), 3)).toEqual([68, 71.6, 77]);
    const deltas = postProcessRequest(
      'return prevValue === null ? 0 : value - prevOrigValue + (time - timePrev) / 1000;',
      points,
      { value: null, ts: 0, orig: null },
    );
    expect(postProcessAnswer(await testScript(deltas, 'JS'), 3)).toEqual([0, 3, 4]);
  });

  it('a function that throws, loops or returns nothing gives an error, not values', async () => {
    const prev = { value: null, ts: 0, orig: null };
    const thrown = postProcessAnswer(
      await testScript(postProcessRequest('throw new Error("bad key")', points, prev), 'JS'),
      3,
    );
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toContain('bad key');
    const looped = postProcessAnswer(
      await testScript(postProcessRequest('while (true) {}', points, prev), 'JS'),
      3,
    );
    expect(looped).toBeInstanceOf(Error);
    // a body that closes the wrapper early still runs only inside the sandbox and fails there
    const escaped = postProcessAnswer(
      await testScript(postProcessRequest('}; return 1; {', points, prev), 'JS'),
      3,
    );
    expect(escaped).toBeInstanceOf(Error);
  });
});
