/**
 * `sandboard serve` killed with SIGKILL while it records: the recording, cut without its end record (and
 * with a line half written), is listed as interrupted after the restart and its file reads whole.
 */
import { once } from 'node:events';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRecording } from '../../../shared/schemas/recording.ts';
import type { RecordingInfo, RecordingList } from '../../../shared/schemas/recordings-api.ts';
import { FREE_PORTS, serveLogin, serveRest, startServe } from '../../helpers/serve-process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { closeAll, connect, publishOk } from '../transport/mqtt/mqtt-kit.ts';

const PUBLISHES = 5;

describe('a recording cut by kill -9', () => {
  afterEach(closeAll);

  it('is listed as interrupted after the restart, and its file parses with every publish written', async () => {
    const dataDir = tempDir();
    const serve = await startServe(['--data-dir', dataDir, ...FREE_PORTS]);
    const token = await serveLogin(serve);
    const json = (body: unknown) => ({ method: 'POST', token, body: JSON.stringify(body) });
    await serveRest(serve, '/api/device?accessToken=crash-meter', json({ name: 'Crash meter' }));
    const rec = await serveRest<RecordingInfo>(
      serve,
      '/api/sandboard/recordings',
      json({ durationMs: 600_000 }),
    );
    const path = join(dataDir, 'recordings', `${rec.id}.ndjson`);

    const client = await connect(serve.urls.mqtt, 'crash-meter', 5);
    for (let n = 1; n <= PUBLISHES; n++) await publishOk(client, 'v1/devices/me/telemetry', { n });
    // the recorder appends in batches: wait until the last publish is in the file
    const written = () => readFileSync(path, 'utf8').includes(`{\\"n\\":${PUBLISHES}}`);
    while (!written()) await new Promise((resolve) => setTimeout(resolve, 20));

    serve.child.kill('SIGKILL');
    await once(serve.child, 'exit');
    // as if the kill had cut a write in the middle of a line
    appendFileSync(path, '{"kind":"mqtt.publish","t":99,"dev');

    const again = await startServe(['--data-dir', dataDir, ...FREE_PORTS]);
    const token2 = await serveLogin(again);
    const { recordings } = await serveRest<RecordingList>(again, '/api/sandboard/recordings', {
      token: token2,
    });
    expect(recordings).toMatchObject([
      { id: rec.id, state: 'interrupted', truncated: false, reason: expect.stringMatching(/no end record/) },
    ]);
    const res = await fetch(`${again.urls.http}/api/sandboard/recordings/${rec.id}/file`, {
      headers: { 'x-authorization': `Bearer ${token2}` },
    });
    const { recording, issues } = parseRecording(await res.text());
    expect(issues).toEqual([]);
    expect(recording!.end).toBeUndefined();
    expect(recordings[0]!.records).toBe(recording!.records.length);
    expect(
      recording!.records.flatMap((r) => (r.kind === 'mqtt.publish' ? [[r.device, r.payload, r.expect]] : [])),
    ).toEqual(
      Array.from({ length: PUBLISHES }, (_, i) => ['Crash meter', `{"n":${i + 1}}`, { reasonCode: 0 }]),
    );
  }, 120_000);
});
