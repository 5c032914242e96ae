import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { EdgeSimulatorDetails, EdgeSimulatorSummary } from '../../../shared/schemas/edge-simulator.ts';
import { EdgeSimulator } from '../../../main/simulator/edge-simulator.ts';
import { expectTbError, okEmpty, okJson, useSharedPlatform, type ApiPlatform } from '../api/api-kit.ts';
import { closeAll } from '../transport/mqtt/mqtt-kit.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { createEdge, type QueueCounts } from '../../fixtures/edge-test-kit.ts';
import {
  edgeWithDevice,
  eventually,
  pushTelemetryToEdges,
  TELEMETRY_TS,
} from '../../fixtures/edge-simulator-kit.ts';

/**
 * The edge simulator against the real platform: a simulated edge pulls an edge's queue over the real HTTP
 * edge API and acknowledges it; pausing lets the queue grow, resuming drains it.
 */
const BASE = '/api/sandboard/edgeSimulators';
const TS = TELEMETRY_TS;

describe('edge simulator REST against the platform', () => {
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

  async function setup() {
    return edgeWithDevice(p, token, `sim-${++counter}`);
  }

  const start = (body: Record<string, unknown>) =>
    okJson<EdgeSimulatorDetails>(p.http(BASE, { method: 'POST', token, json: body }));
  const status = (id: string) => okJson<EdgeSimulatorDetails>(p.http(`${BASE}/${id}`, { token }));
  // pause without a body, resume with {} (both accepted)
  const action = (id: string, verb: 'pause' | 'resume') =>
    okJson<EdgeSimulatorSummary>(
      p.http(`${BASE}/${id}/${verb}`, { method: 'POST', token, ...(verb === 'resume' ? { json: {} } : {}) }),
    );
  const until = (get: () => Promise<QueueCounts>, expected: QueueCounts) =>
    eventually(async () => expect(await get()).toEqual(expected));

  it('pulls and acknowledges what devices send; paused the queue grows, resumed it drains', async () => {
    const { edge, device, publish, counts } = await setup();
    const started = await start({
      edgeId: edge.id,
      secret: edge.secret,
      ratePerSec: 0,
      batchSize: 50,
      waitMs: 500,
    });
    expect(started).toEqual(
      expect.objectContaining({
        edgeId: edge.id,
        edgeName: edge.name,
        routingKey: edge.routingKey,
        state: 'running',
        ratePerSec: 0,
        batchSize: 50,
        waitMs: 500,
        lastError: null,
        recentEvents: [],
      }),
    );

    await publish(10);
    await until(counts, { PENDING: 0, RETRIEVED: 0, DELIVERED: 10 });
    const running = await eventually(async () => {
      const s = await status(started.id);
      expect(s.counters.acknowledged).toBe(10);
      return s;
    });
    expect(running.counters).toEqual(
      expect.objectContaining({ pulled: 10, acknowledged: 10, duplicates: 0, errors: 0 }),
    );
    // The log: newest first, with the bodies the edge received.
    expect(running.recentEvents.map((e) => e.body)).toEqual(
      Array.from({ length: 10 }, (_, k) => ({ data: { k: 9 - k }, ts: TS + 9 - k })),
    );
    expect(running.recentEvents[0]).toEqual(
      expect.objectContaining({
        action: 'TIMESERIES_UPDATED',
        type: 'DEVICE',
        entityId: device.id.id,
        duplicate: false,
      }),
    );
    expect(running.counters.lastSeqId).toBe(running.recentEvents[0]!.seqId);

    // Paused: it answers once no pull is in progress, and the queue grows.
    expect((await action(started.id, 'pause')).state).toBe('paused');
    await publish(5);
    expect(await counts()).toEqual({ PENDING: 5, RETRIEVED: 0, DELIVERED: 10 });
    const paused = await status(started.id);
    expect(paused.state).toBe('paused');
    expect(paused.counters.pulled).toBe(10);

    expect((await action(started.id, 'resume')).state).toBe('running');
    await until(counts, { PENDING: 0, RETRIEVED: 0, DELIVERED: 15 });
    // The queue shows them delivered as soon as the acknowledgement is applied; the simulator counts
    // them once the answer to it arrives.
    await eventually(async () => {
      const list = await okJson<EdgeSimulatorSummary[]>(p.http(BASE, { token }));
      expect(list.find((s) => s.id === started.id)?.counters).toEqual(
        expect.objectContaining({ acknowledged: 15, pulled: 15 }),
      );
    });

    await okEmpty(p.http(`${BASE}/${started.id}`, { method: 'DELETE', token }));
    await expectTbError(await p.http(`${BASE}/${started.id}`, { token }), 404, 32);
    expect((await okJson<EdgeSimulatorSummary[]>(p.http(BASE, { token }))).map((s) => s.id)).not.toContain(
      started.id,
    );
  });

  it('keeps to the chosen rate and batch size, and takes a new rate while running', async () => {
    const { edge, publish, counts } = await setup();
    const sim = await start({
      edgeId: edge.id,
      secret: edge.secret,
      ratePerSec: 20,
      batchSize: 5,
      waitMs: 200,
    });
    expect((await action(sim.id, 'pause')).state).toBe('paused');
    await publish(20);
    const resumed = Date.now();
    await action(sim.id, 'resume');
    await until(counts, { PENDING: 0, RETRIEVED: 0, DELIVERED: 20 });
    // 4 pulls of 5 paced at 20 events/s: the last one starts at least 3 x 250 ms after the first.
    expect(Date.now() - resumed).toBeGreaterThanOrEqual(700);
    const paced = await status(sim.id);
    expect(paced.counters.pulls).toBeGreaterThanOrEqual(4);

    const changed = await okJson<EdgeSimulatorSummary>(
      p.http(`${BASE}/${sim.id}/rate`, { method: 'POST', token, json: { ratePerSec: 0, batchSize: 100 } }),
    );
    expect(changed).toEqual(expect.objectContaining({ ratePerSec: 0, batchSize: 100, state: 'running' }));
    await publish(30);
    await until(counts, { PENDING: 0, RETRIEVED: 0, DELIVERED: 50 });
    await okEmpty(p.http(`${BASE}/${sim.id}`, { method: 'DELETE', token }));
  });

  it('refuses a wrong secret, an unknown edge, a second simulator for an edge and bad settings', async () => {
    const { edge } = await setup();
    await expectTbError(
      await p.http(BASE, { method: 'POST', token, json: { edgeId: edge.id, secret: 'not-the-secret' } }),
      400,
      30,
      /'secret'/,
    );
    await expectTbError(
      await p.http(BASE, {
        method: 'POST',
        token,
        json: { edgeId: '00000000-0000-4000-8000-000000000000', secret: 'whatever1' },
      }),
      404,
      32,
    );
    await expectTbError(
      await p.http(BASE, { method: 'POST', token, json: { edgeId: edge.id } }),
      400,
      30,
      /secret/,
    );
    await expectTbError(
      await p.http(BASE, {
        method: 'POST',
        token,
        json: { edgeId: edge.id, secret: edge.secret, batchSize: 0 },
      }),
      400,
      30,
      /batchSize/,
    );
    const sim = await start({ edgeId: edge.id, secret: edge.secret });
    expect(sim).toEqual(expect.objectContaining({ ratePerSec: 100, batchSize: 100, waitMs: 1000 }));
    await expectTbError(
      await p.http(BASE, { method: 'POST', token, json: { edgeId: edge.id, secret: edge.secret } }),
      409,
      2,
    );
    await expectTbError(
      await p.http(`${BASE}/${sim.id}/rate`, { method: 'POST', token, json: { ratePerSec: -1 } }),
      400,
      30,
      /ratePerSec/,
    );
    await expectTbError(await p.http(`${BASE}/nope/pause`, { method: 'POST', token }), 404, 32);
    // Customer users do not run simulators.
    const customerToken = await p.login('customer@thingsboard.org', 'customer');
    await expectTbError(await p.http(BASE, { token: customerToken }), 403, 20);
    await okEmpty(p.http(`${BASE}/${sim.id}`, { method: 'DELETE', token }));
  });

  it('stops in state error with the reason when the platform refuses it (edge deleted)', async () => {
    const { edge } = await setup();
    const sim = await start({ edgeId: edge.id, secret: edge.secret, waitMs: 100 });
    await okEmpty(p.http(`/api/edge/${edge.id}`, { method: 'DELETE', token }));
    const failed = await eventually(async () => {
      const s = await status(sim.id);
      expect(s.state).toBe('error');
      return s;
    });
    expect(failed.lastError).toMatch(/401/);
    await okEmpty(p.http(`${BASE}/${sim.id}`, { method: 'DELETE', token }));
  });
});

describe('edge simulator lifecycle', () => {
  it('is stopped with the platform, even in the middle of a long poll', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const edge = await createEdge(p.http, token, 'stop-edge');
    const sims = await Promise.all(
      [0, 1].map(async (i) => {
        const e = i === 0 ? edge : await createEdge(p.http, token, `stop-edge-${i}`);
        return okJson<EdgeSimulatorDetails>(
          p.http(BASE, { method: 'POST', token, json: { edgeId: e.id, secret: e.secret, waitMs: 10_000 } }),
        );
      }),
    );
    expect(sims.map((s) => s.state)).toEqual(['running', 'running']);
    const stopping = Date.now();
    await p.stop();
    // Without stopping the simulators first, the server would wait for their 10 s long polls.
    expect(Date.now() - stopping).toBeLessThan(7_000);
  });

  it('drops events whose uid it has already received, and counts them', async () => {
    // A stand-in edge API that answers the same event twice, then nothing.
    const event = {
      seqId: 7,
      uid: 'uid-7',
      action: 'TIMESERIES_UPDATED',
      type: 'DEVICE',
      entityId: 'd',
      createdTime: 1,
      body: { data: { a: 1 }, ts: 1 },
    };
    let pulls = 0;
    const acks: unknown[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (req.url === '/api/edge/queue/pull') {
          pulls++;
          res.end(JSON.stringify({ events: pulls <= 2 ? [event] : [], ackTimeoutMs: 1000 }));
        } else {
          acks.push(JSON.parse(body));
          res.end(JSON.stringify({ acknowledged: acks.length === 1 ? 1 : 0 }));
        }
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    onTestFinished(() => void server.close());
    const sim = new EdgeSimulator({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      routingKey: 'rk',
      secret: 'secret',
      ratePerSec: 0,
      batchSize: 10,
      waitMs: 0,
      logSize: 10,
    });
    onTestFinished(() => sim.stop());
    await eventually(async () => expect(acks).toHaveLength(2));
    expect(sim.counterValues()).toEqual(
      expect.objectContaining({ pulled: 2, duplicates: 1, acknowledged: 1, lastSeqId: 7 }),
    );
    expect(sim.recentEvents().map((e) => e.duplicate)).toEqual([true, false]);
    expect(acks).toEqual([{ seqIds: [7] }, { seqIds: [7] }]);
    await sim.stop();
  });
});
