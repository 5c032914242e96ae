/**
 * Simulation reports: at the end of a run, its summary over REST as JSON and as JUnit XML.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Scenario, SimulationReport } from '../../../shared/schemas/simulation.ts';
import { junitXml } from '../../../shared/simulation-junit.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { expectTbError, okJson } from '../api/api-kit.ts';
import { BASE, simulationApi } from './sim-kit.ts';

const BUILDING_FILE = new URL('../../../shared/scenarios/smart-building.json', import.meta.url);
const poll = { timeout: 20_000, interval: 100 };

describe('simulation reports', () => {
  it(
    'summarises a finished run as JSON and JUnit: sent, acknowledged, alarms raised, latency',
    { timeout: 60_000 },
    async () => {
      const p = await startTestPlatform();
      const token = await p.login();
      const api = simulationApi(p, token);
      const scenario = JSON.parse(readFileSync(BUILDING_FILE, 'utf8')) as Scenario;
      const gateway = scenario.gateways[0]!;
      gateway.periodMs = 100;
      gateway.devicesCount = 2;
      gateway.keys[0]!.generator = { kind: 'sine', min: 22, max: 30, periodMs: 2000, deviceOffset: 0 };
      scenario.messages = 30;
      scenario.setup!.assets = scenario.setup!.assets!.map((a) => ({
        ...a,
        ...(a.devices ? { devices: a.devices.filter((d) => /[12]$/.test(d)) } : {}),
      }));
      const created = await api.create(scenario);
      await expectTbError(
        await p.http(`${BASE}/${created.id}/report`, { token }),
        404,
        32,
        /has not run yet/,
      );

      await api.start(created.id);
      await expect.poll(async () => (await api.status(created.id)).finishReason, poll).toBe('messages');
      const report = await okJson<SimulationReport>(p.http(`${BASE}/${created.id}/report`, { token }));
      expect(report).toMatchObject({
        name: 'Smart building',
        state: 'stopped',
        finishReason: 'messages',
        devices: 2,
        refused: 0,
        telemetryMessages: 30,
        faultsInjected: 0,
      });
      expect(report.acknowledged).toBe(report.sent);
      expect(report.alarmsRaised).toBeGreaterThanOrEqual(1); // the wave crossed 28 °C
      const l = report.latencyMs!;
      expect(l.count).toBe(report.acknowledged);
      expect(l.p50).toBeLessThanOrEqual(l.p90);
      expect(l.p90).toBeLessThanOrEqual(l.p99);
      expect(l.p99).toBeLessThanOrEqual(l.max);

      const junit = await p.http(`${BASE}/${created.id}/report/junit`, { token });
      expect(junit.status).toBe(200);
      expect(junit.headers.get('content-type')).toMatch(/^application\/xml/);
      expect(junit.headers.get('content-disposition')).toBe(
        'attachment; filename="Smart-building-report.xml"',
      );
      const xml = await junit.text();
      expect(xml).toMatch(/<testsuite name="Smart building" tests="3" failures="0"/);
      expect(xml).toContain(`sent ${report.sent}, acknowledged ${report.acknowledged}, refused 0`);
      expect(xml).toMatch(/<property name="alarmsRaised" value="[1-9]\d*"\/>/);
    },
  );

  it('fails a JUnit case for refused publishes, unanswered RPC and a fault never injected', () => {
    const base: SimulationReport = {
      id: '00000000-0000-4000-8000-000000000000',
      name: 'R & <D>',
      target: 'embedded',
      state: 'stopped',
      finishReason: 'duration',
      lastError: null,
      startedAt: Date.UTC(2026, 0, 1),
      stoppedAt: Date.UTC(2026, 0, 1, 0, 1),
      durationMs: 60_000,
      gateways: 1,
      devices: 1,
      sent: 10,
      acknowledged: 8,
      refused: 2,
      refusedByReason: { '0x97': 2 },
      telemetryMessages: 10,
      datapoints: 10,
      faultsInjected: 0,
      faults: [],
      alarmsRaised: null,
      rpcRequests: 3,
      rpcAnswered: 2,
      scriptCalls: 0,
      scriptErrors: 0,
      scriptedDevicesStopped: 0,
      latencyMs: null,
    };
    const xml = junitXml(base);
    expect(xml).toContain('<testsuite name="R &amp; &lt;D&gt;" tests="3" failures="2"');
    expect(xml).toContain('<failure message="2 refused:">2 refused:\n0x97 (Quota exceeded');
    expect(xml).toContain('<failure message="1 of 3 RPC requests not answered">');
    // with faults, refusals are what the faults asked for; a fault that never happened fails
    const withFault = junitXml({
      ...base,
      rpcAnswered: 3,
      faults: [{ index: 0, kind: 'burst', target: 'every gateway', injected: 0, answers: {} }],
    });
    expect(withFault).toContain('failures="1"');
    expect(withFault).toMatch(
      /name="faults\[0\] burst \(every gateway\)" time="0">\n\s+<failure message="never injected/,
    );
  });
});
