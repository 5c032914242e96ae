import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  liveSandboxWorkers,
  sandboxMemoryBound,
} from '../../../../main/rule-engine/script/script-sandbox.ts';
import { serveLogin, serveRest, startServe, FREE_PORTS } from '../../../helpers/serve-process.ts';
import { tempDir } from '../../../helpers/temp-dir.ts';
import { chainFile, type MetadataJson } from '../chain-kit.ts';
import { generatorNode, serveNodeFailures as failures } from '../serve-chain-kit.ts';

const HOG = 'var a = [];\nwhile (true) a.push(new Float64Array(100000));';
const MiB = 1024 * 1024;

/** VmRSS (now) or VmHWM (the peak) of a process, in bytes (Linux). */
function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

describe.runIf(process.platform === 'linux')('script memory on a real server', () => {
  it('typed-array hogs in chains and in script tests leave RSS within the README bound', async () => {
    const serve = await startServe(['--data-dir', tempDir(), ...FREE_PORTS]);
    const pid = serve.child.pid!;
    const token = await serveLogin(serve);
    const before = memoryOf(pid, 'VmRSS');
    // three hogs in a chain (three scripts: they spread over the live workers) and eight script tests
    const names = ['Hog 1', 'Hog 2', 'Hog 3'];
    const file = chainFile(
      'Hogs',
      names.map((name) => generatorNode(name, HOG)),
      [],
    );
    const chain = await serveRest<{ metadata: MetadataJson }>(serve, '/api/sandboard/ruleChain/import', {
      method: 'POST',
      token,
      body: JSON.stringify(file),
    });
    const tests = Array.from({ length: 8 }, () =>
      serveRest<{ output: string; error: string }>(serve, '/api/ruleChain/testScript?scriptLang=JS', {
        method: 'POST',
        token,
        body: JSON.stringify({
          script: HOG,
          scriptType: 'update',
          argNames: ['msg', 'metadata', 'msgType'],
          msg: '{}',
          metadata: {},
          msgType: 'POST_TELEMETRY_REQUEST',
        }),
      }),
    );
    for (const t of await Promise.all(tests))
      expect(t.error).toMatch(/memory limit|time limit|Too many|overloaded/);
    // each hog fails three times in a row, then it is suspended
    for (const node of chain.metadata.nodes) {
      for (;;) {
        const list = await failures(serve, token, node.id.id);
        if (list.some((e) => e.startsWith('Script suspended after 3 failures in a row'))) break;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    const peak = memoryOf(pid, 'VmHWM');
    const bound = sandboxMemoryBound(liveSandboxWorkers() + 1);
    expect(
      peak - before,
      `RSS grew by ${Math.round((peak - before) / MiB)} MiB; bound ${bound / MiB} MiB`,
    ).toBeLessThanOrEqual(bound);
    expect(serve.child.exitCode).toBeNull();
  }, 120_000);
});
