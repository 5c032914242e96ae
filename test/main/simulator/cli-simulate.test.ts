import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Scenario, SimulationReport } from '../../../shared/schemas/simulation.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { okJson } from '../api/api-kit.ts';
import { SAMPLE_FILE, simulateCli, telemetryFromDevices } from './sim-kit.ts';

const simulate = (args: string[]) => simulateCli(args);

function writeScenario(scenario: unknown): string {
  const file = join(tempDir(), 'scenario.json');
  writeFileSync(file, JSON.stringify(scenario, null, 2));
  return file;
}

const PROGRESS =
  /^\[\s*\d+s\] sent \d+ \| acked \d+ \| failed \d+.* \| \d+\.\d msg\/s \| \d+\/\d+ gateways connected$/;

describe('sandboard simulate', () => {
  it('runs the sample scenario headless on an in-process platform and prints one progress line per second', async () => {
    const { code, stdout, stderr } = await simulate([fileURLToPath(SAMPLE_FILE), '--duration', '2s']);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(
      /in-process platform at http:\/\/127\.0\.0\.1:\d+ \(MQTT mqtt:\/\/127\.0\.0\.1:\d+\)/,
    );
    expect(stdout).not.toContain('\r'); // not a terminal: whole lines
    const lines = stdout.trim().split('\n');
    const progress = lines.filter((l) => PROGRESS.test(l));
    expect(progress.length, stdout).toBeGreaterThanOrEqual(2);
    expect(lines.at(-1)).toMatch(
      /^done \(duration\) after 2\.\ds: sent \d+, acked \d+, failed 0, \d+ telemetry messages, \d+ values$/,
    );
    const sent = Number(/sent (\d+)/.exec(lines.at(-1)!)![1]);
    expect(sent).toBeGreaterThan(10); // 10 device connects, then telemetry
  });

  it("runs the scenario's faults headless and prints each with the platform's answers", async () => {
    const file = writeScenario({
      name: 'Headless faults',
      gateways: [
        {
          name: 'H Gateway',
          periodMs: 100,
          devicesCount: 2,
          deviceNamePattern: 'H Device ${n}',
          keys: [{ key: 't', generator: { kind: 'random', min: 0, max: 1 } }],
        },
      ],
      faults: [
        { kind: 'drop', device: 'H Device 1' },
        { kind: 'malformed', device: 'H Device 2', count: 3 },
      ],
    });
    const out = tempDir();
    const { code, stdout, stderr } = await simulate([
      file,
      '--duration',
      '2s',
      '--report',
      join(out, 'run.json'),
      '--junit',
      join(out, 'run.xml'),
    ]);
    expect(code, stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as SimulationReport;
    expect(report).toMatchObject({ name: 'Headless faults', finishReason: 'duration', devices: 2 });
    expect(report.faults.map((f) => [f.kind, f.injected > 0])).toEqual([
      ['drop', true],
      ['malformed', true],
    ]);
    expect(readFileSync(join(out, 'run.xml'), 'utf8')).toContain(
      'name="faults[1] malformed (device &apos;H Device 2&apos;)"',
    );
    expect(stdout).toMatch(
      /^fault faults\[0\] drop \(device 'H Device 1'\): injected (\d+); answered not-sent \1$/m,
    );
    expect(stdout).toMatch(
      /^fault faults\[1\] malformed \(device 'H Device 2'\): injected 3; answered 0x99 3$/m,
    );
  });

  it('fails with the JSON path of a bad scenario file', async () => {
    const scenario = JSON.parse(
      await import('node:fs').then((fs) => fs.readFileSync(SAMPLE_FILE, 'utf8')),
    ) as {
      gateways: { keys: { generator: Record<string, unknown> }[] }[];
    };
    scenario.gateways[0]!.keys[2]!.generator.min = 'low';
    const file = writeScenario(scenario);
    const { code, stderr } = await simulate([file]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `sandboard: ${file}: invalid scenario: gateways[0].keys[2].generator.min: must be a number\n`,
    );
  });

  it('connects to a running platform with --platform and the tokens of the file', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    await okJson(
      p.http('/api/device?accessToken=cli-gateway-token', {
        method: 'POST',
        token,
        json: { name: 'CLI Gateway', additionalInfo: { gateway: true } },
      }),
    );
    const scenario: Scenario = {
      name: 'cli',
      gateways: [
        {
          name: 'CLI Gateway',
          token: 'cli-gateway-token',
          qos: 0,
          periodMs: 100,
          devicesCount: 3,
          deviceNamePattern: 'Sensor ${gateway}-${n}',
          keys: [{ key: 'temperature', generator: { kind: 'random', min: 20, max: 25 } }],
        },
      ],
    };
    const three = telemetryFromDevices(p, 3);
    const { code, stdout, stderr } = await simulate([
      writeScenario(scenario),
      '--platform',
      p.urls.mqtt,
      '--duration',
      '1s',
    ]);
    expect(code, stderr).toBe(0);
    expect(stderr).not.toContain('in-process');
    await three;
    expect(stdout).toMatch(/done \(duration\)/);
    const device = await okJson<{ name: string }>(
      p.http(`/api/tenant/devices?deviceName=${encodeURIComponent('Sensor CLI Gateway-3')}`, { token }),
    );
    expect(device.name).toBe('Sensor CLI Gateway-3');
  });

  it('fails with a clear message when the connection is refused', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const file = writeScenario({
      name: 'refused',
      gateways: [{ name: 'G', token: 't', devicesCount: 1, keys: [] }],
    });
    const { code, stderr } = await simulate([file, '--platform', `mqtt://127.0.0.1:${port}`]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `sandboard: Gateway 'G': cannot connect to mqtt://127.0.0.1:${port}: connection refused (is the broker running?)\n`,
    );
  });

  it('explains its usage', async () => {
    const { code, stderr } = await simulate(['a.json', '--duration', 'soon']);
    expect(code).toBe(2);
    expect(stderr).toContain("--duration must look like 30s, 5m, 500ms or 1h, got 'soon'");
    expect(stderr).toContain('sandboard simulate FILE');
  });
});
