/**
 * Recording a running simulation as its page's Record button does: the filter names the simulation's
 * gateways, and their devices come with them (device records with `via`, their latest values); another
 * gateway's traffic stays out.
 */
import { describe, expect, it } from 'vitest';
import { parseRecording, type RecordingRecord } from '../../../shared/schemas/recording.ts';
import type { RecordingInfo } from '../../../shared/schemas/recordings-api.ts';
import { deviceNames } from '../../../shared/schemas/simulation.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { okJson } from '../api/api-kit.ts';
import { sampleScenario, simulationApi, telemetryFromDevices } from '../simulator/sim-kit.ts';

describe('recording a simulation', () => {
  it("records the chosen gateway's publishes, names its devices with via, and keeps their latest values", async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const api = simulationApi(p, token);
    const scenario = sampleScenario(200);
    const [a, b] = scenario.gateways;
    const created = await api.create(scenario);
    const everyDevice = telemetryFromDevices(p, 10);
    await api.start(created.id);
    await everyDevice;

    const rec = await okJson<RecordingInfo>(
      p.http('/api/sandboard/recordings', {
        method: 'POST',
        token,
        json: { durationMs: 60_000, filter: { devices: [a!.name] }, name: scenario.name },
      }),
    );
    await telemetryFromDevices(p, 10); // every device sent again while it records
    await okJson(p.http(`/api/sandboard/recordings/${rec.id}/stop`, { method: 'POST', token }));
    await api.stop(created.id);

    const text = await (await p.http(`/api/sandboard/recordings/${rec.id}/file`, { token })).text();
    const { recording, issues } = parseRecording(text);
    expect(issues).toEqual([]);
    const records = recording!.records;
    const of = (kind: RecordingRecord['kind']) => records.filter((r) => r.kind === kind);
    const devicesOfA = [...deviceNames(a!)];
    expect(of('device')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: a!.name, gateway: true }),
        ...devicesOfA.map((name) => expect.objectContaining({ name, type: a!.deviceType, via: a!.name })),
      ]),
    );
    expect(of('device')).toHaveLength(1 + devicesOfA.length);
    const publishers = new Set(of('mqtt.publish').map((r) => (r as { device: string }).device));
    expect(publishers).toEqual(new Set([a!.name]));
    expect(of('mqtt.publish').some((r) => (r as { topic: string }).topic === 'v1/gateway/telemetry')).toBe(
      true,
    );
    const latest = of('expect.latest') as { device: string; values: Record<string, unknown> }[];
    expect(latest.map((r) => r.device).sort()).toEqual([...devicesOfA].sort());
    for (const r of latest) expect(Object.keys(r.values).sort()).toEqual(a!.keys.map((k) => k.key).sort());
    expect(text).not.toContain(b!.name);
  });
});
