import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CORE_NODE_FLAGS } from '../../../scripts/start-plan.ts';

const MODULE = new URL('../../../main/store/worker-heap.ts', import.meta.url).href;

/**
 * A process launched with the core's flags: its main thread's young generation (new space) and that of a
 * worker thread started after workersGetDefaultYoungGeneration() (or without it), in MiB.
 */
async function newSpaces(reset: boolean): Promise<{ main: number; worker: number }> {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { Worker } from 'node:worker_threads';
    import { workersGetDefaultYoungGeneration } from ${JSON.stringify(MODULE)};
    const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    if (${reset}) workersGetDefaultYoungGeneration();
    const worker = new Worker(
      "import { getHeapSpaceStatistics } from 'node:v8'; import { parentPort } from 'node:worker_threads';" +
        'parentPort.postMessage((' + newSpace + ')())',
      { eval: true },
    );
    const inWorker = await new Promise((resolve) => worker.once('message', resolve));
    await worker.terminate();
    console.log(JSON.stringify({ main: newSpace() / 2 ** 20, worker: inWorker / 2 ** 20 }));`;
  const { stdout } = await promisify(execFile)(process.execPath, [
    ...CORE_NODE_FLAGS,
    '--input-type=module',
    '-e',
    script,
  ]);
  return JSON.parse(stdout) as { main: number; worker: number };
}

describe('worker threads young generation', () => {
  it("keeps the network thread's 16 MiB and gives the worker threads started after it V8's default", async () => {
    const [flagsOnly, reset] = await Promise.all([newSpaces(false), newSpaces(true)]);
    expect(flagsOnly).toEqual({ main: 16, worker: 16 });
    expect(reset.main).toBe(16);
    expect(reset.worker).toBeLessThanOrEqual(4);
  });
});
