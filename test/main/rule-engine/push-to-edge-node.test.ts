import { cpSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { MsgType } from '../../../shared/rule-engine.ts';
import { newMsg, type TbMsg } from '../../../main/platform/tb-msg.ts';
import { DurableDb } from '../../../main/store/durable-db.ts';
import { migrations } from '../../../main/platform/migrations.ts';
import { openEdgeServices, pushToEdgeEngine, type EdgeServices } from '../../fixtures/edge-test-kit.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

/**
 * The push to edge node through the real rule engine and the real store (no HTTP): routing, fan-out,
 * Success only once the events are written, Failure, and what is dropped.
 */

async function setup(edgeCount: number, scope = 'SERVER_SCOPE') {
  const env = await openEdgeServices();
  const { services, admin } = env;
  const edges: string[] = [];
  for (let i = 0; i < edgeCount; i++) {
    edges.push((await services.edges.save({ name: `edge-${i}` }, admin)).id.id);
  }
  const device = (await services.devices.save({ name: 'thermometer' }, admin)).id.id;
  return { env, edges, device, ...pushToEdgeEngine(env, scope) };
}

async function assign(env: EdgeServices, edgeIds: string[], deviceId: string) {
  for (const edgeId of edgeIds) await env.services.edges.assign(edgeId, 'DEVICE', deviceId, env.admin);
}

function eventsOf(env: EdgeServices, edgeId: string) {
  return env.edgeQueue.page(edgeId, { pageSize: 1000, page: 0, sortOrder: 'ASC' }).data;
}

function allEvents(env: EdgeServices): number {
  const c = env.edgeQueue.counts();
  return c.PENDING + c.RETRIEVED + c.DELIVERED;
}

const telemetry = (deviceId: string, values: Record<string, unknown>, ts = 1_700_000_000_000): TbMsg =>
  newMsg('POST_TELEMETRY_REQUEST', { entityType: 'DEVICE', id: deviceId }, values, {
    deviceName: 'thermometer',
    deviceType: 'default',
    ts: String(ts),
  });

describe('push to edge node in the rule engine', () => {
  it('stores one event for every edge the device is assigned to, then emits Success with the message unchanged', async () => {
    const { env, edges, device, engine, outputs } = await setup(4);
    await assign(env, edges.slice(0, 3), device);
    const msg = telemetry(device, { temperature: 21.5, humidity: 40 });
    const before = structuredClone(msg);

    expect(await engine.process(msg)).toEqual([]);

    expect(outputs.map((o) => o.relation)).toEqual(['Success']);
    expect(outputs[0]!.msg).toEqual(before);
    for (const edgeId of edges.slice(0, 3)) {
      const events = eventsOf(env, edgeId);
      expect(events).toEqual([
        expect.objectContaining({
          edgeId: { entityType: 'EDGE', id: edgeId },
          type: 'DEVICE',
          action: 'TIMESERIES_UPDATED',
          entityId: device,
          body: { data: { temperature: 21.5, humidity: 40 }, ts: 1_700_000_000_000 },
          status: 'PENDING',
        }),
      ]);
    }
    expect(eventsOf(env, edges[3]!)).toEqual([]);
    const uids = edges.slice(0, 3).map((e) => eventsOf(env, e)[0]!.uid);
    expect(new Set(uids).size).toBe(3);
  });

  it('emits Success only after the events are written to the store files', async () => {
    const env = await openEdgeServices();
    const edge = (await env.services.edges.save({ name: 'edge' }, env.admin)).id.id;
    const device = (await env.services.devices.save({ name: 'meter' }, env.admin)).id.id;
    await assign(env, [edge], device);
    await env.db.flush();
    const { engine, outputs } = pushToEdgeEngine(env);
    // At the moment Success leaves the node, copy the data dir as a crash would leave it.
    const copy = tempDir('sandboard-edge-copy-');
    const originalPush = outputs.push.bind(outputs);
    outputs.push = (...items) => {
      cpSync(env.dir, copy, { recursive: true });
      return originalPush(...items);
    };
    await engine.process(telemetry(device, { energy: 7 }));
    expect(outputs.map((o) => o.relation)).toEqual(['Success']);

    const reopened = await DurableDb.open({ dir: copy, migrations });
    try {
      const rows = reopened.all<{ edge_id: string; body: string }>('SELECT edge_id, body FROM edge_events');
      expect(rows).toEqual([
        { edge_id: edge, body: JSON.stringify({ data: { energy: 7 }, ts: 1_700_000_000_000 }) },
      ]);
    } finally {
      await reopened.close();
    }
  });

  it('routes an EDGE originator to that edge only', async () => {
    const { env, edges, engine, outputs } = await setup(3);
    const msg = newMsg(
      'ATTRIBUTES_UPDATED',
      { entityType: 'EDGE', id: edges[1]! },
      { mode: 'eco' },
      {
        scope: 'SERVER_SCOPE',
      },
    );
    await engine.process(msg);
    expect(outputs.map((o) => o.relation)).toEqual(['Success']);
    expect(eventsOf(env, edges[0]!)).toEqual([]);
    expect(eventsOf(env, edges[2]!)).toEqual([]);
    expect(eventsOf(env, edges[1]!)).toEqual([
      expect.objectContaining({
        type: 'EDGE',
        entityId: edges[1],
        action: 'ATTRIBUTES_UPDATED',
        body: { kv: { mode: 'eco' }, ts: msg.ts, scope: 'SERVER_SCOPE' },
      }),
    ]);
  });

  it('routes a device profile or the tenant to every edge, a customer to its own edges', async () => {
    const { env, edges, engine, outputs } = await setup(3);
    const customer = (await env.services.customers.save({ title: 'Acme' }, env.admin)).id.id;
    await env.services.edges.assignToCustomer(edges[2]!, customer, env.admin);
    const profile = env.db.get<{ id: string }>('SELECT id FROM device_profiles LIMIT 1')!.id;

    await engine.process(
      newMsg('TIMESERIES_UPDATED', { entityType: 'DEVICE_PROFILE', id: profile }, { a: 1 }),
    );
    await engine.process(
      newMsg('TIMESERIES_UPDATED', { entityType: 'TENANT', id: env.services.ctx.tenantId }, { b: 2 }),
    );
    await engine.process(newMsg('TIMESERIES_UPDATED', { entityType: 'CUSTOMER', id: customer }, { c: 3 }));

    expect(outputs.map((o) => o.relation)).toEqual(['Success', 'Success', 'Success']);
    const data = (edgeId: string) => eventsOf(env, edgeId).map((e) => (e.body as { data: unknown }).data);
    expect(data(edges[0]!)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(data(edges[1]!)).toEqual([{ a: 1 }, { b: 2 }]);
    expect(data(edges[2]!)).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
  });

  it('acknowledges a message whose originator is on no edge: no output, nothing stored, no error', async () => {
    const { env, device, engine, outputs } = await setup(2);
    expect(await engine.process(telemetry(device, { temperature: 1 }))).toEqual([]);
    expect(outputs).toEqual([]);
    expect(allEvents(env)).toBe(0);
  });

  it('drops messages that came from an edge (metadata source=edge), so nothing loops back', async () => {
    const { env, edges, device, engine, outputs } = await setup(1);
    await assign(env, edges, device);
    const msg = newMsg(
      'POST_TELEMETRY_REQUEST',
      { entityType: 'DEVICE', id: device },
      { t: 1 },
      { source: 'edge' },
    );
    expect(await engine.process(msg)).toEqual([]);
    expect(outputs).toEqual([]);
    expect(allEvents(env)).toBe(0);
  });

  it.each<MsgType>(['RPC_CALL_FROM_SERVER_TO_DEVICE', 'ENTITY_CREATED', 'TIMESERIES_DELETED'])(
    'routes an unsupported type (%s) to Failure and stores nothing',
    async (type) => {
      const { env, edges, device, engine, outputs } = await setup(1);
      await assign(env, edges, device);
      const msg = newMsg(type, { entityType: 'DEVICE', id: device }, { x: 1 });
      const errors = await engine.process(msg);
      expect(errors).toEqual([expect.stringContaining(`Unsupported message type ${type}`)]);
      expect(outputs.map((o) => o.relation)).toEqual(['Failure']);
      expect(outputs[0]!.msg.data).toEqual({ x: 1 });
      expect(outputs[0]!.msg.metadata.error).toContain(type);
      expect(allEvents(env)).toBe(0);
    },
  );

  it('routes to Failure when the store fails, and emits no Success', async () => {
    const { env, edges, device, engine, outputs } = await setup(1);
    await assign(env, edges, device);
    await env.db.close();
    const errors = await engine.process(telemetry(device, { t: 1 }));
    expect(errors).toHaveLength(1);
    expect(outputs.map((o) => o.relation)).toEqual(['Failure']);
  });

  it('takes the scope of attribute events from the metadata, else from the configuration', async () => {
    const { env, edges, device, engine } = await setup(1, 'CLIENT_SCOPE');
    await assign(env, edges, device);
    const origin = { entityType: 'DEVICE', id: device };
    await engine.process(newMsg('ATTRIBUTES_UPDATED', origin, { a: 1 }));
    await engine.process(newMsg('ATTRIBUTES_UPDATED', origin, { b: 2 }, { scope: 'SHARED_SCOPE' }));
    await engine.process(newMsg('POST_ATTRIBUTES_REQUEST', origin, { c: 3 }));
    await engine.process(
      newMsg('ATTRIBUTES_DELETED', origin, { attributes: ['a'] }, { scope: 'SERVER_SCOPE' }),
    );
    await engine.process(newMsg('CONNECT_EVENT', origin, { active: true }, { scope: 'SERVER_SCOPE' }));
    await engine.process(newMsg('DISCONNECT_EVENT', origin, { active: false }));
    const summary = eventsOf(env, edges[0]!).map((e) => {
      const body = e.body as { scope?: string; kv?: unknown; data?: unknown; keys?: unknown };
      return [e.action, body.scope ?? null, body.kv ?? body.data ?? body.keys];
    });
    expect(summary).toEqual([
      ['ATTRIBUTES_UPDATED', 'CLIENT_SCOPE', { a: 1 }],
      ['ATTRIBUTES_UPDATED', 'SHARED_SCOPE', { b: 2 }],
      ['POST_ATTRIBUTES', 'CLIENT_SCOPE', { c: 3 }],
      ['ATTRIBUTES_DELETED', 'SERVER_SCOPE', ['a']],
      ['ATTRIBUTES_UPDATED', 'SERVER_SCOPE', { active: true }],
      ['TIMESERIES_UPDATED', null, { active: false }],
    ]);
  });

  it('keeps the order of messages per edge when many are in flight at once', async () => {
    const { env, edges, device, engine, outputs } = await setup(3);
    const other = (await env.services.devices.save({ name: 'second' }, env.admin)).id.id;
    await assign(env, edges.slice(0, 2), device);
    await assign(env, edges.slice(1), other);
    const messages = Array.from({ length: 300 }, (_, i) =>
      telemetry(i % 2 ? other : device, { n: i }, 1_000 + i),
    );
    // All in flight together: they share journal groups.
    await Promise.all(messages.map((m) => engine.process(m)));
    expect(outputs.filter((o) => o.relation === 'Success')).toHaveLength(300);
    const seen = (edgeId: string) => {
      const events = eventsOf(env, edgeId);
      const seqIds = events.map((e) => e.seqId);
      expect([...seqIds].sort((a, b) => a - b)).toEqual(seqIds);
      return events.map((e) => (e.body as { data: { n: number } }).data.n);
    };
    const all = messages.map((_, i) => i);
    expect(seen(edges[0]!)).toEqual(all.filter((i) => i % 2 === 0));
    expect(seen(edges[1]!)).toEqual(all);
    expect(seen(edges[2]!)).toEqual(all.filter((i) => i % 2 === 1));
  });
});
