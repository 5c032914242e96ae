import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DurableDb } from '../../../main/store/durable-db.ts';
import { BARRIER_ROWS, barrierMigrations } from '../../fixtures/store-barrier-writer.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const FIXTURE = fileURLToPath(new URL('../../fixtures/store-barrier-writer.ts', import.meta.url));
const CYCLES = 6;

interface Run {
  acked: number[];
  /** the import batches acknowledged */
  imported: number[];
  /** the batch whose turn the kill followed */
  turnBatch: number;
}

/** Starts the writer and kills it with SIGKILL at its `killAtTurn`th import turn (0: at its first "imported"). */
async function runAndKill(dir: string, killAtTurn: number): Promise<Run> {
  const proc = spawn(process.execPath, ['--no-warnings', FIXTURE, dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(proc, 'exit');
  const run: Run = { acked: [], imported: [], turnBatch: 0 };
  let turns = 0;
  createInterface({ input: proc.stdout! }).on('line', (line: string) => {
    const [word, value] = line.split(' ');
    if (word === 'ack') run.acked.push(Number(value));
    if (word === 'imported') run.imported.push(Number(value));
    if (word === 'turn') run.turnBatch = Number(value);
    const killNow = killAtTurn === 0 ? word === 'imported' : word === 'turn' && ++turns === killAtTurn;
    if (killNow) proc.kill('SIGKILL');
  });
  const [, signal] = (await exited) as [number | null, string | null];
  expect(signal).toBe('SIGKILL');
  return run;
}

describe('DurableDb.exclusive under kill -9', () => {
  it('leaves an import spread over many turns absent or whole, and every acknowledged write beside it', async () => {
    const dir = tempDir();
    const acked: number[] = [];
    const imported: number[] = [];
    let midImport = 0;
    // kills inside an import's turns, and right after one is acknowledged (the next one is then starting)
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const run = await runAndKill(dir, cycle % 3 === 2 ? 0 : 3 + cycle * 7);
      acked.push(...run.acked);
      imported.push(...run.imported);
      if (run.turnBatch > Math.max(0, ...run.imported)) midImport++;
      const db = await DurableDb.open({ dir, migrations: barrierMigrations });
      try {
        const batches = db.all<{ batch: number; n: number }>(
          'SELECT batch, COUNT(*) AS n FROM imported GROUP BY batch ORDER BY batch',
        );
        for (const b of batches) expect(b, `batch ${b.batch} is whole`).toEqual({ ...b, n: BARRIER_ROWS });
        const present = new Set(batches.map((b) => b.batch));
        for (const b of imported) expect(present.has(b), `acknowledged import ${b}`).toBe(true);
        const others = new Set(db.all<{ id: number }>('SELECT id FROM others').map((r) => r.id));
        for (const id of acked) expect(others.has(id), `acknowledged write ${id}`).toBe(true);
      } finally {
        await db.close();
      }
    }
    // the kills fell inside imports, and other writes were acknowledged between them
    expect(midImport).toBeGreaterThanOrEqual(CYCLES / 2);
    expect(imported.length).toBeGreaterThan(0);
    expect(acked.length).toBeGreaterThan(0);
  }, 120_000);
});
