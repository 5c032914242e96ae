/**
 * Faults on purpose over real MQTT against the real platform: each fault of a scenario is injected,
 * marked, and counted with what the platform answered.
 */
import { describe, expect, it } from 'vitest';
import type { Fault, FaultCount, Scenario } from '../../../shared/schemas/simulation.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { okJson } from '../api/api-kit.ts';
import { simulationApi } from './sim-kit.ts';

const poll = { timeout: 20_000, interval: 100 };
const D = (n: number) => `F Device ${n}`;

const faults: Fault[] = [
  { kind: 'duplicate', device: D(1) },
  { kind: 'drop', device: D(2), durationMs: 3000 },
  { kind: 'malformed', atMs: 300, count: 2 },
  { kind: 'oversized', atMs: 5000, bytes: 100_000 },
  { kind: 'clockSkew', device: D(3), skewMs: -60_000 },
  { kind: 'futureTimestamps', device: D(4) },
  { kind: 'latency', device: D(5), latencyMs: 300 },
  { kind: 'reorder', device: D(6), atMs: 900 },
  { kind: 'rpcSilent', device: D(1) },
  { kind: 'noConnect', device: D(7) },
  { kind: 'disconnect', atMs: 1500, durationMs: 400 },
  { kind: 'reconnectStorm', atMs: 2500, durationMs: 2000, intervalMs: 300 },
  { kind: 'burst', atMs: 3500, messages: 50, device: D(8) },
  { kind: 'pastTimestamps', device: D(8) },
  { kind: 'disconnect', device: D(6), atMs: 200, durationMs: 300 },
];

function scenario(): Scenario {
  return {
    name: 'Faults',
    seed: 1,
    gateways: [
      {
        name: 'F Gateway',
        periodMs: 100,
        devicesCount: 8,
        deviceNamePattern: 'F Device ${n}',
        keys: [{ key: 'temperature', generator: { kind: 'random', min: 20, max: 30 } }],
        rpc: [{ method: '*', responder: { kind: 'echo' } }],
      },
    ],
    faults,
  };
}

describe('faults on purpose', () => {
  it('injects each fault kind and counts what the platform answered', { timeout: 60_000 }, async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const api = simulationApi(p, token);
    const created = await api.create(scenario());
    await api.start(created.id);

    const counts = async () => (await api.status(created.id)).faults;
    await expect
      .poll(async () => (await counts()).filter((c) => c.injected > 0).map((c) => c.index), poll)
      .toEqual(faults.map((_, i) => i).filter((i) => faults[i]!.kind !== 'rpcSilent'));
    // an RPC to the silent device is left unanswered (the platform times it out); sent again while the
    // gateway is between connections (a fault cut it), until the device has received one
    const silent = await api.deviceId(D(1));
    await expect
      .poll(async () => {
        const rpc = await p.http(`/api/rpc/twoway/${silent}`, {
          method: 'POST',
          token,
          json: { method: 'getState', params: {}, timeout: 1000 },
        });
        expect(rpc.status).toBe(504);
        return (await counts())[8]!.answers['no-answer'] ?? 0;
      }, poll)
      .toBeGreaterThan(0);
    expect(Object.keys((await counts())[8]!.answers)).toEqual(['no-answer']);
    // the burst and the storm are over
    await expect
      .poll(async () => {
        const c = await counts();
        return [
          c[12]!.injected,
          sum(c[12]!),
          c[11]!.injected > 0 && c[11]!.answers.reconnected === c[11]!.injected,
        ];
      }, poll)
      .toEqual([50, 50, true]);
    const status = await api.status(created.id);
    await api.stop(created.id);
    const c = status.faults;
    const byIndex = (i: number) => c[i]!;

    // a cut connection loses what waits for its PUBACK: each fault's answers are acknowledgements or that
    // (the oversized payload's DISCONNECT 0x95 names why for what was in flight then)
    const answers = (i: number) => Object.keys(byIndex(i).answers).sort();
    for (const i of [0, 4, 5, 6, 7, 9, 13])
      expect(['acknowledged', 'connection-lost', '0x95']).toEqual(expect.arrayContaining(answers(i)));
    expect(byIndex(1).answers).toEqual({ 'not-sent': byIndex(1).injected });
    // not JSON: refused with 0x99 Payload format invalid; larger than the broker takes: 0x95 Packet too large
    expect(byIndex(2)).toMatchObject({ injected: 2, answers: { '0x99': 2 } });
    expect(byIndex(3)).toMatchObject({ injected: 1, answers: { '0x95': 1 } });
    for (const i of [4, 5, 6, 7, 9, 13])
      expect(byIndex(i).answers.acknowledged, `faults[${i}]`).toBeGreaterThan(0);
    expect(byIndex(10)).toMatchObject({ injected: 1, answers: { reconnected: 1 } });
    expect(byIndex(11).answers).toEqual({ reconnected: byIndex(11).injected });
    expect(byIndex(14)).toMatchObject({ injected: 1, answers: { acknowledged: 1 } });
    // every fault is marked where it started
    const started = new Set(status.faultMarkers.filter((m) => m.phase === 'start').map((m) => m.index));
    expect([...started].sort((a, b) => a - b)).toEqual(faults.map((_, i) => i));

    // the platform's side: duplicates are stored once (the same ts), skewed clocks keep their ts
    const history = async (n: number) => {
      const id = await api.deviceId(D(n));
      const res = await okJson<{ temperature?: { ts: number }[] }>(
        p.http(
          `/api/plugins/telemetry/DEVICE/${id}/values/timeseries?keys=temperature&startTs=0&endTs=${Date.now() + 10 * 86_400_000}&limit=10000`,
          { token },
        ),
      );
      return (res.temperature ?? []).map((v) => v.ts);
    };
    const dup = await history(1);
    expect(dup.length).toBeGreaterThan(5);
    expect(new Set(dup).size).toBe(dup.length);
    const acked = byIndex(0).answers.acknowledged!;
    expect(acked).toBeGreaterThan(dup.length); // both copies of most messages were acknowledged...
    expect(acked).toBeLessThanOrEqual(2 * dup.length); // ...and each pair stored once
    const skewed = await history(3);
    expect(Math.max(...skewed)).toBeLessThan(Date.now() - 50_000);
    const future = await history(4);
    expect(Math.min(...future)).toBeGreaterThan(Date.now() + 3_600_000);
  });
});

function sum(c: FaultCount): number {
  return Object.values(c.answers).reduce((a, b) => a + b, 0);
}
