import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type {
  EdgeCutOff,
  EdgeSimulatorDetails,
  EdgeSimulatorSummary,
} from '../../../shared/schemas/edge-simulator.ts';
import { expectTbError, okEmpty, okJson, useSharedPlatform, type ApiPlatform } from '../api/api-kit.ts';
import { closeAll } from '../transport/mqtt/mqtt-kit.ts';
import { edgeWithDevice, eventually, pushTelemetryToEdges } from '../../fixtures/edge-simulator-kit.ts';
import { assignDevice, createEdge, queueCounts } from '../../fixtures/edge-test-kit.ts';

/**
 * Cutting a simulated edge off against the real platform (MQTT telemetry, push to edge, the HTTP edge API):
 * what is queued meanwhile arrives on reconnect, and the edge's verdict names every event that its
 * receiving side lost, handled twice or took out of order (faults injected on purpose).
 */
const BASE = '/api/sandboard/edgeSimulators';
const LONG = 600_000;

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('edge cut-off verdict', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let counter = 0;
  afterEach(closeAll);

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    await pushTelemetryToEdges(p, token);
  });

  const post = <T>(path: string, json: unknown) =>
    okJson<T>(p.http(`${BASE}${path}`, { method: 'POST', token, json }));
  const status = (id: string) => okJson<EdgeSimulatorDetails>(p.http(`${BASE}/${id}`, { token }));

  /** An edge with a device assigned and a simulated edge that has received `before` events. */
  async function running(before: number) {
    const { edge, publish, counts } = await edgeWithDevice(p, token, `cut-${++counter}`);
    const sim = await post<EdgeSimulatorDetails>('', {
      edgeId: edge.id,
      secret: edge.secret,
      ratePerSec: 0,
      batchSize: 7,
      waitMs: 200,
    });
    await publish(before);
    await eventually(async () => expect((await status(sim.id)).counters.acknowledged).toBe(before));
    return { edge, sim, publish, counts };
  }

  /** Cut off for long, `count` events queued meanwhile, faults set, reconnected: the finished check. */
  async function cutOffRun(before: number, count: number, faults: Record<string, number>) {
    const { sim, publish, counts } = await running(before);
    const cut = await post<EdgeSimulatorSummary>(`/${sim.id}/cutOff`, { durationMs: LONG });
    expect(cut.state).toBe('cutOff');
    expect(cut.cutOff).toEqual(
      expect.objectContaining({ phase: 'cutOff', afterEdgeSeq: before, toEdgeSeq: null, verdict: null }),
    );
    await publish(count);
    expect(await counts()).toEqual({ PENDING: count, RETRIEVED: 0, DELIVERED: before });
    expect((await status(sim.id)).counters.pulled).toBe(before);
    await post(`/${sim.id}/faults`, faults);
    expect((await post<EdgeSimulatorSummary>(`/${sim.id}/resume`, {})).state).toBe('running');
    const done = await eventually(async () => {
      const s = await status(sim.id);
      expect(s.cutOff?.phase).toBe('done');
      return s;
    }, 20_000);
    // Everything was acknowledged, lost events too.
    expect(await counts()).toEqual({ PENDING: 0, RETRIEVED: 0, DELIVERED: before + count });
    await okEmpty(p.http(`${BASE}/${sim.id}`, { method: 'DELETE', token }));
    return done.cutOff!;
  }

  function expectVerdictNamesInjected(cutOff: EdgeCutOff) {
    const v = cutOff.verdict!;
    expect(v.missing).toEqual(cutOff.injected.dropped);
    expect(v.duplicated).toEqual(cutOff.injected.duplicated);
    expect(v.outOfOrder).toEqual(cutOff.injected.reordered);
  }

  it('delivers what was queued while cut off, each event once and in order: a clean verdict', async () => {
    const cutOff = await cutOffRun(3, 20, {});
    expect(cutOff.verdict).toEqual({
      clean: true,
      fromEdgeSeq: 4,
      toEdgeSeq: 23,
      expected: 20,
      received: 20,
      missing: { count: 0, edgeSeqs: [] },
      duplicated: { count: 0, edgeSeqs: [] },
      outOfOrder: { count: 0, edgeSeqs: [] },
      unchecked: 0,
    });
    expect(cutOff.reconnectedTime).toBeGreaterThanOrEqual(cutOff.startedTime);
    expect(cutOff.doneTime).toBeGreaterThanOrEqual(cutOff.reconnectedTime!);
  });

  it('judges by the edge’s own numbers: seqIds shared with another edge leave no false gap', async () => {
    const { edge, device, publish, counts } = await edgeWithDevice(p, token, `cut-${++counter}`);
    // The device belongs to a second edge too: every message takes one seqId for each edge.
    const other = await createEdge(p.http, token, `cut-${counter}-other`);
    await assignDevice(p.http, token, other.id, device.id.id);
    const sim = await post<EdgeSimulatorDetails>('', { edgeId: edge.id, secret: edge.secret, ratePerSec: 0 });
    await publish(2);
    await eventually(async () => expect((await status(sim.id)).counters.acknowledged).toBe(2));
    await post(`/${sim.id}/cutOff`, { durationMs: LONG });
    await publish(8);
    expect(await queueCounts(p.http, token, other.id)).toEqual({ PENDING: 10, RETRIEVED: 0, DELIVERED: 0 });
    await post(`/${sim.id}/resume`, {});
    const done = await eventually(async () => {
      const s = await status(sim.id);
      expect(s.cutOff?.phase).toBe('done');
      return s;
    }, 20_000);
    expect(done.cutOff!.verdict).toEqual(
      expect.objectContaining({ clean: true, fromEdgeSeq: 3, toEdgeSeq: 10, expected: 8, received: 8 }),
    );
    const seqIds = done.recentEvents.map((e) => e.seqId).reverse();
    expect(seqIds[1]! - seqIds[0]!).toBe(2);
    expect(await counts()).toEqual({ PENDING: 0, RETRIEVED: 0, DELIVERED: 10 });
    await okEmpty(p.http(`${BASE}/${sim.id}`, { method: 'DELETE', token }));
  });

  it('reconnects by itself when the period ends', async () => {
    const { sim, publish, counts } = await running(2);
    const cut = await post<EdgeSimulatorSummary>(`/${sim.id}/cutOff`, { durationMs: 500 });
    await publish(5);
    const done = await eventually(async () => {
      const s = await status(sim.id);
      expect(s.cutOff?.phase).toBe('done');
      return s;
    }, 20_000);
    expect(done.state).toBe('running');
    const c = done.cutOff!;
    expect(c.untilTime).toBe(cut.cutOff!.untilTime);
    expect(c.reconnectedTime).toBeGreaterThanOrEqual(c.untilTime);
    expect(c.verdict).toEqual(
      expect.objectContaining({ clean: true, fromEdgeSeq: 3, received: c.verdict!.expected }),
    );
    await eventually(async () => expect(await counts()).toEqual({ PENDING: 0, RETRIEVED: 0, DELIVERED: 7 }));
    // The recent events carry the edge's own numbers.
    expect(done.recentEvents.map((e) => e.edgeSeq).slice(0, 1)).toEqual([c.verdict!.toEdgeSeq]);
  });

  it('names every lost event, down to the last one queued', async () => {
    const cutOff = await cutOffRun(1, 12, { drop: 1 });
    expect(cutOff.verdict).toEqual(
      expect.objectContaining({
        clean: false,
        expected: 12,
        received: 0,
        missing: { count: 12, edgeSeqs: range(2, 13) },
        duplicated: { count: 0, edgeSeqs: [] },
        outOfOrder: { count: 0, edgeSeqs: [] },
      }),
    );
    expectVerdictNamesInjected(cutOff);
  });

  it('names every event handled twice', async () => {
    const cutOff = await cutOffRun(2, 10, { duplicate: 1 });
    expect(cutOff.verdict).toEqual(
      expect.objectContaining({
        clean: false,
        received: 20,
        missing: { count: 0, edgeSeqs: [] },
        duplicated: { count: 10, edgeSeqs: range(3, 12) },
        outOfOrder: { count: 0, edgeSeqs: [] },
      }),
    );
    expectVerdictNamesInjected(cutOff);
  });

  it('names events taken out of order', async () => {
    // Batches of 7 (3..9, 10..16): pairs swapped within each, the last of a batch stays.
    const cutOff = await cutOffRun(2, 14, { reorder: 1 });
    expect(cutOff.verdict).toEqual(
      expect.objectContaining({
        clean: false,
        missing: { count: 0, edgeSeqs: [] },
        duplicated: { count: 0, edgeSeqs: [] },
        outOfOrder: { count: 6, edgeSeqs: [3, 5, 7, 10, 12, 14] },
      }),
    );
    expectVerdictNamesInjected(cutOff);
  });

  it('names exactly the injected gaps, duplicates and reorderings when they are mixed', async () => {
    const cutOff = await cutOffRun(0, 60, { drop: 0.15, duplicate: 0.15, reorder: 0.15, seed: 7 });
    const v = cutOff.verdict!;
    expect(v.clean).toBe(false);
    expect(v.missing.count).toBeGreaterThan(0);
    expect(v.duplicated.count).toBeGreaterThan(0);
    expect(v.outOfOrder.count).toBeGreaterThan(0);
    expect(v.received).toBe(60 - v.missing.count + v.duplicated.count);
    expectVerdictNamesInjected(cutOff);
  });

  it('answers a cut-off that is reconnected while a long poll is still waiting', async () => {
    const { edge, publish } = await edgeWithDevice(p, token, `cut-${++counter}`);
    const sim = await post<EdgeSimulatorDetails>('', {
      edgeId: edge.id,
      secret: edge.secret,
      waitMs: 10_000,
    });
    await eventually(async () => expect((await status(sim.id)).counters.pulls).toBe(0));
    // The first pull waits for an event: the cut-off waits for it, until the edge is reconnected.
    const cutting = post<EdgeSimulatorSummary>(`/${sim.id}/cutOff`, { durationMs: LONG });
    await eventually(async () => expect((await status(sim.id)).cutOff?.phase).toBe('cutOff'));
    await post(`/${sim.id}/resume`, {});
    expect((await cutting).cutOff?.phase).toMatch(/cutOff|draining/);
    await publish(3);
    const done = await eventually(async () => {
      const s = await status(sim.id);
      expect(s.cutOff?.phase).toBe('done');
      return s;
    }, 20_000);
    expect(done.cutOff!.verdict!.clean).toBe(true);
    await okEmpty(p.http(`${BASE}/${sim.id}`, { method: 'DELETE', token }));
  });

  it('refuses a cut-off period and faults out of bounds, naming the field', async () => {
    const { sim } = await running(0);
    await expectTbError(
      await p.http(`${BASE}/${sim.id}/cutOff`, { method: 'POST', token, json: { durationMs: 10 } }),
      400,
      30,
      /durationMs/,
    );
    await expectTbError(
      await p.http(`${BASE}/${sim.id}/faults`, { method: 'POST', token, json: { drop: 2 } }),
      400,
      30,
      /drop/,
    );
    await expectTbError(
      await p.http(`${BASE}/missing/cutOff`, { method: 'POST', token, json: { durationMs: 1000 } }),
      404,
      32,
    );
    const cleared = await post<EdgeSimulatorSummary>(`/${sim.id}/faults`, {});
    expect(cleared.faults).toEqual({});
    await okEmpty(p.http(`${BASE}/${sim.id}`, { method: 'DELETE', token }));
  });
});
