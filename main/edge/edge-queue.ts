import { randomUUID } from 'node:crypto';
import type { SqlValue } from 'sql.js';
import type { EdgeEvent, EdgeEventStatus } from '../../shared/schemas/edge.ts';
import type { PageData } from '../../shared/schemas/common.ts';
import { ref, type PlatformContext } from '../platform/context.ts';
import type { Param, Writer } from '../store/durable-db.ts';

export interface NewEdgeEvent {
  edgeId: string;
  type: string;
  action: string;
  entityId: string;
  body: unknown;
}

export interface EdgeQueueSettings {
  /** retrieved events not acknowledged within this go back to PENDING */
  ackTimeoutMs: number;
  /** delivered events older than this are dropped (0 keeps them) */
  deliveredRetentionMs: number;
}

/** One hand-out of events to an edge: retrieved at, acknowledge before. */
interface Lease {
  retrievedAt: number;
  until: number;
  seqIds: number[];
}

/** What an edge has been handed and not acknowledged yet. */
interface EdgeLeases {
  /**
   * The highest seqId handed out since the start. Invariant: every PENDING event of the edge at or below
   * it is in `out` (handed out under an active or a run-out lease); new events always come above it.
   */
  cursor: number;
  /** seqId -> the lease it was last handed out under, until acknowledged */
  out: Map<number, Lease>;
  /** leases in hand-out order, hence in expiry order; an expired one moves its events to `released` */
  leases: Lease[];
  /** seqIds (ascending) whose lease ran out: handed out again first, before newer events */
  released: number[];
}

/** Edges whose edgeSeq counter is kept in memory at most (others are read from the store again). */
const EDGE_SEQ_CACHE_SIZE = 10_000;

/** Events per INSERT statement at most. */
const INSERT_ROWS = 64;
const insertSqls: string[] = [];

/** INSERT of `rows` events (cached per row count: DurableDb prepares each distinct text once). */
function insertSql(rows: number): string {
  return (insertSqls[rows] ??=
    'INSERT INTO edge_events (id, created_time, edge_id, type, action, entity_id, uid, body, edge_seq, status) VALUES ' +
    Array.from({ length: rows }, () => "(?, ?, ?, ?, ?, ?, ?, ?, ?, 'PENDING')").join(', '));
}

/** Columns a pull reads, in this order (arrays, not objects: sql.js names every column of every row). */
const EVENT_COLUMNS =
  'seq_id, id, created_time, type, action, entity_id, uid, body, status, retrieved_at, delivered_at, edge_seq';

/** What a pull hands an edge: its next events, and the last edgeSeq given to any of its events so far. */
export interface PullResult {
  events: EdgeEvent[];
  /** with no event in `events`, every event of the edge up to this edgeSeq has been acknowledged */
  lastEdgeSeq: number;
}

/**
 * The durable edge event queue. Each edge reads its events in seqId order; an event moves
 * PENDING -> RETRIEVED (pulled, leased for ackTimeoutMs) -> DELIVERED (acknowledged). A lease that runs
 * out puts the event back to PENDING, so delivery is at-least-once; the uid never changes.
 *
 * Events and their delivery are durable; leases live in memory (a pull writes nothing, which keeps pulls
 * cheap). A restart ends every lease at once: what was retrieved and not acknowledged is pending again.
 */
export class EdgeQueue {
  private readonly ctx: PlatformContext;
  private readonly settings: EdgeQueueSettings;
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly edges = new Map<string, EdgeLeases>();
  /** edgeSeq counters read or moved on so far (the store's values, including the current write's) */
  private readonly edgeSeqs = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private enqueued = 0;
  private stopped = false;
  /** every event up to this seqId is known to be durable: pulls of them need not wait for the journal */
  private durableSeq: number;

  constructor(ctx: PlatformContext, settings: EdgeQueueSettings) {
    this.ctx = ctx;
    this.settings = settings;
    this.timer = setInterval(
      () => void this.maintain().catch(() => undefined),
      Math.max(250, Math.min(settings.ackTimeoutMs, 30_000)),
    );
    this.timer.unref();
    // What the store holds when it opens is on disk.
    this.durableSeq = Number(
      ctx.db.get<{ n: number | null }>('SELECT MAX(seq_id) AS n FROM edge_events')?.n ?? 0,
    );
    // Stores written before leases moved to memory may hold RETRIEVED rows: no lease survives a restart.
    if (ctx.db.get("SELECT 1 FROM edge_events WHERE status = 'RETRIEVED' LIMIT 1")) {
      void ctx.db
        .write((w) =>
          w.run("UPDATE edge_events SET status = 'PENDING', retrieved_at = NULL WHERE status = 'RETRIEVED'"),
        )
        .catch(() => undefined);
    }
  }

  get ackTimeoutMs(): number {
    return this.settings.ackTimeoutMs;
  }

  /**
   * Adds events inside the caller's write, in order (seqIds follow the array); they are durable when that
   * write resolves. One statement carries up to INSERT_ROWS events (a message fanned out to many edges).
   * Each event also takes its edge's next edgeSeq, in the same write.
   */
  enqueue(w: Writer, events: NewEdgeEvent[]): void {
    const now = this.ctx.now();
    const edgeSeqs = this.nextEdgeSeqs(w, events);
    for (let start = 0; start < events.length; start += INSERT_ROWS) {
      const chunk = events.length - start <= INSERT_ROWS ? events.length - start : INSERT_ROWS;
      const params: Param[] = new Array<Param>(chunk * 9);
      let bodyJson: string | null = null;
      let bodyOf: unknown = undefined;
      for (let i = 0; i < chunk; i++) {
        const e = events[start + i]!;
        // A fanned-out message shares one body object: serialize it once.
        if (i === 0 || e.body !== bodyOf) {
          bodyOf = e.body;
          bodyJson = e.body === undefined ? null : JSON.stringify(e.body);
        }
        const o = i * 9;
        params[o] = randomUUID();
        params[o + 1] = now;
        params[o + 2] = e.edgeId;
        params[o + 3] = e.type;
        params[o + 4] = e.action;
        params[o + 5] = e.entityId;
        params[o + 6] = randomUUID();
        params[o + 7] = bodyJson;
        params[o + 8] = edgeSeqs[start + i]!;
      }
      w.run(insertSql(chunk), params);
    }
    this.enqueued += events.length;
  }

  /**
   * The edgeSeq of each event (its edge's counter, counted on in array order), with the counters moved on
   * in the same write by one journaled UPDATE to the new values (a replay sets the same ones). Counters
   * are read from the store once per edge and then kept here (a rolled-back write forgets those it moved).
   */
  private nextEdgeSeqs(w: Writer, events: NewEdgeEvent[]): number[] {
    const before = new Map<string, number>();
    for (const e of events)
      if (!before.has(e.edgeId)) before.set(e.edgeId, this.edgeSeqs.get(e.edgeId) ?? -1);
    const unknown = [...before].filter(([, n]) => n < 0).map(([id]) => id);
    if (unknown.length > 0) {
      for (const id of unknown) before.set(id, 0);
      for (const r of w.all<{ id: string; event_seq: number }>(
        'SELECT id, event_seq FROM edges WHERE id IN (SELECT value FROM json_each(?))',
        [JSON.stringify(unknown)],
      )) {
        before.set(r.id, Number(r.event_seq));
      }
    }
    const out = new Array<number>(events.length);
    const last = new Map(before);
    for (let i = 0; i < events.length; i++) {
      const id = events[i]!.edgeId;
      const n = last.get(id)! + 1;
      last.set(id, n);
      out[i] = n;
    }
    if (last.size === 1) {
      const [id, n] = last.entries().next().value!;
      w.run('UPDATE edges SET event_seq = ? WHERE id = ?', [n, id]);
    } else {
      w.run('UPDATE edges SET event_seq = j.value FROM json_each(?) AS j WHERE edges.id = j.key', [
        JSON.stringify(Object.fromEntries(last)),
      ]);
    }
    w.onRollback(() => {
      for (const id of last.keys()) this.edgeSeqs.delete(id);
    });
    for (const [id, n] of last) this.rememberEdgeSeq(id, n);
    return out;
  }

  private rememberEdgeSeq(edgeId: string, n: number): void {
    if (!this.edgeSeqs.has(edgeId) && this.edgeSeqs.size >= EDGE_SEQ_CACHE_SIZE)
      this.edgeSeqs.delete(this.edgeSeqs.keys().next().value!);
    this.edgeSeqs.set(edgeId, n);
  }

  /**
   * Adds events in a write of their own and resolves once they are durable; then wakes the long polls of
   * their edges. (The push to edge node's path; enqueue() is for callers with a write of their own.)
   */
  async enqueueDurable(events: NewEdgeEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.ctx.admit?.();
    const last = await this.ctx.db.write((w) => {
      this.enqueue(w, events);
      return Number(w.get<{ id: number }>('SELECT last_insert_rowid() AS id')?.id ?? 0);
    });
    // Groups become durable in order: so is every event inserted before these.
    if (last > this.durableSeq) this.durableSeq = last;
    this.notify(new Set(events.map((e) => e.edgeId)));
    if (this.ctx.events.listenerCount('edgeEventsQueued'))
      this.ctx.events.emit('edgeEventsQueued', {
        events: events.map(({ edgeId, type, action, entityId }) => ({ edgeId, type, action, entityId })),
      });
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
   * first event to arrive (long poll). Answers only once every event handed out is durable.
   */
  async pull(edgeId: string, maxEvents: number, waitMs: number): Promise<EdgeEvent[]> {
    return (await this.pullWithLast(edgeId, maxEvents, waitMs)).events;
  }

  /** pull(), with the edge's last edgeSeq read in the same synchronous step as the last take. */
  async pullWithLast(edgeId: string, maxEvents: number, waitMs: number): Promise<PullResult> {
    // take() is synchronous, so a notify cannot slip in between an empty take and the wait.
    let events = this.take(edgeId, maxEvents);
    const deadline = Date.now() + waitMs;
    while (events.length === 0 && !this.stopped) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        let set = this.waiters.get(edgeId);
        if (!set) this.waiters.set(edgeId, (set = new Set()));
        set.add(done);
        function done() {
          clearTimeout(timer);
          set!.delete(done);
          resolve();
        }
      });
      events = this.take(edgeId, maxEvents);
    }
    const lastEdgeSeq = this.lastEdgeSeq(edgeId);
    // Reads see writes whose group is not fsynced yet: answer once everything read is durable (a write
    // joining the current group resolves after it and every group before it).
    if (events.length > 0 && events.at(-1)!.seqId > this.durableSeq) {
      await this.ctx.db.write(() => undefined);
    }
    return { events, lastEdgeSeq };
  }

  /** The last edgeSeq given to an event of this edge (0: none yet). */
  lastEdgeSeq(edgeId: string): number {
    return (
      this.edgeSeqs.get(edgeId) ??
      Number(
        this.ctx.db.get<{ n: number }>('SELECT event_seq AS n FROM edges WHERE id = ?', [edgeId])?.n ?? 0,
      )
    );
  }

  /**
   * Marks retrieved events DELIVERED: the listed seqIds, and with upToSeqId every event up to it that the
   * edge retrieved (including those whose lease ran out and that were not handed out again yet).
   * Acknowledging twice, or an unknown seqId, changes nothing.
   */
  async ack(edgeId: string, ack: { seqIds?: number[]; upToSeqId?: number }): Promise<number> {
    const state = this.edges.get(edgeId);
    if (!state) return 0;
    const byLease = new Map<Lease, number[]>();
    const add = (seqId: number, lease: Lease) => {
      const list = byLease.get(lease);
      if (list) list.push(seqId);
      else byLease.set(lease, [seqId]);
    };
    if (ack.upToSeqId !== undefined) {
      for (const [seqId, lease] of state.out) if (seqId <= ack.upToSeqId) add(seqId, lease);
    }
    for (const seqId of ack.seqIds ?? []) {
      const lease = state.out.get(seqId);
      if (lease && (ack.upToSeqId === undefined || seqId > ack.upToSeqId)) add(seqId, lease);
    }
    if (byLease.size === 0) return 0;
    const now = this.ctx.now();
    return this.ctx.db.write((w) => {
      let n = 0;
      for (const [lease, seqIds] of byLease) {
        seqIds.sort((a, b) => a - b);
        const lo = seqIds[0]!;
        const hi = seqIds.at(-1)!;
        // Every PENDING event of the edge at or below the cursor is in `out`: when the ones within [lo, hi]
        // are exactly these, a seq_id range is the same set and much cheaper than a list.
        let inRange = 0;
        for (const seqId of state.out.keys()) if (seqId >= lo && seqId <= hi) inRange++;
        n +=
          inRange === seqIds.length
            ? w.run(
                `UPDATE edge_events SET status = 'DELIVERED', delivered_at = ?, retrieved_at = ?
                 WHERE seq_id BETWEEN ? AND ? AND +edge_id = ? AND +status = 'PENDING'`,
                [now, lease.retrievedAt, lo, hi, edgeId],
              )
            : w.run(
                `UPDATE edge_events SET status = 'DELIVERED', delivered_at = ?, retrieved_at = ?
                 WHERE seq_id IN (SELECT value FROM json_each(?)) AND +edge_id = ? AND +status = 'PENDING'`,
                [now, lease.retrievedAt, JSON.stringify(seqIds), edgeId],
              );
      }
      // Only once the update ran (a throw above leaves the leases as they were).
      for (const seqIds of byLease.values()) for (const seqId of seqIds) state.out.delete(seqId);
      this.forgetIfIdle(edgeId, state);
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
    for (const r of rows) out[r.status] += Number(r.n);
    const now = this.ctx.now();
    let leased = 0;
    for (const [id, state] of this.edges) {
      if (edgeId !== undefined && id !== edgeId) continue;
      for (const lease of state.out.values()) if (lease.until > now) leased++;
    }
    // Leased events are PENDING rows: a lease is not written down.
    const retrieved = Math.min(leased, out.PENDING);
    out.PENDING -= retrieved;
    out.RETRIEVED += retrieved;
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
    const params: Param[] = [edgeId];
    if (q.startTime !== undefined) {
      where.push('created_time >= ?');
      params.push(q.startTime);
    }
    if (q.endTime !== undefined) {
      where.push('created_time <= ?');
      params.push(q.endTime);
    }
    const now = this.ctx.now();
    const state = this.edges.get(edgeId);
    if (q.status === 'DELIVERED') where.push("status = 'DELIVERED'");
    else if (q.status) {
      const leased: number[] = [];
      for (const [seqId, lease] of state?.out ?? []) if (lease.until > now) leased.push(seqId);
      where.push(
        `status IN ('PENDING', 'RETRIEVED') AND seq_id ${q.status === 'RETRIEVED' ? 'IN' : 'NOT IN'} (SELECT value FROM json_each(?))`,
      );
      params.push(JSON.stringify(leased));
    }
    const whereSql = where.join(' AND ');
    const total = Number(
      this.ctx.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM edge_events WHERE ${whereSql}`, params)?.n ??
        0,
    );
    const rows = this.select(
      `SELECT ${EVENT_COLUMNS} FROM edge_events WHERE ${whereSql} ORDER BY seq_id ${q.sortOrder === 'ASC' ? 'ASC' : 'DESC'} LIMIT ? OFFSET ?`,
      [...params, q.pageSize, q.page * q.pageSize],
    );
    const refs = this.refs(edgeId);
    return {
      data: rows.map((r) => {
        const lease = r[8] === 'DELIVERED' ? undefined : state?.out.get(r[0] as number);
        return this.toEvent(
          refs,
          r,
          lease && lease.until > now ? 'RETRIEVED' : undefined,
          lease?.retrievedAt,
        );
      }),
      totalPages: Math.ceil(total / q.pageSize),
      totalElements: total,
      hasNext: (q.page + 1) * q.pageSize < total,
    };
  }

  /** Run-out leases back to PENDING (long polls woken); delivered events past retention dropped. */
  async maintain(): Promise<void> {
    const now = this.ctx.now();
    const woken: string[] = [];
    for (const [edgeId, state] of this.edges) {
      // A deleted edge's events are gone with it: so are its leases.
      if (!this.ctx.db.get('SELECT 1 FROM edges WHERE id = ?', [edgeId])) {
        this.edges.delete(edgeId);
        continue;
      }
      if (this.release(state, now)) woken.push(edgeId);
      this.forgetIfIdle(edgeId, state);
    }
    this.notify(woken);
    const retention = this.settings.deliveredRetentionMs;
    if (
      retention > 0 &&
      this.ctx.db.get("SELECT 1 FROM edge_events WHERE status = 'DELIVERED' AND delivered_at < ? LIMIT 1", [
        now - retention,
      ])
    ) {
      await this.ctx.db.write((w) =>
        w.run("DELETE FROM edge_events WHERE status = 'DELIVERED' AND delivered_at < ?", [now - retention]),
      );
    }
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    for (const set of this.waiters.values()) for (const wake of set) wake();
    this.waiters.clear();
  }

  /** Moves the events of run-out leases to `released`; true if there were any. */
  private release(state: EdgeLeases, now: number): boolean {
    let moved = false;
    while (state.leases.length > 0 && state.leases[0]!.until <= now) {
      const lease = state.leases.shift()!;
      for (const seqId of lease.seqIds) {
        if (state.out.get(seqId) === lease) {
          state.released.push(seqId);
          moved = true;
        }
      }
    }
    if (moved) state.released.sort((a, b) => a - b);
    return moved;
  }

  private forgetIfIdle(edgeId: string, state: EdgeLeases): void {
    // With nothing handed out, no PENDING event lies at or below the cursor: starting over from 0 is the same.
    if (state.out.size === 0) this.edges.delete(edgeId);
  }

  /** Leases the next events of an edge (run-out ones first), synchronously. */
  private take(edgeId: string, maxEvents: number): EdgeEvent[] {
    const now = this.ctx.now();
    let state = this.edges.get(edgeId);
    let rows: SqlValue[][] = [];
    if (state) {
      this.release(state, now);
      if (state.released.length > 0) {
        // Run-out events first, lowest first: they are older than anything above the cursor.
        const out = state.out;
        state.released = state.released.filter((seqId) => out.has(seqId));
        const again = state.released.splice(0, maxEvents);
        for (const seqId of again) out.delete(seqId);
        if (again.length > 0) {
          rows = this.select(
            `SELECT ${EVENT_COLUMNS} FROM edge_events WHERE seq_id IN (SELECT value FROM json_each(?))
             AND +edge_id = ? AND +status = 'PENDING' ORDER BY seq_id`,
            [JSON.stringify(again), edgeId],
          );
        }
      }
    }
    if (rows.length < maxEvents && (state?.released.length ?? 0) === 0) {
      // Walks the (edge_id, status, seq_id) index from the cursor and stops after what is needed.
      const fresh = this.select(
        `SELECT ${EVENT_COLUMNS} FROM edge_events WHERE edge_id = ? AND status = 'PENDING' AND seq_id > ?
         ORDER BY seq_id LIMIT ?`,
        [edgeId, state?.cursor ?? 0, maxEvents - rows.length],
      );
      rows = rows.length === 0 ? fresh : rows.concat(fresh);
    }
    if (rows.length === 0) {
      if (state) this.forgetIfIdle(edgeId, state);
      return [];
    }
    if (!state) {
      state = { cursor: 0, out: new Map(), leases: [], released: [] };
      this.edges.set(edgeId, state);
    }
    const lease: Lease = { retrievedAt: now, until: now + this.settings.ackTimeoutMs, seqIds: [] };
    for (const r of rows) {
      const seqId = r[0] as number;
      lease.seqIds.push(seqId);
      state.out.set(seqId, lease);
      if (seqId > state.cursor) state.cursor = seqId;
    }
    state.leases.push(lease);
    const refs = this.refs(edgeId);
    return rows.map((r) => this.toEvent(refs, r, 'RETRIEVED', now));
  }

  /** Rows as arrays of EVENT_COLUMNS, from a statement prepared for this call only. */
  private select(sql: string, params: Param[]): SqlValue[][] {
    const stmt = this.ctx.db.raw.prepare(sql);
    try {
      stmt.bind(params.map((p) => (p === undefined ? null : typeof p === 'boolean' ? Number(p) : p)));
      const rows: SqlValue[][] = [];
      while (stmt.step()) rows.push(stmt.get());
      return rows;
    } finally {
      stmt.free();
    }
  }

  /** The edge and tenant references every event of a batch shares (read-only: fewer objects per event). */
  private refs(edgeId: string): { tenant: EdgeEvent['tenantId']; edge: EdgeEvent['edgeId'] } {
    return {
      tenant: Object.freeze(ref('TENANT', this.ctx.tenantId)),
      edge: Object.freeze(ref('EDGE', edgeId)),
    };
  }

  private toEvent(
    refs: { tenant: EdgeEvent['tenantId']; edge: EdgeEvent['edgeId'] },
    r: SqlValue[],
    status: EdgeEventStatus | undefined,
    retrievedAt: number | undefined,
  ): EdgeEvent {
    const body = r[7] as string | null;
    return {
      id: { id: r[1] as string },
      createdTime: r[2] as number,
      seqId: r[0] as number,
      edgeSeq: r[11] as number,
      tenantId: refs.tenant,
      edgeId: refs.edge,
      type: r[3] as string,
      action: r[4] as string,
      entityId: r[5] as string,
      uid: r[6] as string,
      body: body === null ? null : (JSON.parse(body) as unknown),
      status: status ?? (r[8] as EdgeEventStatus),
      retrievedTime: (r[9] as number | null) ?? retrievedAt ?? null,
      deliveredTime: r[10] as number | null,
    };
  }
}
