/**
 * Recordings in the sandbox file: carried into a fresh instance (listed and downloaded equal, and they
 * replay there), left out on request, planned as new / replaced / conflicting, refused whole when a
 * recording line is cut or over the recordings' bound, and brought back exactly by a reset to the class
 * start. Real platforms, real MQTT devices, real HTTP.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordingInfo, RecordingList } from '../../../shared/schemas/recordings-api.ts';
import type { ReplayRun } from '../../../shared/schemas/replay.ts';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { closeAll, connect, publishOk } from '../transport/mqtt/mqtt-kit.ts';
import { okJson } from './api-kit.ts';

const UPLOAD = { 'content-type': 'application/octet-stream' };

interface Lab {
  p: TestPlatform;
  token: string;
}

async function lab(overrides: Parameters<typeof startTestPlatform>[0] = {}): Promise<Lab> {
  const p = await startTestPlatform(overrides);
  return { p, token: await p.login() };
}

/** A device (by its token) and a finished recording of it sending telemetry twice. */
async function record(l: Lab, name: string, accessToken: string): Promise<RecordingInfo> {
  const { p, token } = l;
  const existing = await p.http(`/api/tenant/devices?deviceName=${encodeURIComponent(accessToken)}`, {
    token,
  });
  if (existing.status !== 200)
    await okJson(
      p.http(`/api/device?accessToken=${accessToken}`, {
        method: 'POST',
        token,
        json: { name: accessToken, type: 'default' },
      }),
    );
  const rec = await okJson<RecordingInfo>(
    p.http('/api/sandboard/recordings', { method: 'POST', token, json: { durationMs: 60_000, name } }),
  );
  const device = await connect(p.urls.mqtt, accessToken, 4);
  await publishOk(device, 'v1/devices/me/telemetry', { temperature: 21 });
  await publishOk(device, 'v1/devices/me/telemetry', { temperature: 22, mode: 'eco' });
  await device.endAsync();
  return okJson<RecordingInfo>(p.http(`/api/sandboard/recordings/${rec.id}/stop`, { method: 'POST', token }));
}

const list = async (l: Lab) =>
  (await okJson<RecordingList>(l.p.http('/api/sandboard/recordings', { token: l.token }))).recordings;
/** what a user compares of two listings (the bound a recording got when it started is the instance's) */
const shown = (rs: RecordingInfo[]) =>
  rs.map(({ id, name, state, startedAt, durationMs, recordedMs, records, bytes, truncated, reason }) => ({
    id,
    name,
    state,
    startedAt,
    durationMs,
    recordedMs,
    records,
    bytes,
    truncated,
    reason,
  }));
const fileText = async (l: Lab, id: string) =>
  (await l.p.http(`/api/sandboard/recordings/${id}/file`, { token: l.token })).text();

async function exportText(l: Lab, query = 'includePasswords=true') {
  const res = await l.p.http(`/api/sandboard/sandbox/export?${query}`, { token: l.token });
  expect(res.status).toBe(200);
  return res.text();
}

const upload = (l: Lab, body: string, query: string) =>
  l.p.http(`/api/sandboard/sandbox/import${query}`, {
    method: 'POST',
    token: l.token,
    headers: UPLOAD,
    body,
  });

const linesOf = (file: string) =>
  file
    .trim()
    .split('\n')
    .map((t) => JSON.parse(t) as Record<string, unknown>);

describe('recordings in the sandbox file', () => {
  afterEach(closeAll);

  it('carries a recording into a fresh instance, listed and downloaded equal, and it replays there', async () => {
    const a = await lab();
    const made = await record(a, 'lab', 'rec-thermo');
    const file = await exportText(a);
    const lines = linesOf(file);
    expect(lines[0]).toMatchObject({
      version: 2,
      includes: { recordings: true },
      counts: { recordings: 1 },
    });
    expect(lines[1]).toMatchObject({ recording: { id: made.id, part: 0, last: true } });

    const b = await lab();
    const plan = await okJson<{
      tables: Record<string, unknown>;
      items: { table: string; action: string }[];
    }>(upload(b, file, '?dryRun=true'));
    expect(plan.tables.recordings).toEqual({ new: 1, replace: 0, conflict: 0 });
    expect(plan.items).toContainEqual(
      expect.objectContaining({ table: 'recordings', name: 'lab', action: 'new' }),
    );
    const result = await okJson<{ tables: Record<string, number> }>(
      upload(b, file, '?replaceAll=true&wait=true'),
    );
    expect(result.tables.recordings).toBe(1);
    b.token = await b.p.login(); // A's tenant came along
    await expect.poll(async () => shown(await list(b))).toEqual(shown(await list(a)));
    expect(await fileText(b, made.id)).toBe(await fileText(a, made.id));

    const run = await okJson<ReplayRun>(
      b.p.http('/api/sandboard/replays', {
        method: 'POST',
        token: b.token,
        json: { recordingId: made.id, speed: 'max' },
      }),
    );
    await expect
      .poll(
        async () =>
          (await okJson<ReplayRun>(b.p.http(`/api/sandboard/replays/${run.id}`, { token: b.token })))
            .progress,
        { timeout: 20_000 },
      )
      .toMatchObject({ state: 'passed', checksFailed: 0, messagesSent: expect.any(Number) });

    // without recordings: a version 1 file, and an instance that becomes it keeps its own recordings
    const bare = await exportText(a, 'recordings=false');
    const bareLines = linesOf(bare);
    expect(bareLines[0]).toMatchObject({ version: 1, includes: { history: false } });
    expect(bareLines[0]!.includes).not.toHaveProperty('recordings');
    expect(bareLines.some((l) => 'recording' in l)).toBe(false);
    await okJson(upload(b, bare, '?replaceAll=true&wait=true'));
    b.token = await b.p.login();
    expect(shown(await list(b))).toEqual(shown(await list(a)));
  });

  it('plans a recording of the same name as a conflict and follows keep, rename and replace', async () => {
    const a = await lab();
    const theirs = await record(a, 'lab', 'rec-a');
    const file = await exportText(a);
    const b = await lab();
    const ours = await record(b, 'lab', 'rec-b');
    const plan = await okJson<{ tables: Record<string, unknown>; items: unknown[] }>(
      upload(b, file, '?dryRun=true'),
    );
    expect(plan.tables.recordings).toEqual({ new: 0, replace: 0, conflict: 1 });
    expect(plan.items).toContainEqual({
      table: 'recordings',
      id: theirs.id,
      name: 'lab',
      action: 'conflict',
      otherId: ours.id,
    });

    await okJson(upload(b, file, '?wait=true&onConflict=keep'));
    await expect.poll(async () => (await list(b)).map((r) => [r.id, r.name])).toEqual([[ours.id, 'lab']]);
    await okJson(upload(b, file, '?wait=true&onConflict=rename'));
    await expect
      .poll(async () => (await list(b)).map((r) => r.name).sort())
      .toEqual(['lab', 'lab (imported)']);
    const again = await okJson<{ tables: Record<string, unknown> }>(upload(b, file, '?dryRun=true'));
    expect(again.tables.recordings).toEqual({ new: 0, replace: 1, conflict: 0 });
  });

  it('refuses a cut recording line, a bad record and recordings over the bound, touching nothing', async () => {
    const a = await lab();
    await record(a, 'lab', 'rec-a');
    const file = await exportText(a);
    const lines = file.trim().split('\n');
    const at = lines.findIndex((l) => l.startsWith('{"recording"'));
    expect(at).toBe(1);

    const dataDir = tempDir();
    const b = await lab({ dataDir, recordingsMaxBytes: 600 });
    await okJson(
      b.p.http('/api/device', { method: 'POST', token: b.token, json: { name: 'Kept', type: 'default' } }),
    );
    const before = {
      devices: b.p.db.all('SELECT id, name FROM devices ORDER BY id'),
      recordings: await list(b),
    };
    const untouched = async () => {
      expect({
        devices: b.p.db.all('SELECT id, name FROM devices ORDER BY id'),
        recordings: await list(b),
      }).toEqual(before);
      const dir = join(dataDir, 'recordings');
      expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    };

    const cut = [...lines];
    cut[at] = lines[at]!.slice(0, lines[at]!.length >> 1);
    const r1 = await upload(b, `${cut.join('\n')}\n`, '?replaceAll=true&wait=true');
    expect(r1.status).toBe(400);
    expect(((await r1.json()) as { message: string }).message).toContain(
      `line ${at + 1}: is not JSON (is the file cut short?)`,
    );
    await untouched();

    const bad = [...lines];
    const part = JSON.parse(lines[at]!) as { recording: { records: Record<string, unknown>[] } };
    part.recording.records[1] = { ...part.recording.records[1], kind: 'mqtt.nothing' };
    bad[at] = JSON.stringify(part);
    const r2 = await upload(b, `${bad.join('\n')}\n`, '?replaceAll=true&wait=true');
    expect(r2.status).toBe(400);
    expect(((await r2.json()) as { message: string }).message).toMatch(
      new RegExp(`line ${at + 1}: recording\\.records\\[1\\]\\.kind: must be one of`),
    );
    await untouched();

    const r3 = await upload(b, file, '?replaceAll=true&wait=true');
    expect(r3.status).toBe(413);
    expect(await r3.json()).toMatchObject({
      status: 413,
      errorCode: 31,
      message: expect.stringMatching(
        /recordings take .* MiB.* more than the 0 MiB recordings may take \(SANDBOARD_RECORDINGS_MAX_MB\)/,
      ),
    });
    await untouched();
  });

  it('saves recordings with the class start; a reset brings them back and removes those made after', async () => {
    const a = await lab();
    const first = await record(a, 'warm-up', 'rec-a');
    await okJson(a.p.http('/api/sandboard/sandbox/classStart', { method: 'POST', token: a.token }));
    const atStart = shown(await list(a));
    await record(a, 'exercise', 'rec-a');
    await okJson(
      a.p.http(`/api/sandboard/recordings/${first.id}`, {
        method: 'PUT',
        token: a.token,
        json: { name: 'renamed' },
      }),
    );
    const status = await okJson<{
      savedCounts: Record<string, number>;
      currentCounts: Record<string, number>;
    }>(a.p.http('/api/sandboard/sandbox/classStart', { token: a.token }));
    expect(status.savedCounts.recordings).toBe(1);
    expect(status.currentCounts.recordings).toBe(2);
    await okJson(a.p.http('/api/sandboard/sandbox/classStart/reset', { method: 'POST', token: a.token }));
    await expect.poll(async () => shown(await list(a))).toEqual(atStart);
  });
});
