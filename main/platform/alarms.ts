import { randomUUID } from 'node:crypto';
import {
  ALARM_LIMITS,
  type Alarm,
  type AlarmChangeKind,
  type AlarmInfo,
  type AlarmSeverity,
  type SaveAlarmRequest,
} from '../../shared/schemas/alarms.ts';
import type { EntitySubtype } from '../../shared/schemas/assets.ts';
import { NULL_UUID, type PageData, type PageQuery } from '../../shared/schemas/common.ts';
import type { Writer } from '../store/durable-db.ts';
import {
  ALARM_SEARCH_SQL,
  ALARM_SORT_COLUMNS,
  AlarmInfoReader,
  selectionSql,
  severityRank,
  toAlarm,
  type AlarmRow,
  type AlarmSelection,
} from './alarm-records.ts';
import { writeSystemComment } from './alarm-comment-records.ts';
import type { Principal } from './auth/principal.ts';
import { ref, type PlatformContext } from './context.ts';
import { normalName, type EntityDirectory, type EntityRef, type EntitySummary } from './entity-directory.ts';
import { badRequestParams, forbidden, notFound } from './errors.ts';
import { likePattern, queryPage } from './paging.ts';
import type { RelationService } from './relations.ts';
import type { StoreBudget } from './store-budget.ts';

export interface AlarmPropagation {
  propagate: boolean;
  propagateToOwner: boolean;
  propagateToTenant: boolean;
  propagateRelationTypes: string[];
}

/** Raise an alarm: a new one, or the originator's active alarm of that type updated (raised again). */
export interface ActiveAlarmRequest {
  originator: EntityRef;
  type: string;
  severity: AlarmSeverity;
  /** replaces the details when given */
  details?: unknown;
  /**
   * replaces the propagation when given (a flag left out is false); left out, a new alarm propagates
   * nowhere and an active one keeps its own
   */
  propagation?: Partial<AlarmPropagation>;
  /** a new alarm's start (default now); an active alarm keeps its own unless this is given */
  startTs?: number;
  /** when it was last raised (default: startTs for a new alarm, now for an active one) */
  endTs?: number;
  /** must be the originator's customer when given */
  customerId?: string | null;
}

export type { AlarmChangeKind };

export interface AlarmChange {
  /** null: nothing changed (the same alarm raised again with the same values) */
  kind: AlarmChangeKind | null;
  alarm: AlarmInfo;
  /** the alarm before an update, ack or clear; null for a new one */
  old: Alarm | null;
  /** the originator and every entity the alarm is shown on */
  propagatedTo: EntityRef[];
}

/** Who acted (null: the platform itself, e.g. a rule node); user actions become rule engine messages. */
export type AlarmActor = Principal | null;

/**
 * Alarms as ThingsBoard keeps them: at most one active alarm per originator and type; raising it
 * again updates it (end time, severity, details); acknowledging and clearing are one-way; a cleared
 * alarm stays, and the next raise creates a new one. An alarm is shown on its originator and, with
 * propagation, on the entities related to it (upward, any depth up to a bound), its owner and the tenant.
 * Every change is announced as an `alarm` event once durable.
 */
export class AlarmService {
  private readonly ctx: PlatformContext;
  private readonly directory: EntityDirectory;
  private readonly relations: RelationService;
  private readonly reader: AlarmInfoReader;
  private readonly storage: StoreBudget | undefined;

  constructor(
    ctx: PlatformContext,
    directory: EntityDirectory,
    relations: RelationService,
    storage?: StoreBudget,
  ) {
    this.ctx = ctx;
    this.directory = directory;
    this.relations = relations;
    this.storage = storage;
    this.reader = new AlarmInfoReader(directory, ctx.tenantId, (id) =>
      ctx.db.get('SELECT id, email, first_name, last_name FROM users WHERE id = ?', [id]),
    );
  }

  // --- reading --------------------------------------------------------------------------------------

  findRow(id: string): AlarmRow | undefined {
    return this.ctx.db.get<AlarmRow>('SELECT * FROM alarms WHERE id = ?', [id]);
  }

  /** The alarm a principal may see (a customer user: its customer's), or 404 / 403. */
  accessibleRow(id: string, actor: Principal): AlarmRow {
    const row = this.findRow(id);
    if (!row) throw notFound(`Alarm with id [${id}] is not found`);
    if (actor.authority !== 'TENANT_ADMIN' && (!actor.customerId || row.customer_id !== actor.customerId)) {
      throw forbidden();
    }
    return row;
  }

  get(id: string, actor: Principal): Alarm {
    return toAlarm(this.accessibleRow(id, actor), this.ctx.tenantId);
  }

  info(id: string, actor: Principal): AlarmInfo {
    return this.reader.info(this.accessibleRow(id, actor));
  }

  infoOf(row: AlarmRow): AlarmInfo {
    return this.reader.info(row);
  }

  /** The originator's active alarm of a type, if any (for rule nodes). */
  findActive(originator: EntityRef, type: string): AlarmInfo | undefined {
    const row = this.ctx.db.get<AlarmRow>(
      'SELECT * FROM alarms WHERE originator_id = ? AND type = ? AND cleared = 0',
      [originator.id, type],
    );
    return row ? this.reader.info(row) : undefined;
  }

  /** A page of alarms (newest first unless sorted otherwise); textSearch looks in type, severity, status and originator name. */
  page(q: PageQuery, selection: AlarmSelection): PageData<AlarmInfo> {
    const { from, where, params } = selectionSql(selection);
    return queryPage(
      this.ctx.db,
      {
        from,
        where,
        params,
        searchColumn: ALARM_SEARCH_SQL,
        sortColumns: ALARM_SORT_COLUMNS,
        defaultSort: 'createdTime',
      },
      q,
      (r) => this.reader.info(r as unknown as AlarmRow),
    );
  }

  /** Every alarm of a selection, up to a limit, as rows (for the alarm data query). */
  rows(selection: AlarmSelection, limit: number): AlarmRow[] {
    const { from, where, params } = selectionSql(selection);
    return this.ctx.db.all<AlarmRow>(
      `SELECT DISTINCT e.* ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY e.created_time DESC LIMIT ?`,
      [...params, limit],
    );
  }

  count(selection: AlarmSelection): number {
    const { from, where, params } = selectionSql(selection);
    return Number(
      this.ctx.db.get<{ n: number }>(
        `SELECT COUNT(DISTINCT e.id) AS n ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`,
        params,
      )?.n ?? 0,
    );
  }

  /** The highest severity among the alarms shown on an entity (null when there are none). */
  highestSeverity(selection: AlarmSelection): AlarmSeverity | null {
    const { from, where, params } = selectionSql(selection);
    const rows = this.ctx.db.all<{ severity: AlarmSeverity }>(
      `SELECT DISTINCT e.severity ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`,
      params,
    );
    let best: AlarmSeverity | null = null;
    for (const r of rows)
      if (best === null || severityRank(r.severity) > severityRank(best)) best = r.severity;
    return best;
  }

  /** The alarm types in use, a page at a time (ThingsBoard's EntitySubtype with entityType ALARM). */
  types(q: {
    pageSize: number;
    page: number;
    textSearch?: string;
    sortOrder?: 'ASC' | 'DESC';
  }): PageData<EntitySubtype> {
    const where = q.textSearch ? `WHERE type LIKE ? ESCAPE '\\'` : '';
    const params = q.textSearch ? [likePattern(q.textSearch)] : [];
    const total = Number(
      this.ctx.db.get<{ n: number }>(`SELECT COUNT(DISTINCT type) AS n FROM alarms ${where}`, params)?.n ?? 0,
    );
    const rows = this.ctx.db.all<{ type: string }>(
      `SELECT DISTINCT type FROM alarms ${where} ORDER BY type ${q.sortOrder === 'DESC' ? 'DESC' : 'ASC'} LIMIT ? OFFSET ?`,
      [...params, q.pageSize, q.page * q.pageSize],
    );
    return {
      data: rows.map((r) => ({
        tenantId: ref('TENANT', this.ctx.tenantId),
        entityType: 'ALARM',
        type: r.type,
      })),
      totalPages: Math.ceil(total / q.pageSize),
      totalElements: total,
      hasNext: (q.page + 1) * q.pageSize < total,
    };
  }

  // --- the REST face (POST /api/alarm) ------------------------------------------------------------

  /**
   * ThingsBoard's saveAlarm: without an id, raises the alarm (created, or the active one updated);
   * with an id, updates that alarm. acknowledged / cleared / assigneeId in the body then ack, clear,
   * assign or unassign it (assigneeId null unassigns; left out, the assignee stays).
   */
  async save(input: SaveAlarmRequest, actor: Principal): Promise<Alarm> {
    const originator = this.directory.require(input.originator, actor, 'read');
    const assigneeId = input.assigneeId === undefined ? undefined : (input.assigneeId?.id ?? null);
    if (assigneeId) this.requireAssignee(assigneeId, actor);
    const propagation = {
      propagate: input.propagate ?? false,
      propagateToOwner: input.propagateToOwner ?? false,
      propagateToTenant: input.propagateToTenant ?? false,
      propagateRelationTypes: input.propagateRelationTypes ?? [],
    };
    let change: AlarmChange;
    if (input.id?.id) {
      const row = this.accessibleRow(input.id.id, actor);
      change = await this.update(
        row,
        {
          severity: input.severity,
          details: input.details,
          propagation,
          startTs: input.startTs || undefined,
          endTs: input.endTs || undefined,
        },
        actor,
      );
    } else {
      const customerId = input.customerId?.id;
      change = await this.createOrUpdateActive(
        {
          originator,
          type: input.type,
          severity: input.severity,
          details: input.details,
          propagation,
          startTs: input.startTs || undefined,
          endTs: input.endTs || undefined,
          customerId: customerId && customerId !== NULL_UUID ? customerId : undefined,
        },
        actor,
      );
    }
    let alarm = change.alarm;
    if (input.acknowledged && !alarm.acknowledged)
      alarm = (await this.ack(alarm.id.id, actor, input.ackTs)).alarm;
    if (input.cleared && !alarm.cleared) alarm = (await this.clear(alarm.id.id, actor, input.clearTs)).alarm;
    if (assigneeId && assigneeId !== alarm.assigneeId?.id) {
      alarm = (await this.assign(alarm.id.id, assigneeId, actor, input.assignTs)).alarm;
    } else if (assigneeId === null && alarm.assigneeId) {
      alarm = (await this.unassign(alarm.id.id, actor, input.assignTs)).alarm;
    }
    const {
      originatorName: _n,
      originatorLabel: _l,
      originatorDisplayName: _d,
      assignee: _a,
      ...plain
    } = alarm;
    return plain;
  }

  // --- the face rule nodes use ----------------------------------------------------------------------

  /**
   * Raises an alarm: creates it when the originator has no active alarm of the type, else updates the
   * active one (severity, details, propagation, end time). kind says which (null: nothing changed).
   */
  async createOrUpdateActive(req: ActiveAlarmRequest, actor: AlarmActor = null): Promise<AlarmChange> {
    this.validateType(req.type);
    const originator = this.directory.find(req.originator.entityType, req.originator.id);
    if (!originator) {
      throw notFound(`${normalName(req.originator.entityType)} with id [${req.originator.id}] is not found`);
    }
    const customerId = this.ownerCustomer(originator);
    if (req.customerId && customerId === null) {
      throw badRequestParams("Can't assign alarm to customer. Originator is not assigned to customer!");
    }
    if (req.customerId && customerId !== req.customerId) {
      throw badRequestParams("Can't assign alarm to customer. Originator belongs to different customer!");
    }
    const details = this.detailsText(req.details);
    const propagation = normalizePropagation(req.propagation);
    const now = this.ctx.now();
    if (req.startTs !== undefined && req.endTs !== undefined && req.startTs > req.endTs) {
      throw badRequestParams("Alarm start ts can't be greater then alarm end ts!");
    }
    const targets = this.propagationTargets(originator, customerId, propagation);
    if (!this.findActive(originator, req.type)) await this.storage?.admit();
    const result = await this.ctx.db.write((w) => {
      const existing = w.get<AlarmRow>(
        'SELECT * FROM alarms WHERE originator_id = ? AND type = ? AND cleared = 0',
        [originator.id, req.type],
      );
      if (!existing) {
        const id = randomUUID();
        const startTs = req.startTs ?? now;
        w.run(
          `INSERT INTO alarms (id, created_time, type, originator_id, originator_type, customer_id, severity,
             start_ts, end_ts, details, propagate, propagate_to_owner, propagate_to_tenant, propagate_relation_types)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            id,
            now,
            req.type,
            originator.id,
            originator.entityType,
            customerId,
            req.severity,
            startTs,
            req.endTs ?? startTs,
            details ?? null,
            propagation.propagate ? 1 : 0,
            propagation.propagateToOwner ? 1 : 0,
            propagation.propagateToTenant ? 1 : 0,
            JSON.stringify(propagation.propagateRelationTypes),
          ],
        );
        this.recordTargets(w, id, targets);
        return { kind: 'CREATED' as const, id, old: null as AlarmRow | null };
      }
      return this.applyUpdate(
        w,
        existing,
        { ...req, details, propagation: req.propagation ? propagation : null, endTs: req.endTs ?? now },
        targets,
      );
    });
    return this.finish(result, actor);
  }

  /**
   * Clears the originator's active alarm of a type (for rule nodes): kind CLEAR, or null when there is
   * no active alarm to clear.
   */
  async clearActive(
    originator: EntityRef,
    type: string,
    options: { clearTs?: number; details?: unknown } = {},
    actor: AlarmActor = null,
  ): Promise<AlarmChange | null> {
    const row = this.ctx.db.get<AlarmRow>(
      'SELECT * FROM alarms WHERE originator_id = ? AND type = ? AND cleared = 0',
      [originator.id, type],
    );
    if (!row) return null;
    return this.clearRow(row.id, actor, options.clearTs, options.details);
  }

  // --- the state machine ------------------------------------------------------------------------------

  /** Updates an alarm by id (severity, details, propagation, start / end time). */
  async update(
    row: AlarmRow,
    req: {
      severity: AlarmSeverity;
      details?: unknown;
      propagation?: Partial<AlarmPropagation>;
      startTs?: number;
      endTs?: number;
    },
    actor: AlarmActor,
  ): Promise<AlarmChange> {
    const details = this.detailsText(req.details);
    const propagation = normalizePropagation(req.propagation);
    const startTs = req.startTs ?? row.start_ts;
    const endTs = req.endTs ?? row.end_ts;
    if (startTs > endTs) throw badRequestParams("Alarm start ts can't be greater then alarm end ts!");
    const originator = this.directory.find(row.originator_type, row.originator_id);
    const targets = originator ? this.propagationTargets(originator, row.customer_id, propagation) : [];
    const result = await this.ctx.db.write((w) => {
      const current = w.get<AlarmRow>('SELECT * FROM alarms WHERE id = ?', [row.id]);
      if (!current) throw notFound(`Alarm with id [${row.id}] is not found`);
      return this.applyUpdate(
        w,
        current,
        { severity: req.severity, details, propagation, startTs, endTs },
        targets,
      );
    });
    return this.finish(result, actor);
  }

  async ack(id: string, actor: Principal, ackTs?: number): Promise<AlarmChange> {
    this.accessibleRow(id, actor);
    const ts = ackTs && ackTs > 0 ? ackTs : this.ctx.now();
    const result = await this.ctx.db.write((w) => {
      const row = w.get<AlarmRow>('SELECT * FROM alarms WHERE id = ?', [id]);
      if (!row) throw notFound(`Alarm with id [${id}] is not found`);
      if (row.acknowledged === 1) throw badRequestParams('Alarm was already acknowledged!');
      w.run('UPDATE alarms SET acknowledged = 1, ack_ts = ? WHERE id = ?', [ts, id]);
      writeSystemComment(w, id, this.ctx.now(), actor, 'acknowledged');
      return { kind: 'ACK' as const, id, old: row };
    });
    return this.finish(result, actor);
  }

  async clear(id: string, actor: Principal, clearTs?: number): Promise<AlarmChange> {
    this.accessibleRow(id, actor);
    return this.clearRow(id, actor, clearTs, undefined, true);
  }

  async assign(id: string, assigneeId: string, actor: Principal, assignTs?: number): Promise<AlarmChange> {
    this.accessibleRow(id, actor);
    this.requireAssignee(assigneeId, actor);
    const ts = assignTs && assignTs > 0 ? assignTs : this.ctx.now();
    const result = await this.ctx.db.write((w) => {
      const row = w.get<AlarmRow>('SELECT * FROM alarms WHERE id = ?', [id]);
      if (!row) throw notFound(`Alarm with id [${id}] is not found`);
      if (row.assignee_id === assigneeId) throw badRequestParams('Alarm was already assigned to this user!');
      w.run('UPDATE alarms SET assignee_id = ?, assign_ts = ? WHERE id = ?', [assigneeId, ts, id]);
      return { kind: 'ASSIGNED' as const, id, old: row };
    });
    return this.finish(result, actor);
  }

  async unassign(id: string, actor: Principal, assignTs?: number): Promise<AlarmChange> {
    this.accessibleRow(id, actor);
    const ts = assignTs && assignTs > 0 ? assignTs : this.ctx.now();
    const result = await this.ctx.db.write((w) => {
      const row = w.get<AlarmRow>('SELECT * FROM alarms WHERE id = ?', [id]);
      if (!row) throw notFound(`Alarm with id [${id}] is not found`);
      if (row.assignee_id === null) throw badRequestParams('Alarm was already unassigned!');
      w.run('UPDATE alarms SET assignee_id = NULL, assign_ts = ? WHERE id = ?', [ts, id]);
      return { kind: 'UNASSIGNED' as const, id, old: row };
    });
    return this.finish(result, actor);
  }

  async delete(id: string, actor: Principal): Promise<AlarmChange> {
    const row = this.accessibleRow(id, actor);
    const info = this.reader.info(row);
    const propagatedTo = this.recordsOf(id);
    await this.ctx.db.write((w) => {
      w.run('DELETE FROM entity_alarms WHERE alarm_id = ?', [id]);
      w.run('DELETE FROM alarm_comments WHERE alarm_id = ?', [id]);
      w.run('DELETE FROM alarms WHERE id = ?', [id]);
    });
    const change: AlarmChange = {
      kind: 'DELETED',
      alarm: info,
      old: toAlarm(row, this.ctx.tenantId),
      propagatedTo,
    };
    this.ctx.events.emit('alarm', { ...change, kind: 'DELETED', actor });
    return change;
  }

  // --- inside ---------------------------------------------------------------------------------------

  private async clearRow(
    id: string,
    actor: AlarmActor,
    clearTs?: number,
    details?: unknown,
    failIfCleared = false,
  ): Promise<AlarmChange> {
    const ts = clearTs && clearTs > 0 ? clearTs : this.ctx.now();
    const detailsText = this.detailsText(details);
    const result = await this.ctx.db.write((w) => {
      const row = w.get<AlarmRow>('SELECT * FROM alarms WHERE id = ?', [id]);
      if (!row) throw notFound(`Alarm with id [${id}] is not found`);
      if (row.cleared === 1) {
        if (failIfCleared) throw badRequestParams('Alarm was already cleared!');
        return { kind: null, id, old: row };
      }
      w.run('UPDATE alarms SET cleared = 1, clear_ts = ?, details = COALESCE(?, details) WHERE id = ?', [
        ts,
        detailsText ?? null,
        id,
      ]);
      if (actor) writeSystemComment(w, id, this.ctx.now(), actor, 'cleared');
      return { kind: 'CLEAR' as const, id, old: row };
    });
    return this.finish(result, actor);
  }

  /** Updates an existing row inside a write; the kind of change, or null when nothing differs. */
  private applyUpdate(
    w: Writer,
    existing: AlarmRow,
    req: {
      severity: AlarmSeverity;
      details: string | undefined;
      /** null: keep the alarm's own */
      propagation: AlarmPropagation | null;
      startTs?: number;
      endTs: number;
    },
    targets: EntityRef[],
  ): { kind: AlarmChangeKind | null; id: string; old: AlarmRow } {
    const p = req.propagation;
    const next = {
      severity: req.severity,
      start_ts: req.startTs ?? existing.start_ts,
      end_ts: Math.max(req.endTs, req.startTs ?? existing.start_ts),
      details: req.details === undefined ? existing.details : req.details,
      propagate: p ? (p.propagate ? 1 : 0) : existing.propagate,
      propagate_to_owner: p ? (p.propagateToOwner ? 1 : 0) : existing.propagate_to_owner,
      propagate_to_tenant: p ? (p.propagateToTenant ? 1 : 0) : existing.propagate_to_tenant,
      propagate_relation_types: p
        ? JSON.stringify(p.propagateRelationTypes)
        : existing.propagate_relation_types,
    };
    const changed = (Object.keys(next) as (keyof typeof next)[]).some((k) => next[k] !== existing[k]);
    if (!changed) return { kind: null, id: existing.id, old: existing };
    w.run(
      `UPDATE alarms SET severity = ?, start_ts = ?, end_ts = ?, details = ?, propagate = ?, propagate_to_owner = ?,
         propagate_to_tenant = ?, propagate_relation_types = ? WHERE id = ?`,
      [
        next.severity,
        next.start_ts,
        next.end_ts,
        next.details,
        next.propagate,
        next.propagate_to_owner,
        next.propagate_to_tenant,
        next.propagate_relation_types,
        existing.id,
      ],
    );
    const propagationChanged =
      next.propagate !== existing.propagate ||
      next.propagate_to_owner !== existing.propagate_to_owner ||
      next.propagate_to_tenant !== existing.propagate_to_tenant ||
      next.propagate_relation_types !== existing.propagate_relation_types;
    if (propagationChanged) this.recordTargets(w, existing.id, targets);
    return {
      kind: next.severity !== existing.severity ? 'SEVERITY_UPDATED' : 'UPDATED',
      id: existing.id,
      old: existing,
    };
  }

  /** Reads the alarm back after its write, announces the change (if any) and returns it. */
  private finish(
    result: { kind: AlarmChangeKind | null; id: string; old: AlarmRow | null },
    actor: AlarmActor,
  ): AlarmChange {
    const row = this.findRow(result.id)!;
    const change: AlarmChange = {
      kind: result.kind,
      alarm: this.reader.info(row),
      old: result.old ? toAlarm(result.old, this.ctx.tenantId) : null,
      propagatedTo: this.recordsOf(result.id),
    };
    if (result.kind !== null) this.ctx.events.emit('alarm', { ...change, kind: result.kind, actor });
    return change;
  }

  /**
   * The entities an alarm is shown on: the originator; with propagate, every entity above it through
   * COMMON relations (of the given types, any when none), up to ALARM_LIMITS; the owner; the tenant.
   */
  private propagationTargets(
    originator: EntityRef,
    customerId: string | null,
    p: AlarmPropagation,
  ): EntityRef[] {
    const targets = new Map<string, EntityRef>();
    const add = (r: EntityRef) => {
      if (targets.size < ALARM_LIMITS.propagationEntities)
        targets.set(r.id, { entityType: r.entityType, id: r.id });
    };
    add(originator);
    if (p.propagate) {
      const types = new Set(p.propagateRelationTypes);
      const found = this.relations.reach(originator, {
        direction: 'TO',
        maxLevel: ALARM_LIMITS.propagationLevels,
      });
      for (const relation of found) if (types.size === 0 || types.has(relation.type)) add(relation.from);
    }
    if (p.propagateToOwner) add(customerId ? { entityType: 'CUSTOMER', id: customerId } : this.tenantRef());
    if (p.propagateToTenant) add(this.tenantRef());
    return [...targets.values()];
  }

  private recordTargets(w: Writer, alarmId: string, targets: EntityRef[]): void {
    for (const t of targets) {
      w.run('INSERT OR IGNORE INTO entity_alarms (entity_id, entity_type, alarm_id) VALUES (?, ?, ?)', [
        t.id,
        t.entityType,
        alarmId,
      ]);
    }
  }

  private recordsOf(alarmId: string): EntityRef[] {
    return this.ctx.db
      .all<{ entity_id: string; entity_type: string }>(
        'SELECT entity_id, entity_type FROM entity_alarms WHERE alarm_id = ? ORDER BY entity_type, entity_id',
        [alarmId],
      )
      .map((r) => ({ entityType: r.entity_type, id: r.entity_id }));
  }

  private ownerCustomer(entity: EntitySummary): string | null {
    return entity.entityType === 'CUSTOMER' || entity.entityType === 'TENANT' ? null : entity.customerId;
  }

  private tenantRef(): EntityRef {
    return { entityType: 'TENANT', id: this.ctx.tenantId };
  }

  private requireAssignee(userId: string, actor: Principal): void {
    this.directory.require({ entityType: 'USER', id: userId }, actor, 'read');
  }

  private validateType(type: string): void {
    if (type.length === 0 || type.length > ALARM_LIMITS.typeChars) {
      throw badRequestParams(`Alarm type must be 1 to ${ALARM_LIMITS.typeChars} characters`);
    }
  }

  private detailsText(details: unknown): string | undefined {
    if (details === undefined) return undefined;
    const text = JSON.stringify(details);
    if (text.length > ALARM_LIMITS.detailsChars) {
      throw badRequestParams(`Alarm details are longer than ${ALARM_LIMITS.detailsChars} characters of JSON`);
    }
    return text;
  }
}

function normalizePropagation(p: Partial<AlarmPropagation> | undefined): AlarmPropagation {
  return {
    propagate: p?.propagate ?? false,
    propagateToOwner: p?.propagateToOwner ?? false,
    propagateToTenant: p?.propagateToTenant ?? false,
    propagateRelationTypes: [...new Set(p?.propagateRelationTypes ?? [])],
  };
}
