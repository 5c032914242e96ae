import { describe, expect, it } from 'vitest';
import type { NewEdgeEvent } from '../../../main/edge/edge-queue.ts';
import { migrations } from '../../../main/platform/migrations.ts';
import { DurableDb } from '../../../main/store/durable-db.ts';
import { openEdgeServices, type EdgeServices } from '../../fixtures/edge-test-kit.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

/**
 * Each edge numbers its own events (edgeSeq 1, 2, 3, ...) while seqId stays one sequence for every edge:
 * assigned in the write that queues the event, kept across restarts and dropped delivered events, and
 * given to the events of data dirs written before edgeSeq existed.
 */
const EDGE_SEQ_VERSION = 59;

function events(edgeIds: string[], n: number): NewEdgeEvent[] {
  return edgeIds.map((edgeId) => ({
    edgeId,
    type: 'DEVICE',
    action: 'TIMESERIES_UPDATED',
    entityId: 'device-1',
    body: { n },
  }));
}

async function twoEdges(env: EdgeServices) {
  const a = (await env.services.edges.save({ name: 'edge-a' }, env.admin)).id.id;
  const b = (await env.services.edges.save({ name: 'edge-b' }, env.admin)).id.id;
  return { a, b };
}

describe('per-edge event numbers', () => {
  it('numbers each edge on its own, with no gap, while seqIds interleave', async () => {
    const env = await openEdgeServices();
    const { a, b } = await twoEdges(env);
    await env.edgeQueue.enqueueDurable(events([a, b], 0));
    await env.edgeQueue.enqueueDurable(events([b], 1));
    // One write queuing several events of one edge numbers them in order.
    await env.db.write((w) => env.edgeQueue.enqueue(w, [...events([a], 2), ...events([a, b], 3)]));

    const pa = await env.edgeQueue.pullWithLast(a, 100, 0);
    const pb = await env.edgeQueue.pullWithLast(b, 100, 0);
    expect(pa.events.map((e) => e.edgeSeq)).toEqual([1, 2, 3]);
    expect(pb.events.map((e) => e.edgeSeq)).toEqual([1, 2, 3]);
    expect(pa.lastEdgeSeq).toBe(3);
    // seqId is shared: edge a's events skip the numbers b's events took.
    const seqA = pa.events.map((e) => e.seqId);
    expect(seqA[1]! - seqA[0]!).toBeGreaterThan(1);
    expect(
      env.edgeQueue.page(b, { pageSize: 10, page: 0, sortOrder: 'ASC' }).data.map((e) => e.edgeSeq),
    ).toEqual([1, 2, 3]);
  });

  it('takes back the numbers of a write that failed: the next events follow the last stored one', async () => {
    const env = await openEdgeServices();
    const { a, b } = await twoEdges(env);
    await env.edgeQueue.enqueueDurable(events([a, b], 0));
    await expect(
      env.db.write((w) => {
        env.edgeQueue.enqueue(w, [...events([a], 1), ...events([a, b], 2)]);
        throw new Error('the rest of this write failed');
      }),
    ).rejects.toThrow('failed');
    await env.edgeQueue.enqueueDurable(events([a], 3));
    const pa = await env.edgeQueue.pullWithLast(a, 100, 0);
    expect(pa.events.map((e) => [e.edgeSeq, (e.body as { n: number }).n])).toEqual([
      [1, 0],
      [2, 3],
    ]);
    expect(pa.lastEdgeSeq).toBe(2);
    expect((await env.edgeQueue.pullWithLast(b, 100, 0)).lastEdgeSeq).toBe(1);
    // what the store holds agrees with what was handed out
    expect(env.db.all('SELECT event_seq FROM edges ORDER BY event_seq')).toEqual([
      { event_seq: 1 },
      { event_seq: 2 },
    ]);
  });

  it('goes on after a restart and after delivered events are dropped', async () => {
    const env = await openEdgeServices();
    const { a } = await twoEdges(env);
    await env.edgeQueue.enqueueDurable([...events([a], 0), ...events([a], 1)]);
    const pulled = await env.edgeQueue.pull(a, 10, 0);
    await env.edgeQueue.ack(a, { seqIds: pulled.map((e) => e.seqId) });
    // Retention drops every delivered event: none of edge a is left in the table.
    await env.db.write((w) => w.run("DELETE FROM edge_events WHERE status = 'DELIVERED'"));
    env.edgeQueue.stop();
    await env.db.close();

    const reopened = await openEdgeServices(env.dir);
    const empty = await reopened.edgeQueue.pullWithLast(a, 10, 0);
    expect(empty).toEqual({ events: [], lastEdgeSeq: 2 });
    await reopened.edgeQueue.enqueueDurable(events([a], 2));
    expect((await reopened.edgeQueue.pull(a, 10, 0)).map((e) => e.edgeSeq)).toEqual([3]);
  });

  it('numbers the events of a data dir written before edgeSeq existed, per edge in seqId order', async () => {
    const dir = tempDir('sandboard-edge-seq-');
    const old = await DurableDb.open({
      dir,
      migrations: migrations.filter((m) => m.version < EDGE_SEQ_VERSION),
    });
    await old.write((w) => {
      for (const id of ['edge-a', 'edge-b', 'edge-c']) {
        w.run(
          `INSERT INTO edges (id, created_time, name, type, routing_key, secret_hash) VALUES (?, 0, ?, 'default', ?, 'x')`,
          [id, id, `key-${id}`],
        );
      }
      // a, b, a, a, b (a's first one already delivered); c has none.
      for (const [edge, status] of [
        ['edge-a', 'DELIVERED'],
        ['edge-b', 'PENDING'],
        ['edge-a', 'PENDING'],
        ['edge-a', 'PENDING'],
        ['edge-b', 'PENDING'],
      ]) {
        w.run(
          `INSERT INTO edge_events (id, created_time, edge_id, type, action, entity_id, uid, body, status)
           VALUES (lower(hex(randomblob(8))), 0, ?, 'DEVICE', 'TIMESERIES_UPDATED', 'd', lower(hex(randomblob(8))), '{}', ?)`,
          [edge, status],
        );
      }
    });
    await old.close();

    const { db, edgeQueue: queue } = await openEdgeServices(dir);
    const rows = db.all<{ edge_id: string; edge_seq: number }>(
      'SELECT edge_id, edge_seq FROM edge_events ORDER BY seq_id',
    );
    expect(rows.map((r) => `${r.edge_id}:${r.edge_seq}`)).toEqual([
      'edge-a:1',
      'edge-b:1',
      'edge-a:2',
      'edge-a:3',
      'edge-b:2',
    ]);
    expect([queue.lastEdgeSeq('edge-a'), queue.lastEdgeSeq('edge-b'), queue.lastEdgeSeq('edge-c')]).toEqual([
      3, 2, 0,
    ]);
    await queue.enqueueDurable(events(['edge-a', 'edge-c'], 9));
    expect(db.all('SELECT edge_id, edge_seq FROM edge_events WHERE seq_id > 5 ORDER BY seq_id')).toEqual([
      { edge_id: 'edge-a', edge_seq: 4 },
      { edge_id: 'edge-c', edge_seq: 1 },
    ]);
  });
});
