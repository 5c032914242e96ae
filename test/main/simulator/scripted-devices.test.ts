/**
 * Scripted devices against the real platform: the gateway's devices run their script in the QuickJS
 * sandbox, publish over MQTT, follow shared attributes and answer RPC sent through the REST RPC API.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Scenario, SimulationReport } from '../../../shared/schemas/simulation.ts';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.ts';
import { okEmpty, okJson } from '../api/api-kit.ts';
import { BASE, simulationApi } from './sim-kit.ts';

const poll = { timeout: 30_000, interval: 100 };
const THERMOSTATS = new URL('../../../shared/scenarios/scripted-thermostats.json', import.meta.url);

type Latest = Record<string, { ts: number; value: unknown }[]>;

function latest(p: TestPlatform, token: string, id: string): Promise<Latest> {
  return okJson<Latest>(
    p.http(`/api/plugins/telemetry/DEVICE/${id}/values/timeseries?useStrictDataTypes=true`, { token }),
  );
}

describe('scripted devices', () => {
  it('a scripted thermostat converges on a new targetTemp sent as a shared attribute and answers RPC', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const api = simulationApi(p, token);
    const scenario = JSON.parse(readFileSync(THERMOSTATS, 'utf8')) as Scenario;
    scenario.gateways[0]!.periodMs = 100;
    const created = await api.create(scenario);
    await api.start(created.id);

    const t1 = await api.deviceId('Thermostat 1');
    const t2 = await api.deviceId('Thermostat 2');
    await expect.poll(async () => (await latest(p, token, t1)).targetTemp?.[0]?.value, poll).toBe(21);

    await okEmpty(
      p.http(`/api/plugins/telemetry/DEVICE/${t1}/attributes/SHARED_SCOPE`, {
        method: 'POST',
        token,
        json: { targetTemp: 30 },
      }),
    );
    // its temperature climbs to 30 (0.5 a tick, a little noise) and stays there; the other keeps 21
    await expect
      .poll(async () => {
        const values = await latest(p, token, t1);
        return [Math.abs((values.temperature![0]!.value as number) - 30) < 0.1, values.heating![0]!.value];
      }, poll)
      .toEqual([true, false]);
    await expect
      .poll(async () => {
        const values = await latest(p, token, t2);
        return [Math.abs((values.temperature![0]!.value as number) - 21) < 0.1, values.targetTemp![0]!.value];
      }, poll)
      .toEqual([true, 21]);

    // RPC through the platform's REST API, answered by the script
    const rpc = (id: string, method: string, params: unknown) =>
      okJson<Record<string, unknown>>(
        p.http(`/api/rpc/twoway/${id}`, { method: 'POST', token, json: { method, params } }),
      );
    const state = await rpc(t1, 'getState', {});
    expect(state.targetTemp).toBe(30);
    expect(Math.abs((state.temperature as number) - 30)).toBeLessThan(0.01);
    expect(await rpc(t1, 'setTarget', { targetTemp: 25 })).toEqual({ targetTemp: 25 });
    await expect.poll(async () => (await latest(p, token, t1)).targetTemp?.[0]?.value, poll).toBe(25);
    expect(await rpc(t2, 'reboot', {})).toEqual({ error: 'Unknown method: reboot' });

    const status = await api.status(created.id);
    expect(status.rpcLog.slice(0, 3).map((e) => [e.device, e.method, e.responder, e.status])).toEqual([
      ['Thermostat 2', 'reboot', 'script', 'answered'],
      ['Thermostat 1', 'setTarget', 'script', 'answered'],
      ['Thermostat 1', 'getState', 'script', 'answered'],
    ]);
    expect(status.counters.scriptCalls).toBeGreaterThan(20);
    expect(status.counters.scriptErrors).toBe(0);
    expect(status.scriptErrors).toEqual([]);
    await api.stop(created.id);
  });

  it('a script that loops or does not parse is stopped and reported with the device and line; the other devices go on', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const api = simulationApi(p, token);
    const gateway = (name: string, devicesCount: number, script: string) => ({
      name,
      periodMs: 100,
      devicesCount,
      deviceNamePattern: `${name} \${n}`,
      keys: [],
      script,
    });
    const scenario: Scenario = {
      name: 'Broken scripts',
      gateways: [
        gateway(
          'Looping',
          2,
          [
            '// device 1 loops for ever, device 2 is fine',
            'function onTick(ctx) {',
            '  let i = 0;',
            '  while (ctx.device.n === 1) {',
            '    i += 1;',
            '  }',
            '  return { beat: ctx.elapsedMs };',
            '}',
          ].join('\n'),
        ),
        gateway('Unparsable', 1, 'function onTick(ctx) {\n  return { beat: 1 ;\n}'),
        gateway('Healthy', 2, 'function onTick(ctx) {\n  return { beat: ctx.elapsedMs };\n}'),
      ],
    };
    const created = await api.create(scenario);
    await api.start(created.id);

    await expect
      .poll(async () => (await api.status(created.id)).scriptErrors.length, poll)
      .toBeGreaterThanOrEqual(2);
    const status = await api.status(created.id);
    const loop = status.scriptErrors.find((e) => e.gateway === 'Looping')!;
    expect(loop).toMatchObject({
      device: 'Looping 1',
      hook: 'onTick',
      stopped: true,
      message: 'Script execution exceeded the time limit of 500 ms',
    });
    expect(loop.line).toBeGreaterThanOrEqual(2);
    expect(loop.line).toBeLessThanOrEqual(6);
    expect(status.scriptErrors.find((e) => e.gateway === 'Unparsable')).toMatchObject({
      device: null,
      line: 2,
      stopped: true,
      message: expect.stringMatching(/^Syntax error: /),
    });
    expect(status.gatewayStatus.map((g) => [g.name, g.state, g.scriptedDevicesStopped])).toEqual([
      ['Looping', 'connected', 1],
      ['Unparsable', 'connected', 1],
      ['Healthy', 'connected', 0],
    ]);
    expect(status.counters.scriptErrors).toBe(2);

    // the other devices go on: their beat keeps moving after the errors
    const beat = async (name: string) =>
      (await latest(p, token, await api.deviceId(name))).beat?.[0]?.value as number | undefined;
    for (const name of ['Looping 2', 'Healthy 1', 'Healthy 2']) {
      const before = (await expect.poll(() => beat(name), poll).toBeGreaterThan(0), await beat(name))!;
      await expect.poll(() => beat(name), poll).toBeGreaterThan(before);
    }
    expect(await beat('Looping 1')).toBeUndefined();
    expect(await beat('Unparsable 1')).toBeUndefined();

    await api.stop(created.id);
    const report = await okJson<SimulationReport>(p.http(`${BASE}/${created.id}/report`, { token }));
    expect(report).toMatchObject({ scriptErrors: 2, scriptedDevicesStopped: 2 });
    expect(report.scriptCalls).toBeGreaterThan(10);
    const junit = await p.http(`${BASE}/${created.id}/report/junit`, { token });
    expect(await junit.text()).toContain('<failure message="2 script error(s), 2 device(s) stopped');
  });
});
