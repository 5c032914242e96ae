import { describe, expect, it } from 'vitest';
import type { EdgeQueue, NewEdgeEvent } from '../../../main/edge/edge-queue.ts';
import { openEdgeServices, type EdgeServices } from '../../fixtures/edge-test-kit.ts';

/**
 * The edge queue itself (in-process, real store, a clock the test moves): leases, run-out leases,
 * acknowledgements in every form, restarts, statuses as the REST API shows them.
 */
const ACK_TIMEOUT = 30_000;

async function setup(dir?: string) {
  const env = await openEdgeServices(dir);
  let clock = 1_700_000_000_000;
  env.services.ctx.now = () => clock;
  const advance = (ms: number) => (clock += ms);
  const edge = (await env.services.edges.save({ name: 'edge-a' }, env.admin)).id.id;
  const other = (await env.services.edges.save({ name: 'edge-b' }, env.admin)).id.id;
  return { env, queue: env.edgeQueue, edge, other, advance };
}

async function add(env: EdgeServices, edgeId: string, from: number, count: number): Promise<void> {
  const events: NewEdgeEvent[] = Array.from({ length: count }, (_, i) => ({
    edgeId,
    type: 'DEVICE',
    action: 'TIMESERIES_UPDATED',
    entityId: 'device-1',
    body: { data: { n: from + i }, ts: from + i },
  }));
  await env.db.write((w) => env.edgeQueue.enqueue(w, events));
}

const numbers = (events: { body: unknown }[]) =>
  events.map((e) => (e.body as { data: { n: number } }).data.n);
const statuses = (queue: EdgeQueue, edgeId: string) =>
  queue.page(edgeId, { pageSize: 100, page: 0, sortOrder: 'ASC' }).data.map((e) => e.status);

describe('edge queue', () => {
  it('hands out events in order, leased until acknowledged or run out, run-out ones first again', async () => {
    const { env, queue, edge, advance } = await setup();
    await add(env, edge, 0, 6);
    const first = await queue.pull(edge, 2, 0);
    expect(numbers(first)).toEqual([0, 1]);
    advance(1000);
    const second = await queue.pull(edge, 2, 0);
    expect(numbers(second)).toEqual([2, 3]);
    expect(queue.counts(edge)).toEqual({ PENDING: 2, RETRIEVED: 4, DELIVERED: 0 });
    expect(statuses(queue, edge)).toEqual([
      'RETRIEVED',
      'RETRIEVED',
      'RETRIEVED',
      'RETRIEVED',
      'PENDING',
      'PENDING',
    ]);

    // The first lease runs out (the second not yet): 0 and 1 come again, before 4 and 5.
    advance(ACK_TIMEOUT - 500);
    expect(queue.counts(edge)).toEqual({ PENDING: 4, RETRIEVED: 2, DELIVERED: 0 });
    const third = await queue.pull(edge, 3, 0);
    expect(numbers(third)).toEqual([0, 1, 4]);
    expect(third.slice(0, 2).map((e) => [e.seqId, e.uid])).toEqual(first.map((e) => [e.seqId, e.uid]));
    const fourth = await queue.pull(edge, 10, 0);
    expect(numbers(fourth)).toEqual([5]);
    expect(await queue.pull(edge, 10, 0)).toEqual([]);
    expect(queue.counts(edge)).toEqual({ PENDING: 0, RETRIEVED: 6, DELIVERED: 0 });
    // Leases interleave now (0, 1, 4 | 2, 3 | 5): one acknowledgement still takes exactly them all.
    expect(await queue.ack(edge, { upToSeqId: fourth[0]!.seqId })).toBe(6);
    expect(queue.counts(edge)).toEqual({ PENDING: 0, RETRIEVED: 0, DELIVERED: 6 });
  });

  it('acknowledges listed seqIds, ranges, run-out leases and nothing twice', async () => {
    const { env, queue, edge, other, advance } = await setup();
    await add(env, edge, 0, 5);
    await add(env, other, 100, 2);
    const pulled = await queue.pull(edge, 10, 0);
    const seq = pulled.map((e) => e.seqId);
    const otherPulled = await queue.pull(other, 10, 0);

    expect(await queue.ack(edge, { seqIds: [seq[2]!] })).toBe(1);
    expect(await queue.ack(edge, { seqIds: [seq[2]!] })).toBe(0);
    // Another edge's seqIds, and unknown ones, change nothing.
    expect(await queue.ack(edge, { seqIds: otherPulled.map((e) => e.seqId), upToSeqId: 0 })).toBe(0);
    expect(await queue.ack(edge, { seqIds: [999_999] })).toBe(0);
    // Up to seq[3]: 0, 1 and 3 (2 already delivered); around the hole left by 2.
    expect(await queue.ack(edge, { upToSeqId: seq[3]! })).toBe(3);
    expect(statuses(queue, edge)).toEqual(['DELIVERED', 'DELIVERED', 'DELIVERED', 'DELIVERED', 'RETRIEVED']);

    expect(queue.counts(other)).toEqual({ PENDING: 0, RETRIEVED: 2, DELIVERED: 0 });

    // A lease that ran out and was not handed out again can still be acknowledged.
    advance(ACK_TIMEOUT + 1);
    expect(statuses(queue, edge).at(-1)).toBe('PENDING');
    expect(await queue.ack(edge, { upToSeqId: seq[4]! })).toBe(1);
    expect(queue.counts(edge)).toEqual({ PENDING: 0, RETRIEVED: 0, DELIVERED: 5 });
    expect(await queue.pull(edge, 10, 0)).toEqual([]);
    const delivered = queue.page(edge, { pageSize: 10, page: 0, status: 'DELIVERED' });
    expect(delivered.totalElements).toBe(5);
    for (const e of delivered.data) expect(e.deliveredTime).toBeGreaterThanOrEqual(e.retrievedTime!);
    expect(queue.counts(other)).toEqual({ PENDING: 2, RETRIEVED: 0, DELIVERED: 0 });
  });

  it('answers a pull only once the events it hands out are durable', async () => {
    const { env, queue, edge } = await setup();
    let durable = false;
    // Not awaited: the events are in the store's memory, their journal group not yet on disk.
    const written = env.db
      .write((w) => queue.enqueue(w, [{ edgeId: edge, type: 'DEVICE', action: 'X', entityId: 'd', body: 1 }]))
      .then(() => (durable = true));
    const events = await queue.pull(edge, 10, 0);
    expect(events).toHaveLength(1);
    expect(durable).toBe(true);
    await written;
  });

  it('filters the event page by status the way pulls see it', async () => {
    const { env, queue, edge } = await setup();
    await add(env, edge, 0, 4);
    const [a, b] = await queue.pull(edge, 2, 0);
    await queue.ack(edge, { seqIds: [a!.seqId] });
    const page = (status: 'PENDING' | 'RETRIEVED' | 'DELIVERED') =>
      numbers(queue.page(edge, { pageSize: 10, page: 0, status, sortOrder: 'ASC' }).data);
    expect(page('DELIVERED')).toEqual([0]);
    expect(page('RETRIEVED')).toEqual([1]);
    expect(page('PENDING')).toEqual([2, 3]);
    expect(queue.page(edge, { pageSize: 1, page: 1, status: 'PENDING', sortOrder: 'DESC' })).toEqual(
      expect.objectContaining({ totalElements: 2, totalPages: 2, hasNext: false }),
    );
    expect(b!.status).toBe('RETRIEVED');
  });

  it('keeps the order of a message fanned out to many edges and of large batches', async () => {
    const { env, queue, edge } = await setup();
    await add(env, edge, 0, 150);
    const all = await queue.pull(edge, 1000, 0);
    expect(numbers(all)).toEqual(Array.from({ length: 150 }, (_, i) => i));
    const seqIds = all.map((e) => e.seqId);
    expect(seqIds).toEqual([...seqIds].sort((x, y) => x - y));
    expect(new Set(all.map((e) => e.uid)).size).toBe(150);
  });

  it('forgets leases on restart: what was retrieved and not acknowledged is pending again', async () => {
    const first = await setup();
    await add(first.env, first.edge, 0, 3);
    const pulled = await first.queue.pull(first.edge, 2, 0);
    await first.queue.ack(first.edge, { seqIds: [pulled[0]!.seqId] });
    first.env.edgeQueue.stop();
    await first.env.db.close();

    const reopened = await openEdgeServices(first.env.dir);
    const queue = reopened.edgeQueue;
    expect(queue.counts(first.edge)).toEqual({ PENDING: 2, RETRIEVED: 0, DELIVERED: 1 });
    const again = await queue.pull(first.edge, 10, 0);
    expect(again.map((e) => e.uid)).toEqual([pulled[1]!.uid, expect.any(String)]);
    expect(numbers(again)).toEqual([1, 2]);
  });

  it('puts RETRIEVED rows of older stores back to PENDING when it starts', async () => {
    const first = await setup();
    await add(first.env, first.edge, 0, 2);
    await first.env.db.write((w) => w.run("UPDATE edge_events SET status = 'RETRIEVED', retrieved_at = 1"));
    first.env.edgeQueue.stop();
    await first.env.db.close();
    const reopened = await openEdgeServices(first.env.dir);
    expect(reopened.edgeQueue.counts()).toEqual({ PENDING: 2, RETRIEVED: 0, DELIVERED: 0 });
    expect(numbers(await reopened.edgeQueue.pull(first.edge, 10, 0))).toEqual([0, 1]);
  });

  it('wakes a long poll when events arrive, and when a lease runs out', async () => {
    const { env, queue, edge, advance } = await setup();
    const waiting = queue.pull(edge, 10, 60_000);
    await add(env, edge, 0, 1);
    queue.notify([edge]);
    const [event] = await waiting;
    expect(numbers([event!])).toEqual([0]);

    const second = queue.pull(edge, 10, 60_000);
    advance(ACK_TIMEOUT);
    await queue.maintain();
    expect((await second).map((e) => e.uid)).toEqual([event!.uid]);
  });

  it('drops the leases of a deleted edge, and removes delivered events past retention', async () => {
    const { env, queue, edge } = await setup();
    await add(env, edge, 0, 2);
    await queue.pull(edge, 10, 0);
    await env.services.edges.delete(edge, env.admin);
    await queue.maintain();
    expect(queue.counts(edge)).toEqual({ PENDING: 0, RETRIEVED: 0, DELIVERED: 0 });
    expect(queue.counts()).toEqual({ PENDING: 0, RETRIEVED: 0, DELIVERED: 0 });
  });
});
