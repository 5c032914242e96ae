import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scenario, SimulationStatus } from '../../../shared/schemas/simulation.ts';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { okJson } from '../api/api-kit.ts';
import { simulateCli, simulationApi, telemetryFromDevices } from './sim-kit.ts';

const PERIODS = 5;

/** Three gateways of three devices, one value per device and period, PERIODS periods each. */
function fleet(withTokens: boolean): Scenario {
  return {
    name: 'spread',
    messages: PERIODS,
    gateways: ['North', 'South', 'East'].map((name) => ({
      name,
      ...(withTokens ? { token: `${name.toLowerCase()}-token` } : {}),
      qos: 1 as const,
      periodMs: 100,
      devicesCount: 3,
      deviceNamePattern: '${gateway} meter ${n}',
      keys: [{ key: 'kwh', generator: { kind: 'counter' as const } }],
    })),
  };
}

async function gatewayDevices(p: TestPlatform, token: string): Promise<void> {
  for (const g of fleet(true).gateways)
    await okJson(
      p.http(`/api/device?accessToken=${g.token}`, {
        method: 'POST',
        token,
        json: { name: g.name, additionalInfo: { gateway: true } },
      }),
    );
}

describe('a fleet spread over worker threads', () => {
  it('sandboard simulate --workers 2 runs every gateway, adds up their counts and prints each worker’s cost', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    await gatewayDevices(p, token);
    const file = join(tempDir(), 'spread.json');
    writeFileSync(file, JSON.stringify(fleet(true)));
    const stored = telemetryFromDevices(p, 9);

    const { code, stdout, stderr } = await simulateCli([file, '--platform', p.urls.mqtt, '--workers', '2']);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('3 gateways spread over 2 worker threads');
    // 3 gateways x PERIODS telemetry messages (3 devices fit in one), 9 devices x PERIODS values
    expect(stdout).toMatch(
      new RegExp(
        `done \\(messages\\) after [\\d.]+s: sent \\d+, acked \\d+, failed 0, ${3 * PERIODS} telemetry messages, ${9 * PERIODS} values`,
      ),
    );
    const workers = [
      ...stdout.matchAll(
        /simulator worker (\d): (\d) gateways, (\d+) publishes, (\d+) values; CPU ([\d.]+) µs per publish/g,
      ),
    ];
    expect(workers.map((m) => m[1])).toEqual(['1', '2']);
    expect(workers.map((m) => Number(m[2])).sort()).toEqual([1, 2]);
    expect(workers.reduce((n, m) => n + Number(m[4]), 0)).toBe(9 * PERIODS);
    for (const m of workers) expect(Number(m[5])).toBeGreaterThan(0);
    expect((await stored).size).toBe(9);
  }, 60_000);

  it('the app runs a scenario with workers: 2 and its status adds up the threads and shows their cost', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const api = simulationApi(p, token);
    const created = await api.create({ ...fleet(false), workers: 2 });
    const stored = telemetryFromDevices(p, 9);
    await api.start(created.id);

    let status: SimulationStatus = await api.status(created.id);
    while (status.state !== 'stopped' && status.state !== 'failed') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await api.status(created.id);
    }
    expect(status.lastError).toBeNull();
    expect(status.finishReason).toBe('messages');
    expect(status.gatewayStatus.map((g) => [g.name, g.state])).toEqual([
      ['North', 'finished'],
      ['South', 'finished'],
      ['East', 'finished'],
    ]);
    expect(status.counters.telemetryMessages).toBe(3 * PERIODS);
    expect(status.counters.datapoints).toBe(9 * PERIODS);
    expect(status.counters.failed).toBe(0);
    expect(status.counters.acknowledged).toBe(status.counters.sent);
    expect(status.gatewayStatus.reduce((n, g) => n + g.counters.datapoints, 0)).toBe(9 * PERIODS);
    expect(status.cost?.workers).toBe(2);
    expect(status.cost?.sharedWithPlatform).toBe(true);
    const workers = status.cost!.threads.filter((t) => t.thread !== 'main');
    expect(workers.map((t) => t.gateways).sort()).toEqual([1, 2]);
    expect(workers.reduce((n, t) => n + t.datapoints, 0)).toBe(9 * PERIODS);
    for (const t of workers) expect(t.cpuUsPerValue).toBeGreaterThan(0);
    expect((await stored).size).toBe(9);
  }, 60_000);
});
