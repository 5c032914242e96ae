import { describe, expect, it } from 'vitest';
import type { ReplayRun } from '../../../shared/schemas/replay.ts';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.ts';
import { deviceCount, header, saveThermostatProfile, thermostatRecording } from './recording-kit.ts';

const text = (records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n');

/** Reads the replay until it ends (its own checks wait for outcomes; this only follows them). */
async function ended(platform: TestPlatform, token: string, id: string): Promise<ReplayRun> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const run = (await (await platform.http(`/api/sandboard/replays/${id}`, { token })).json()) as ReplayRun;
    if (run.progress.state !== 'running' || Date.now() > deadline) return run;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('POST /api/sandboard/replays', () => {
  it('replays a recording against the running Sandboard itself, with progress and expected against actual for each check', async () => {
    const platform = await startTestPlatform();
    const token = await platform.login();
    await saveThermostatProfile(platform, token, 50);
    const res = await platform.http('/api/sandboard/replays', {
      method: 'POST',
      token,
      json: { file: text(thermostatRecording()), speed: 'max', assert: true },
    });
    expect(res.status).toBe(200);
    const started = (await res.json()) as ReplayRun;
    expect(started.progress).toMatchObject({ messagesTotal: 7, checksTotal: 13 });
    const run = await ended(platform, token, started.id);
    expect(run.progress).toMatchObject({
      state: 'passed',
      messagesSent: 7,
      checksPassed: 13,
      checksFailed: 0,
    });
    const raised = run.report!.checks.find((c) => c.what === "alarm 'High Temperature' raised");
    expect(raised).toMatchObject({
      device: 'Thermostat T1',
      state: 'passed',
      expected: { severity: 'MAJOR' },
      actual: { severity: 'MAJOR', status: 'ACTIVE_UNACK' },
    });
    const list = (await (await platform.http('/api/sandboard/replays', { token })).json()) as ReplayRun[];
    expect(list.map((r) => r.id)).toEqual([started.id]);
  });

  it('answers 400 naming the line and path of a malformed recording, or the profile the Sandboard lacks, writing nothing', async () => {
    const platform = await startTestPlatform();
    const token = await platform.login();
    const before = await deviceCount(platform, token);
    const bad = await platform.http('/api/sandboard/replays', {
      method: 'POST',
      token,
      json: { file: text([header(), { kind: 'mqtt.connect', t: 'soon', device: 'x' }]) },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/line 2, t: /);
    const missing = await platform.http('/api/sandboard/replays', {
      method: 'POST',
      token,
      json: { file: text(thermostatRecording()) },
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toContain(
      "the recording names device profile 'thermostat'",
    );
    const unknown = await platform.http('/api/sandboard/replays', {
      method: 'POST',
      token,
      json: { recordingId: 'nope' },
    });
    expect(unknown.status).toBe(404);
    expect(await deviceCount(platform, token)).toBe(before);
  });
});
