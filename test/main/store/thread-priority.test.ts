import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { BACKGROUND_NICE } from '../../../main/store/thread-priority.ts';

const MODULE = new URL('../../../main/store/thread-priority.ts', import.meta.url).href;
/** the nice value of this process's main thread (field 19 of /proc/self/stat) */
const ownNice = () => Number(readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ')[16]);

describe.runIf(process.platform === 'linux')('background thread priority', () => {
  it('lowers the calling worker thread only, not the network thread', async () => {
    const before = ownNice();
    const worker = new Worker(
      `const { readFileSync } = require('node:fs');
       import(${JSON.stringify(MODULE)}).then((m) => {
         const lowered = m.lowerThreadPriority();
         const nice = Number(readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ')[16]);
         require('node:worker_threads').parentPort.postMessage({ lowered, nice });
       });`,
      { eval: true },
    );
    const reply = await new Promise<{ lowered: boolean; nice: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(reply).toEqual({ lowered: true, nice: Math.max(before, BACKGROUND_NICE) });
    expect(ownNice()).toBe(before);
  });
});
