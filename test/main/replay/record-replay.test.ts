/**
 * End to end: a fleet recorded on one Sandboard (by its recorder, real MQTT clients, REST RPC) replays on
 * a fresh one with every check passing, then fails naming the alarm once the alarm threshold changes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseRecording } from '../../../shared/schemas/recording.ts';
import type { RecordingInfo } from '../../../shared/schemas/recordings-api.ts';
import { replayRecording } from '../../../main/replay/replay-run.ts';
import { alarm, numeric, profileWithAlarms, rule } from '../../fixtures/alarm-rules.ts';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.ts';
import { okJson } from '../api/api-kit.ts';
import { closeAll, connect, publish, publishOk, subscribeOk } from '../transport/mqtt/mqtt-kit.ts';

const profile = (threshold: number) =>
  profileWithAlarms('Thermostats', [
    alarm(
      'High Temperature',
      { CRITICAL: rule([numeric('temperature', 'GREATER', threshold)]) },
      rule([numeric('temperature', 'LESS', 25)]),
    ),
  ]);

async function record(): Promise<string> {
  const p = await startTestPlatform();
  const token = await p.login();
  const saved = await okJson<{ id: { id: string } }>(
    p.http('/api/deviceProfile', { method: 'POST', token, json: profile(30) }),
  );
  const device = await okJson<{ id: { id: string } }>(
    p.http('/api/device?accessToken=rec-t1', {
      method: 'POST',
      token,
      json: { name: 'Thermostat 1', deviceProfileId: { entityType: 'DEVICE_PROFILE', id: saved.id.id } },
    }),
  );
  const rec = await okJson<RecordingInfo>(
    p.http('/api/sandboard/recordings', { method: 'POST', token, json: { durationMs: 60_000, name: 'lab' } }),
  );
  const t1 = await connect(p.urls.mqtt, 'rec-t1', 5);
  await subscribeOk(t1, 'v1/devices/me/rpc/request/+');
  t1.on('message', (topic) => {
    const m = /rpc\/request\/(\d+)$/.exec(topic);
    if (m)
      t1.publish(`v1/devices/me/rpc/response/${m[1]}`, JSON.stringify({ ok: true, mode: 'eco' }), { qos: 1 });
  });
  await publishOk(t1, 'v1/devices/me/telemetry', { temperature: 33 });
  expect(await publish(t1, 'v1/devices/me/nowhere', { a: 1 })).toMatchObject({ code: 0x90 });
  await okJson(
    p.http(`/api/rpc/twoway/${device.id.id}`, {
      method: 'POST',
      token,
      json: { method: 'setMode', params: { mode: 'eco' } },
    }),
  );
  await publishOk(t1, 'v1/devices/me/telemetry', { temperature: 21, mode: 'eco' });
  // the alarm is cleared before the recording ends (its outcome is recorded as it happens)
  const alarms = async () =>
    (
      await okJson<{ data: { cleared: boolean }[] }>(
        p.http(`/api/alarm/DEVICE/${device.id.id}?pageSize=10&page=0`, { token }),
      )
    ).data;
  for (let i = 0; i < 100 && !(await alarms()).some((a) => a.cleared); i++)
    await new Promise((r) => setTimeout(r, 50));
  await okJson(p.http(`/api/sandboard/recordings/${rec.id}/stop`, { method: 'POST', token }));
  const text = await (await p.http(`/api/sandboard/recordings/${rec.id}/file`, { token })).text();
  await p.stop();
  return text;
}

async function freshTarget(
  threshold: number,
): Promise<{ p: TestPlatform; token: string; profileId: string }> {
  const p = await startTestPlatform();
  const token = await p.login();
  const saved = await okJson<{ id: { id: string } }>(
    p.http('/api/deviceProfile', { method: 'POST', token, json: profile(threshold) }),
  );
  return { p, token, profileId: saved.id.id };
}

describe('record, then replay', () => {
  afterEach(closeAll);

  it('a recording of a thermostat with RPC and an alarm replays on a fresh Sandboard with every check passing; raising the threshold fails it, naming the alarm', async () => {
    const text = await record();
    const { recording, issues } = parseRecording(text);
    expect(issues).toEqual([]);
    const kinds = new Set(recording!.records.map((r) => r.kind));
    for (const k of ['rpc.request', 'rpc.response', 'expect.rpc', 'expect.alarm', 'expect.latest'])
      expect(kinds, k).toContain(k);

    const target = await freshTarget(30);
    const options = {
      http: target.p.urls.http,
      mqtt: target.p.urls.mqtt,
      auth: { username: 'tenant@thingsboard.org', password: 'tenant' },
      speed: 'max' as const,
      assert: true,
      checkTimeoutMs: 3000,
    };
    const passed = await replayRecording(recording!, options);
    expect(passed.checks.filter((c) => c.state !== 'passed')).toEqual([]);
    expect(passed.checks.map((c) => c.what)).toEqual(
      expect.arrayContaining([
        "alarm 'High Temperature' raised",
        "alarm 'High Temperature' cleared",
        expect.stringMatching(/^RPC setMode/),
        expect.stringMatching(/^latest /),
      ]),
    );
    expect(passed.answers).toEqual([{ device: 'Thermostat 1', passed: expect.any(Number), failed: 0 }]);
    expect(passed.state).toBe('passed');

    await okJson(
      target.p.http('/api/deviceProfile', {
        method: 'POST',
        token: target.token,
        json: { ...profile(40), id: { entityType: 'DEVICE_PROFILE', id: target.profileId } },
      }),
    );
    const failed = await replayRecording(recording!, options);
    expect(failed.state).toBe('failed');
    expect(
      failed.checks
        .filter((c) => c.state === 'failed')
        .map((c) => `${c.device}: ${c.what}: ${c.mismatches[0]}`),
    ).toEqual(
      expect.arrayContaining(["Thermostat 1: alarm 'High Temperature' raised: expected it raised, none was"]),
    );
  });
});
