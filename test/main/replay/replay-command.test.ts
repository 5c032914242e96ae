import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runReplayCommand } from '../../../main/replay/replay-command.ts';
import { RECORDING_VERSION } from '../../../shared/schemas/recording.ts';
import { junitCases, junitProblems } from '../../helpers/junit-schema.ts';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.ts';
import { SANDBOARD_BIN } from '../../helpers/serve-process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import {
  deviceCount,
  header,
  saveThermostatProfile,
  thermostatRecording,
  writeRecording,
} from './recording-kit.ts';

/** The command in this process against the platform, its output collected. */
async function replay(
  platform: TestPlatform,
  file: string,
  ...flags: string[]
): Promise<{ code: number; out: string; err: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks = { out: '', err: '' };
  out.on('data', (d: Buffer) => (chunks.out += d.toString()));
  err.on('data', (d: Buffer) => (chunks.err += d.toString()));
  const code = await runReplayCommand([file, ...targetFlags(platform), ...flags], out, err);
  return { code, ...chunks };
}

const targetFlags = (platform: TestPlatform) => [
  '--http',
  platform.urls.http,
  '--mqtt',
  platform.urls.mqtt,
  '--username',
  'tenant@thingsboard.org',
  '--password',
  'tenant',
];

describe('sandboard replay', () => {
  it('replays a recording with RPC and alarms on a fresh instance: every check passes, at real speed and at max; after the alarm threshold changes, it fails naming the alarm', async () => {
    const platform = await startTestPlatform();
    const token = await platform.login();
    const profileId = await saveThermostatProfile(platform, token, 50);
    const file = writeRecording(thermostatRecording());
    const report = join(tempDir(), 'junit.xml');

    const first = await replay(platform, file, '--assert', '--speed', '1', '--report', report);
    expect(first.err).toBe('');
    expect(first.out).toContain("PASS  Thermostat T1: alarm 'High Temperature' raised");
    expect(first.out).toContain("PASS  Thermostat T1: alarm 'High Temperature' cleared");
    expect(first.out).toContain('PASS  Thermostat T1: RPC setMode (id 1)');
    expect(first.out).toContain('PASS  Sensor S1: RPC getState (id r7)');
    expect(first.out).toContain('PASS  Meter H1: latest pressure');
    expect(first.out).toContain('note: 4 device(s) created on the target');
    expect(first.out).toMatch(/7 of 7 messages sent .*; checks: 13 passed, 0 failed/);
    expect(first.code).toBe(0);
    const xml = readFileSync(report, 'utf8');
    expect(junitProblems(xml)).toEqual([]);
    expect(junitCases(xml).every((c) => c.failure === null)).toBe(true);
    expect(junitCases(xml).map((c) => c.name)).toContain(
      "Thermostat T1: alarm 'High Temperature' raised at 40 ms",
    );

    // the shared attribute went through REST to the device
    const t1 = (await (
      await platform.http(`/api/tenant/devices?deviceName=${encodeURIComponent('Thermostat T1')}`, { token })
    ).json()) as { id: { id: string } };
    const shared = (await (
      await platform.http(`/api/plugins/telemetry/DEVICE/${t1.id.id}/values/attributes/SHARED_SCOPE`, {
        token,
      })
    ).json()) as { key: string; value: unknown }[];
    expect(shared).toContainEqual(expect.objectContaining({ key: 'targetTemperature', value: 21 }));

    const devices = await deviceCount(platform, token);
    const fast = await replay(platform, file, '--assert', '--speed', 'max');
    expect(fast.out).toMatch(/checks: 13 passed, 0 failed/);
    expect(fast.code).toBe(0);
    expect(await deviceCount(platform, token), 'the devices are found again, not created twice').toBe(
      devices,
    );

    await saveThermostatProfile(platform, token, 60, profileId);
    const changed = await replay(
      platform,
      file,
      '--assert',
      '--speed',
      'max',
      '--timeout',
      '1500',
      '--report',
      report,
    );
    expect(changed.code).toBe(1);
    expect(changed.out).toContain("FAIL  Thermostat T1: alarm 'High Temperature' raised (at 40 ms)");
    expect(changed.out).toContain('expected it raised, none was');
    expect(changed.out).toMatch(/checks: 11 passed, 2 failed/);
    const failedXml = readFileSync(report, 'utf8');
    expect(junitProblems(failedXml)).toEqual([]);
    expect(
      junitCases(failedXml)
        .filter((c) => c.failure)
        .map((c) => c.name),
    ).toEqual([
      "Thermostat T1: alarm 'High Temperature' raised at 40 ms",
      "Thermostat T1: alarm 'High Temperature' cleared at 200 ms",
    ]);
  });

  it('names a changed value, honours --ignore and --tolerance, and runs as bin/sandboard.js', async () => {
    const platform = await startTestPlatform();
    const token = await platform.login();
    await saveThermostatProfile(platform, token, 50);
    const records = thermostatRecording().filter(
      (r) =>
        !['expect.alarm', 'rpc.request', 'rpc.response', 'expect.rpc'].includes((r as { kind: string }).kind),
    );
    const latest = records.find((r) => (r as { device?: string; kind: string }).kind === 'expect.latest') as {
      values: Record<string, unknown>;
      tolerance?: unknown;
    };
    latest.values = { temperature: 19.5, mode: 'comfort' };
    delete latest.tolerance;
    const file = writeRecording(records);
    const wrong = await replay(platform, file, '--assert', '--speed', 'max', '--timeout', '500');
    expect(wrong.code).toBe(1);
    expect(wrong.out).toContain('FAIL  Thermostat T1: latest temperature, mode');
    expect(wrong.out).toContain('temperature: expected 19.5, got 20.04');
    expect(wrong.out).toContain('mode: expected "comfort", got "eco"');

    const child = spawn(
      process.execPath,
      [
        SANDBOARD_BIN,
        'replay',
        file,
        ...targetFlags(platform),
        '--assert',
        '--speed',
        'max',
        '--ignore',
        'mode',
        '--tolerance',
        'temperature=0.6',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(stderr).toBe('');
    expect(stdout).toContain('PASS  Thermostat T1: latest temperature, mode');
    expect(code).toBe(0);
  });

  it('refuses a malformed recording, a newer version and a missing profile with a clear message, touching no data', async () => {
    const platform = await startTestPlatform();
    const token = await platform.login();
    const before = await deviceCount(platform, token);

    const malformed = thermostatRecording();
    (malformed[7] as Record<string, unknown>).qos = 7;
    const lines = JSON.stringify(malformed).length ? malformed.map((r) => JSON.stringify(r)) : [];
    lines.splice(3, 0, '{"kind":"device","t":0,');
    const badFile = join(tempDir(), 'bad.jsonl');
    writeFileSync(badFile, lines.join('\n'));
    const bad = await replay(platform, badFile, '--assert');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('is not a recording this Sandboard can replay');
    expect(bad.err).toMatch(/line 4: is not JSON/);
    expect(bad.err).toMatch(/line 9, qos: /);

    const newer = await replay(
      platform,
      writeRecording([header({ version: RECORDING_VERSION + 1 }), ...thermostatRecording().slice(1)]),
      '--assert',
    );
    expect(newer.code).toBe(2);
    expect(newer.err).toContain(`line 1, version: is ${RECORDING_VERSION + 1}, written by a newer Sandboard`);

    const missing = await replay(platform, writeRecording(thermostatRecording()), '--assert');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(
      "the recording names device profile 'thermostat' (devices 'Thermostat T1'), which the target does not have",
    );
    expect(await deviceCount(platform, token), 'no device was created').toBe(before);
  });
});
