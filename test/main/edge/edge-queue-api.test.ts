import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import {
  expectTbError,
  okJson,
  useSharedPlatform,
  waitUntilPast,
  withLoginPair,
  type ApiPlatform,
} from '../api/api-kit.ts';
import { closeAll, connect, newDevice, publishOk, type Api } from '../transport/mqtt/mqtt-kit.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import {
  assignDevice,
  chainMetadata,
  createEdge,
  EdgeClient,
  queueCounts,
  rootChainId,
  withPushToEdge,
  type ChainMetadata,
  type EdgeEventJson,
} from '../../fixtures/edge-test-kit.ts';

/**
 * The push to edge node as a user sets it up: added to the root chain through REST, fed by real MQTT
 * devices and REST attribute writes, and read by edges through the real HTTP edge API.
 */

/** A whole minute an hour ago: telemetry timestamps no "now" can collide with. */
const BASE = Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000;

interface DebugEvent {
  direction: 'IN' | 'OUT';
  relation: string | null;
  msgType: string;
  originator: string;
  data: unknown;
  metadata: Record<string, string>;
}

describe('push to edge through REST, MQTT and the HTTP edge API', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let api: Api;
  let rootId: string;
  let configured: ChainMetadata;
  let counter = 0;
  afterEach(closeAll);

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    api = { p, token };
    rootId = await rootChainId(p.http, token);
    const original = await chainMetadata(p.http, token, rootId);
    configured = await okJson<ChainMetadata>(
      p.http('/api/ruleChain/metadata', { method: 'POST', token, json: withPushToEdge(original) }),
    );
  });

  /** An edge, a device assigned to it (with an MQTT connection) and the edge's client. */
  async function edgeWithDevice(label: string) {
    const n = ++counter;
    const edge = await createEdge(p.http, token, `${label}-edge-${n}`);
    const device = await newDevice(api, `${label}-device-${n}`);
    await assignDevice(p.http, token, edge.id, device.id.id);
    const mqtt = await connect(p.urls.mqtt, device.accessToken, 5);
    return { edge, device, mqtt, client: new EdgeClient(p.urls.http, edge) };
  }

  it('brings MQTT telemetry and REST attributes of an assigned device to its edge, and nothing of others', async () => {
    const { edge, device, mqtt, client } = await edgeWithDevice('sync');
    const stranger = await newDevice(api, `sync-stranger-${++counter}`);
    const strangerMqtt = await connect(p.urls.mqtt, stranger.accessToken, 4);
    await publishOk(strangerMqtt, 'v1/devices/me/telemetry', { ts: BASE, values: { secret: 1 } });

    await publishOk(mqtt, 'v1/devices/me/telemetry', {
      ts: BASE + 1,
      values: { temperature: 21.5, on: true },
    });
    const before = Date.now();
    const res = await p.http(`/api/plugins/telemetry/DEVICE/${device.id.id}/attributes/SHARED_SCOPE`, {
      method: 'POST',
      token,
      json: { firmware: '1.2.0', interval: 5 },
    });
    expect(res.status).toBe(200);

    const events = await client.take(2);
    expect(events.map((e) => e.seqId)).toEqual([...events.map((e) => e.seqId)].sort((a, b) => a - b));
    const common = {
      edgeId: { entityType: 'EDGE', id: edge.id },
      type: 'DEVICE',
      entityId: device.id.id,
      status: 'RETRIEVED',
      uid: expect.any(String) as string,
      deliveredTime: null,
    };
    expect(events[0]).toEqual(
      expect.objectContaining({
        ...common,
        action: 'TIMESERIES_UPDATED',
        body: { data: { temperature: 21.5, on: true }, ts: BASE + 1 },
      }),
    );
    expect(events[1]).toEqual(
      expect.objectContaining({
        ...common,
        action: 'ATTRIBUTES_UPDATED',
        body: {
          kv: { firmware: '1.2.0', interval: 5 },
          ts: expect.any(Number) as number,
          scope: 'SHARED_SCOPE',
        },
      }),
    );
    expect((events[1]!.body as { ts: number }).ts).toBeGreaterThanOrEqual(before);

    // take() acknowledged them: the queue shows them delivered, with their times.
    expect(await queueCounts(p.http, token, edge.id)).toEqual({ PENDING: 0, RETRIEVED: 0, DELIVERED: 2 });
    const page = await okJson<{ data: EdgeEventJson[]; totalElements: number }>(
      p.http(`/api/edge/${edge.id}/events?pageSize=10&page=0&sortOrder=ASC`, { token }),
    );
    expect(page.totalElements).toBe(2);
    expect(page.data.map((e) => [e.uid, e.status])).toEqual(events.map((e) => [e.uid, 'DELIVERED']));
    for (const e of page.data) {
      expect(e.retrievedTime).toEqual(expect.any(Number));
      expect(e.deliveredTime).toBeGreaterThanOrEqual(e.retrievedTime!);
    }
  });

  it('sends the message on through Success unchanged (debug events of the node)', async () => {
    const { device, mqtt, client } = await edgeWithDevice('debug');
    await publishOk(mqtt, 'v1/devices/me/telemetry', { ts: BASE + 2, values: { pressure: 1013 } });
    await client.take(1);
    const nodeId = configured.nodes.find((n) => n.type === NODE_TYPES.pushToEdge)!.id!.id;
    const debug = await okJson<DebugEvent[]>(p.http(`/api/ruleNode/${nodeId}/debugEvents`, { token }));
    const mine = debug.filter((e) => e.originator === `DEVICE ${device.id.id}`);
    expect(mine.map((e) => [e.direction, e.relation])).toEqual([
      ['IN', null],
      ['OUT', 'Success'],
    ]);
    const [input, output] = mine as [DebugEvent, DebugEvent];
    expect(output.msgType).toBe('POST_TELEMETRY_REQUEST');
    expect(output.data).toEqual({ pressure: 1013 });
    expect(output.data).toEqual(input.data);
    expect(output.metadata).toEqual(input.metadata);
    expect(output.metadata).toEqual(expect.objectContaining({ ts: String(BASE + 2) }));
  });

  it('refuses bad node configurations with 400 naming the field, and stores nothing', async () => {
    const before = await chainMetadata(p.http, token, rootId);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /'scope' is required/],
      [{ scope: 'TENANT_SCOPE' }, /'scope' must be one of SERVER_SCOPE, CLIENT_SCOPE, SHARED_SCOPE/],
      [{ scope: 'SERVER_SCOPE', edgeId: 'x' }, /'edgeId' is not allowed/],
    ];
    for (const [configuration, message] of cases) {
      const bad = withPushToEdge(
        { ...before, nodes: before.nodes.filter((n) => n.type !== NODE_TYPES.pushToEdge) },
        configuration,
      );
      const res = await p.http('/api/ruleChain/metadata', { method: 'POST', token, json: bad });
      const error = await expectTbError(res, 400, 30, message);
      expect(error.message).toMatch(/nodes\[\d+\]\.configuration \(Push to edge\)/);
    }
    expect(await chainMetadata(p.http, token, rootId)).toEqual(before);
  });

  it('answers a waiting pull as soon as an event arrives (long poll)', async () => {
    const { mqtt, client } = await edgeWithDevice('poll');
    // Nothing queued: a short long poll ends empty when its time is up.
    const emptyStarted = Date.now();
    expect((await client.pull(10, 300)).events).toEqual([]);
    expect(Date.now() - emptyStarted).toBeGreaterThanOrEqual(250);

    const started = Date.now();
    const waiting = client.pull(10, 20_000);
    await publishOk(mqtt, 'v1/devices/me/telemetry', { ts: BASE + 3, values: { level: 7 } });
    const { events } = await waiting;
    expect(events.map((e) => e.body)).toEqual([{ data: { level: 7 }, ts: BASE + 3 }]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('keeps every edge in order: seqIds rise in pull order and each device arrives in publish order', async () => {
    const n = ++counter;
    const edges = await Promise.all([0, 1, 2].map((i) => createEdge(p.http, token, `order-${n}-${i}`)));
    const devices = await Promise.all([0, 1, 2].map((i) => newDevice(api, `order-${n}-dev-${i}`)));
    // device 0 -> edges 0, 1; device 1 -> edges 1, 2; device 2 -> edges 0, 2
    const routes = [
      [0, 1],
      [1, 2],
      [0, 2],
    ];
    for (const [d, list] of routes.entries()) {
      for (const e of list) await assignDevice(p.http, token, edges[e]!.id, devices[d]!.id.id);
    }
    const PER_DEVICE = 40;
    await Promise.all(
      devices.map(async (device, d) => {
        const mqtt = await connect(p.urls.mqtt, device.accessToken, 5);
        for (let i = 0; i < PER_DEVICE; i++) {
          await publishOk(mqtt, 'v1/devices/me/telemetry', { ts: BASE + i, values: { d, i } });
        }
      }),
    );
    for (const [e, edge] of edges.entries()) {
      const client = new EdgeClient(p.urls.http, edge);
      const pulled: EdgeEventJson[] = [];
      // Small pulls, several of them.
      for (;;) {
        const { events } = await client.pull(7);
        if (events.length === 0) break;
        pulled.push(...events);
        await client.ack({ upToSeqId: events.at(-1)!.seqId });
      }
      const seqIds = pulled.map((ev) => ev.seqId);
      for (let i = 1; i < seqIds.length; i++) expect(seqIds[i]).toBeGreaterThan(seqIds[i - 1]!);
      const expected = routes.flatMap((list, d) => (list.includes(e) ? [d] : []));
      for (let d = 0; d < devices.length; d++) {
        const values = pulled
          .filter((ev) => ev.entityId === devices[d]!.id.id)
          .map((ev) => (ev.body as { data: { i: number } }).data.i);
        expect(values, `edge ${e}, device ${d}`).toEqual(
          expected.includes(d) ? Array.from({ length: PER_DEVICE }, (_, i) => i) : [],
        );
      }
    }
  });

  it('lets only the edge itself pull and acknowledge its queue', async () => {
    const a = await edgeWithDevice('auth');
    const b = await edgeWithDevice('auth');
    await publishOk(a.mqtt, 'v1/devices/me/telemetry', { ts: BASE, values: { x: 1 } });

    const wrong = new EdgeClient(p.urls.http, { routingKey: a.edge.routingKey, secret: 'not-the-secret' });
    await expectTbError(await wrong.post('/api/edge/queue/pull', { maxEvents: 10 }), 401, 10);
    const anonymous = await fetch(`${p.urls.http}/api/edge/queue/pull`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await expectTbError(anonymous, 401, 10);

    const { events } = await a.client.pull(10);
    expect(events).toHaveLength(1);
    // Edge b acknowledging a's event changes nothing for a.
    expect(await b.client.ack({ seqIds: [events[0]!.seqId], upToSeqId: events[0]!.seqId })).toBe(0);
    expect(await queueCounts(p.http, token, a.edge.id)).toEqual({ PENDING: 0, RETRIEVED: 1, DELIVERED: 0 });
    expect(await a.client.ack({ seqIds: [events[0]!.seqId] })).toBe(1);
    expect(await queueCounts(p.http, token, a.edge.id)).toEqual({ PENDING: 0, RETRIEVED: 0, DELIVERED: 1 });
  });
});

describe('edge queue delivery guarantees', () => {
  it('sends unacknowledged events again after the lease runs out, same uids and seqIds; acks are idempotent', async () => {
    const p = await startTestPlatform({ edgeAckTimeoutMs: 300 });
    const token = await p.login();
    const rootId = await rootChainId(p.http, token);
    await okJson(
      p.http('/api/ruleChain/metadata', {
        method: 'POST',
        token,
        json: withPushToEdge(await chainMetadata(p.http, token, rootId)),
      }),
    );
    const edge = await createEdge(p.http, token, 'redelivery-edge');
    const device = await newDevice({ p: withLoginPair(p), token }, 'redelivery-device');
    await assignDevice(p.http, token, edge.id, device.id.id);
    const mqtt = await connect(p.urls.mqtt, device.accessToken, 4);
    for (let i = 0; i < 3; i++)
      await publishOk(mqtt, 'v1/devices/me/telemetry', { ts: BASE + i, values: { i } });
    const client = new EdgeClient(p.urls.http, edge);

    const first = await client.pull(10);
    expect(first.ackTimeoutMs).toBe(300);
    expect(first.events.map((e) => e.status)).toEqual(['RETRIEVED', 'RETRIEVED', 'RETRIEVED']);
    expect(await queueCounts(p.http, token, edge.id)).toEqual({ PENDING: 0, RETRIEVED: 3, DELIVERED: 0 });
    const retrieved = await okJson<{ data: EdgeEventJson[] }>(
      p.http(`/api/edge/${edge.id}/events?pageSize=10&page=0&status=RETRIEVED`, { token }),
    );
    expect(retrieved.data.map((e) => e.uid).sort()).toEqual(first.events.map((e) => e.uid).sort());
    // Leased: a second pull gets nothing while the lease runs.
    expect((await client.pull(10)).events).toEqual([]);

    // Not acknowledged: once the lease ran out they come again, unchanged.
    await waitUntilPast(first.events[0]!.retrievedTime! + first.ackTimeoutMs);
    const again = await client.pull(10);
    const key = (e: EdgeEventJson) => [e.seqId, e.uid, e.action, JSON.stringify(e.body)];
    expect(again.events.map(key)).toEqual(first.events.map(key));

    const last = again.events.at(-1)!.seqId;
    expect(await client.ack({ upToSeqId: last })).toBe(3);
    expect(await client.ack({ upToSeqId: last })).toBe(0);
    expect(await client.ack({ seqIds: again.events.map((e) => e.seqId) })).toBe(0);
    expect(await queueCounts(p.http, token, edge.id)).toEqual({ PENDING: 0, RETRIEVED: 0, DELIVERED: 3 });
    // Delivered for good: the lease running out again brings nothing back.
    await waitUntilPast(Date.now() + first.ackTimeoutMs);
    expect((await client.pull(10)).events).toEqual([]);
    await closeAll();
  });

  it('wakes a waiting pull with the events of a lease that ran out', async () => {
    const p = await startTestPlatform({ edgeAckTimeoutMs: 300 });
    const token = await p.login();
    const rootId = await rootChainId(p.http, token);
    await okJson(
      p.http('/api/ruleChain/metadata', {
        method: 'POST',
        token,
        json: withPushToEdge(await chainMetadata(p.http, token, rootId)),
      }),
    );
    const edge = await createEdge(p.http, token, 'wake-edge');
    const device = await newDevice({ p: withLoginPair(p), token }, 'wake-device');
    await assignDevice(p.http, token, edge.id, device.id.id);
    const mqtt = await connect(p.urls.mqtt, device.accessToken, 5);
    await publishOk(mqtt, 'v1/devices/me/telemetry', { ts: BASE, values: { v: 1 } });
    const client = new EdgeClient(p.urls.http, edge);
    const first = await client.pull(10);
    expect(first.events).toHaveLength(1);
    // The edge lost the answer and waits: the lease running out wakes it with the same event.
    const started = Date.now();
    const { events } = await client.pull(10, 20_000);
    expect(events.map((e) => e.uid)).toEqual([first.events[0]!.uid]);
    expect(Date.now() - started).toBeLessThan(10_000);
    await closeAll();
  });
});
