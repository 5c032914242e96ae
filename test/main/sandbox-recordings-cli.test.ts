/**
 * The offline command line carries recordings: `sandboard sandbox export` of a stopped instance writes
 * them (or, with --no-recordings, not), and `sandbox import` puts them into another data directory,
 * where the next start lists them.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordingList } from '../../shared/schemas/recordings-api.ts';
import { startTestPlatform } from '../helpers/platform.ts';
import { SANDBOARD_BIN } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { okJson } from './api/api-kit.ts';
import { recordOneMessage } from './recording/recording-kit.ts';
import { closeAll } from './transport/mqtt/mqtt-kit.ts';

const run = promisify(execFile);
const cli = (...args: string[]) => run(process.execPath, [SANDBOARD_BIN, 'sandbox', ...args]);
const header = (path: string) =>
  JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!) as {
    version: number;
    counts: Record<string, number>;
  };

describe('sandbox command line with recordings', () => {
  afterEach(closeAll);

  it('exports a stopped instance with its recordings and imports them into another data directory', async () => {
    const from = tempDir();
    const a = await startTestPlatform({ dataDir: from });
    const token = await a.login();
    const rec = await recordOneMessage(a, token, {
      accessToken: 'cli-rec',
      deviceName: 'Meter',
      name: 'cli',
      telemetry: { power: 5 },
    });
    const recorded = readFileSync(join(from, 'recordings', `${rec.id}.ndjson`), 'utf8');
    await a.stop();

    const out = tempDir();
    const file = join(out, 'with.sandbox.jsonl');
    await cli('export', file, '--data-dir', from, '--include-passwords');
    expect(header(file)).toMatchObject({ version: 2, counts: { recordings: 1 } });
    const bare = join(out, 'bare.sandbox.jsonl');
    await cli('export', bare, '--data-dir', from, '--no-recordings');
    expect(header(bare).version).toBe(1);
    expect(readFileSync(bare, 'utf8')).not.toContain('"recording"');

    const to = tempDir();
    const plan = await cli('import', file, '--data-dir', to, '--dry-run');
    expect(plan.stdout).toMatch(/recordings: 1 new, 0 replaced, 0 conflicting/);
    const done = await cli('import', file, '--data-dir', to, '--replace-all');
    expect(done.stdout).toMatch(/Imported \d+ rows, \d+ telemetry rows and 1 recordings/);
    expect(readFileSync(join(to, 'recordings', `${rec.id}.ndjson`), 'utf8')).toBe(recorded);

    const b = await startTestPlatform({ dataDir: to });
    const list = await okJson<RecordingList>(b.http('/api/sandboard/recordings', { token: await b.login() }));
    expect(list.recordings.map((r) => [r.id, r.name, r.state, r.records])).toEqual([
      [rec.id, 'cli', 'stopped', expect.any(Number)],
    ]);
    expect(list.recordings[0]!.records).toBeGreaterThan(0);
  }, 120_000);
});
