/**
 * A sandbox import killed between its store write and moving its recordings into place: the next start
 * finishes the move when the store write committed, and drops the staged files when it did not, so the
 * recordings always follow the store. A manifest cut short, or naming files outside the folder, is
 * dropped. Real platforms, a real recording made over MQTT, real files.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordingInfo, RecordingList } from '../../../shared/schemas/recordings-api.ts';
import { configFromEnv } from '../../../main/config.ts';
import { migrations } from '../../../main/platform/migrations.ts';
import { LAST_IMPORT_KEY } from '../../../main/platform/sandbox/sandbox-apply.ts';
import { readSandbox } from '../../../main/platform/sandbox/sandbox-read.ts';
import { recordingsInSandbox } from '../../../main/recording/recordings-sandbox.ts';
import { DurableDb } from '../../../main/store/durable-db.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { okJson } from '../api/api-kit.ts';
import { closeAll } from '../transport/mqtt/mqtt-kit.ts';
import { recordOneMessage } from './recording-kit.ts';

/** A sandbox file from a platform holding one finished recording, and that recording. */
async function exportWithRecording(): Promise<{ file: string; made: RecordingInfo }> {
  const p = await startTestPlatform();
  const token = await p.login();
  const made = await recordOneMessage(p, token, {
    accessToken: 'rec-kill',
    deviceName: 'rec-kill',
    name: 'killed',
    telemetry: { temperature: 21 },
  });
  const file = await (await p.http('/api/sandboard/sandbox/export', { token })).text();
  await p.stop();
  return { file, made };
}

/** Leaves a data dir as a kill would after staging the file's recordings, with or without the store write. */
async function killedImport(file: string, storeCommitted: boolean): Promise<string> {
  const dataDir = tempDir();
  const config = configFromEnv({});
  const parsed = await readSandbox(Readable.from([file]), { maxBytes: 64 * 1024 * 1024 });
  const recordings = recordingsInSandbox({
    dir: join(dataDir, 'recordings'),
    maxBytes: config.recordingMaxBytes,
    totalMaxBytes: config.recordingsMaxBytes,
  });
  const db = await DurableDb.open({ dir: dataDir, migrations });
  await recordings.stage(parsed.attached.get('recording') ?? [], {
    replaceAll: false,
    onConflict: 'keep',
    header: parsed.header,
    importId: 'import-1',
  });
  if (storeCommitted)
    await db.write((w) =>
      w.run('INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)', [LAST_IMPORT_KEY, 'import-1']),
    );
  await db.close();
  return dataDir;
}

async function listedAfterStart(dataDir: string) {
  const p = await startTestPlatform({ dataDir });
  const token = await p.login();
  const { recordings } = await okJson<RecordingList>(p.http('/api/sandboard/recordings', { token }));
  return recordings;
}

describe('a sandbox import killed before its recordings were moved into place', () => {
  afterEach(closeAll);

  it('is finished at the next start when the store write committed, and dropped when it did not', async () => {
    const { file, made } = await exportWithRecording();

    const committed = await killedImport(file, true);
    expect(readdirSync(join(committed, 'recordings'))).toContain(`${made.id}.ndjson.import`);
    const listed = await listedAfterStart(committed);
    expect(listed.map((r) => [r.id, r.name, r.records])).toEqual([[made.id, made.name, made.records]]);
    expect(readdirSync(join(committed, 'recordings')).filter((f) => f.includes('import'))).toEqual([]);

    const cut = await killedImport(file, true);
    const manifest = join(cut, 'recordings', 'import-pending.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').slice(0, 20));
    expect(await listedAfterStart(cut)).toEqual([]);
    expect(readdirSync(join(cut, 'recordings'))).toEqual([]);

    const hostile = await killedImport(file, true);
    const victim = join(hostile, 'victim.ndjson');
    writeFileSync(victim, 'kept\n');
    writeFileSync(
      join(hostile, 'recordings', 'import-pending.json'),
      JSON.stringify({ importId: 'import-1', removed: ['../victim'], written: [made.id] }),
    );
    expect(await listedAfterStart(hostile)).toEqual([]);
    expect(readFileSync(victim, 'utf8')).toBe('kept\n');

    const notCommitted = await killedImport(file, false);
    expect(await listedAfterStart(notCommitted)).toEqual([]);
    expect(readdirSync(join(notCommitted, 'recordings'))).toEqual([]);
  });
});
