import { randomUUID } from 'node:crypto';
import type { EdgeEvent, EdgeEventStatus } from '../../shared/schemas/edge.ts';
import type { PageData } from '../../shared/schemas/common.ts';
import { ref, type PlatformContext } from '../platform/context.ts';
import type { Writer } from '../store/durable-db.ts';

export interface NewEdgeEvent {
  edgeId: string;
  type: string;
  action: string;
  entityId: string;
  body: unknown;
}

interface EdgeEventRow {
  seq_id: number;
  id: string;
  created_time: number;
  edge_id: string;
  type: string;
  action: string;
  entity_id: string;
  uid: string;
  body: string | null;
  status: EdgeEventStatus;
  retrieved_at: number | null;
  delivered_at: number | null;
}

export interface EdgeQueueSettings {
  /** retrieved events not acknowledged within this go back to PENDING */
  ackTimeoutMs: number;
  /** delivered events older than this are dropped (0 keeps them) */
  deliveredRetentionMs: number;
}

/**
 * The durable edge event queue. Each edge reads its events in seqId order; an event moves
 * PENDING -> RETRIEVED (pulled, leased for ackTimeoutMs) -> DELIVERED (acknowledged). A lease that runs
 * out puts the event back to PENDING, so delivery is at-least-once; the uid never changes.
 */
export class EdgeQueue {
  private readonly ctx: PlatformContext;
  private readonly settings: EdgeQueueSettings;
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly timer: NodeJS.Timeout;
  private enqueued = 0;

  constructor(ctx: PlatformContext, settings: EdgeQueueSettings) {
    this.ctx = ctx;
    this.settings = settings;
    this.timer = setInterval(
      () => void this.maintain().catch(() => undefined),
      Math.max(1000, Math.min(settings.ackTimeoutMs, 30_000)),
    );
    this.timer.unref();
  }

  get ackTimeoutMs(): number {
    return this.settings.ackTimeoutMs;
  }

  /** Adds events inside the caller's write; they are durable when that write resolves. */
  enqueue(w: Writer, events: NewEdgeEvent[]): void {
    const now = this.ctx.now();
    for (const e of events) {
      w.run(
        `INSERT INTO edge_events (id, created_time, edge_id, type, action, entity_id, uid, body, status)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'PENDING')`,
        [
          randomUUID(),
          now,
          e.edgeId,
          e.type,
          e.action,
          e.entityId,
          randomUUID(),
          e.body === undefined ? null : JSON.stringify(e.body),
        ],
      );
    }
    this.enqueued += events.length;
  }

  /** Wakes long polls of these edges (call once the events are durable). */
  notify(edgeIds: Iterable<string>): void {
    for (const id of edgeIds) {
      const set = this.waiters.get(id);
      if (!set) continue;
      this.waiters.delete(id);
      for (const wake of set) wake();
    }
  }

  /**
   * The next pending events of an edge in seqId order, marked RETRIEVED. With waitMs, waits for the
   * first event to arrive (long poll).
   */
  async pull(edgeId: string, maxEvents: number, waitMs: number): Promise<EdgeEvent[]> {
    let events = await this.take(edgeId, maxEvents);
    if (events.length === 0 && waitMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, waitMs);
        let set = this.waiters.get(edgeId);
        if (!set) this.waiters.set(edgeId, (set = new Set()));
        set.add(done);
        function done() {
          clearTimeout(timer);
          set!.delete(done);
          resolve();
        }
      });
      events = await this.take(edgeId, maxEvents);
    }
    return events;
  }

  /** Marks retrieved events DELIVERED. Acknowledging twice, or an unknown seqId, changes nothing. */
  async ack(edgeId: string, ack: { seqIds?: number[]; upToSeqId?: number }): Promise<number> {
    const now = this.ctx.now();
    return this.ctx.db.write((w) => {
      let n = 0;
      if (ack.upToSeqId !== undefined) {
        n += w.run(
          `UPDATE edge_events SET status = 'DELIVERED', delivered_at = ? WHERE edge_id = ? AND status = 'RETRIEVED' AND seq_id <= ?`,
          [now, edgeId, ack.upToSeqId],
        );
      }
      for (const seqId of ack.seqIds ?? []) {
        n += w.run(
          `UPDATE edge_events SET status = 'DELIVERED', delivered_at = ? WHERE edge_id = ? AND seq_id = ? AND status = 'RETRIEVED'`,
          [now, edgeId, seqId],
        );
      }
      return n;
    });
  }

  counts(edgeId?: string): Record<EdgeEventStatus, number> {
    const rows = this.ctx.db.all<{ status: EdgeEventStatus; n: number }>(
      edgeId
        ? 'SELECT status, COUNT(*) AS n FROM edge_events WHERE edge_id = ? GROUP BY status'
        : 'SELECT status, COUNT(*) AS n FROM edge_events GROUP BY status',
      edgeId ? [edgeId] : [],
    );
    const out: Record<EdgeEventStatus, number> = { PENDING: 0, RETRIEVED: 0, DELIVERED: 0 };
    for (const r of rows) out[r.status] = Number(r.n);
    return out;
  }

  enqueuedSinceStart(): number {
    return this.enqueued;
  }

  page(
    edgeId: string,
    q: {
      pageSize: number;
      page: number;
      startTime?: number;
      endTime?: number;
      status?: EdgeEventStatus;
      sortOrder?: 'ASC' | 'DESC';
    },
  ): PageData<EdgeEvent> {
    const where = ['edge_id = ?'];
    const params: (string | number)[] = [edgeId];
    if (q.startTime !== undefined) {
      where.push('created_time >= ?');
      params.push(q.startTime);
    }
    if (q.endTime !== undefined) {
      where.push('created_time <= ?');
      params.push(q.endTime);
    }
    if (q.status) {
      where.push('status = ?');
      params.push(q.status);
    }
    const whereSql = where.join(' AND ');
    const total = Number(
      this.ctx.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM edge_events WHERE ${whereSql}`, params)?.n ??
        0,
    );
    const rows = this.ctx.db.all<EdgeEventRow>(
      `SELECT * FROM edge_events WHERE ${whereSql} ORDER BY seq_id ${q.sortOrder === 'ASC' ? 'ASC' : 'DESC'} LIMIT ? OFFSET ?`,
      [...params, q.pageSize, q.page * q.pageSize],
    );
    return {
      data: rows.map((r) => this.toEvent(r)),
      totalPages: Math.ceil(total / q.pageSize),
      totalElements: total,
      hasNext: (q.page + 1) * q.pageSize < total,
    };
  }

  /** Expired leases back to PENDING; delivered events past retention dropped. */
  async maintain(): Promise<void> {
    const now = this.ctx.now();
    const expiredBefore = now - this.settings.ackTimeoutMs;
    const hasExpired = this.ctx.db.get(
      "SELECT 1 FROM edge_events WHERE status = 'RETRIEVED' AND retrieved_at <= ? LIMIT 1",
      [expiredBefore],
    );
    const retention = this.settings.deliveredRetentionMs;
    const hasOld =
      retention > 0 &&
      this.ctx.db.get("SELECT 1 FROM edge_events WHERE status = 'DELIVERED' AND delivered_at < ? LIMIT 1", [
        now - retention,
      ]);
    if (!hasExpired && !hasOld) return;
    const edges = hasExpired
      ? this.ctx.db
          .all<{ edge_id: string }>(
            "SELECT DISTINCT edge_id FROM edge_events WHERE status = 'RETRIEVED' AND retrieved_at <= ?",
            [expiredBefore],
          )
          .map((r) => r.edge_id)
      : [];
    await this.ctx.db.write((w) => {
      if (hasExpired) {
        w.run(
          "UPDATE edge_events SET status = 'PENDING', retrieved_at = NULL WHERE status = 'RETRIEVED' AND retrieved_at <= ?",
          [expiredBefore],
        );
      }
      if (hasOld)
        w.run("DELETE FROM edge_events WHERE status = 'DELIVERED' AND delivered_at < ?", [now - retention]);
    });
    this.notify(edges);
  }

  stop(): void {
    clearInterval(this.timer);
    for (const set of this.waiters.values()) for (const wake of set) wake();
    this.waiters.clear();
  }

  private async take(edgeId: string, maxEvents: number): Promise<EdgeEvent[]> {
    const now = this.ctx.now();
    // A lease that ran out counts as pending here too, so redelivery does not wait for the sweep.
    const rows = this.ctx.db.all<EdgeEventRow>(
      `SELECT * FROM edge_events WHERE edge_id = ? AND (status = 'PENDING' OR (status = 'RETRIEVED' AND retrieved_at <= ?))
       ORDER BY seq_id LIMIT ?`,
      [edgeId, now - this.settings.ackTimeoutMs, maxEvents],
    );
    if (rows.length === 0) return [];
    const first = rows[0]!.seq_id;
    const last = rows.at(-1)!.seq_id;
    await this.ctx.db.write((w) =>
      w.run(
        `UPDATE edge_events SET status = 'RETRIEVED', retrieved_at = ? WHERE edge_id = ? AND seq_id BETWEEN ? AND ?
         AND (status = 'PENDING' OR (status = 'RETRIEVED' AND retrieved_at <= ?))`,
        [now, edgeId, first, last, now - this.settings.ackTimeoutMs],
      ),
    );
    return rows.map((r) => this.toEvent({ ...r, status: 'RETRIEVED', retrieved_at: now }));
  }

  private toEvent(r: EdgeEventRow): EdgeEvent {
    return {
      id: { id: r.id },
      createdTime: r.created_time,
      seqId: r.seq_id,
      tenantId: ref('TENANT', this.ctx.tenantId),
      edgeId: ref('EDGE', r.edge_id),
      type: r.type,
      action: r.action,
      entityId: r.entity_id,
      uid: r.uid,
      body: r.body === null ? null : (JSON.parse(r.body) as unknown),
      status: r.status,
      retrievedTime: r.retrieved_at,
      deliveredTime: r.delivered_at,
    };
  }
}
