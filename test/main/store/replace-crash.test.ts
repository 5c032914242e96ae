import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DurableDb } from '../../../main/store/durable-db.ts';
import { LATER_ROWS, replacerMigrations, START_ROWS } from '../../fixtures/store-replacer.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const FIXTURE = fileURLToPath(new URL('../../fixtures/store-replacer.ts', import.meta.url));
const CYCLES = 6;

/** Starts the replacer, kills it with SIGKILL `delayMs` after its `after`-th replacement. */
async function runAndKill(
  dir: string,
  image: string,
  mode: string,
  after: number,
  delayMs: number,
): Promise<number> {
  const proc = spawn(process.execPath, ['--no-warnings', FIXTURE, dir, image, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(proc, 'exit');
  const lines = createInterface({ input: proc.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  expect(line).toBe('ready');
  let replaced = 0;
  const kill = () => setTimeout(() => proc.kill('SIGKILL'), delayMs);
  lines.on('line', (l: string) => {
    if (l === 'replaced' && ++replaced === after) kill();
  });
  if (after === 0) kill();
  const [, signal] = (await exited) as [number | null, string | null];
  expect(signal).toBe('SIGKILL');
  return replaced;
}

describe('DurableDb.replaceDatabase under kill -9', () => {
  // inline: a small image is made the snapshot on the store's thread; worker: a large one's export runs
  // in a worker thread. Kills come 0-2 replacements in, at varied points of the next write or replacement.
  it.each(['inline', 'worker'])(
    'leaves either the old database or the image, never a mix (%s)',
    async (mode) => {
      const dir = tempDir();
      const image = join(tempDir(), 'image.sqlite');
      let replaced = 0;
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        replaced += await runAndKill(dir, image, mode, cycle % 3, 10 + cycle * 37);
        const db = await DurableDb.open({ dir, migrations: replacerMigrations });
        try {
          const names = db.all<{ name: string; n: number }>(
            'SELECT name, COUNT(*) AS n FROM items GROUP BY name',
          );
          expect([
            [{ name: 'start', n: START_ROWS }],
            [{ name: 'later', n: START_ROWS + LATER_ROWS }],
          ]).toContainEqual(names);
        } finally {
          await db.close();
        }
      }
      // the kills fell between and inside replacements, not only before the first
      expect(replaced).toBeGreaterThanOrEqual(CYCLES);
    },
    180_000,
  );
});
