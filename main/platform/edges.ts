import { hash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import type { Edge, SaveEdgeRequest } from '../../shared/schemas/edge.ts';
import type { EntitySubtype } from '../../shared/schemas/entities.ts';
import { requireTenantAdmin, type Principal } from './auth/principal.ts';
import { ref, type PlatformContext } from './context.ts';
import type { DeviceService } from './devices.ts';
import { invalidArgument, isUniqueViolation, notFound, unauthorized } from './errors.ts';
import { OwnedEntityRows } from './owned-entities.ts';
import { queryPage } from './paging.ts';
import type { Row, Writer } from '../store/durable-db.ts';

export interface EdgeRow {
  id: string;
  created_time: number;
  name: string;
  type: string;
  label: string | null;
  routing_key: string;
  secret_hash: string;
  customer_id: string | null;
  additional_info: string | null;
}

const hashSecret = (secret: string) => hash('sha256', secret, 'buffer');

/** What can be assigned to an edge, and where it lives. */
const ASSIGNABLE = {
  DEVICE: { table: 'devices', name: 'Device' },
  DEVICE_PROFILE: { table: 'device_profiles', name: 'Device profile' },
  ASSET: { table: 'assets', name: 'Asset' },
  ASSET_PROFILE: { table: 'asset_profiles', name: 'Asset profile' },
  DASHBOARD: { table: 'dashboards', name: 'Dashboard' },
} as const;
export type EdgeAssignable = keyof typeof ASSIGNABLE;

/**
 * Edges and what is assigned to them (relation EDGE -Contains-> entity). The secret is shown once and
 * kept as a SHA-256 hash; an edge authenticates with its routing key and secret.
 */
export class EdgeService {
  private readonly ctx: PlatformContext;
  private readonly devices: DeviceService;
  private readonly byRoutingKey = new Map<string, EdgeRow>();
  private readonly rows: OwnedEntityRows<EdgeRow>;

  constructor(ctx: PlatformContext, devices: DeviceService) {
    this.ctx = ctx;
    this.devices = devices;
    this.rows = new OwnedEntityRows(ctx, { table: 'edges', entityType: 'EDGE', label: 'Edge' });
    const load = () => {
      this.byRoutingKey.clear();
      for (const row of ctx.db.all<EdgeRow>('SELECT * FROM edges'))
        this.byRoutingKey.set(row.routing_key, row);
    };
    load();
    ctx.events.on('sandboxLoaded', load);
  }

  toEdge(row: EdgeRow, secret: string | null = null): Edge {
    return {
      id: ref('EDGE', row.id),
      ...this.rows.commonFields(row),
      routingKey: row.routing_key,
      secret,
    };
  }

  findRow(id: string): EdgeRow | undefined {
    return this.rows.find(id);
  }

  accessibleRow(id: string, actor: Principal): EdgeRow {
    return this.rows.accessible(id, actor);
  }

  /** The edge a routing key and secret belong to; 401 otherwise (same answer for both mistakes). */
  authenticate(routingKey: string, secret: string): EdgeRow {
    const row = this.byRoutingKey.get(routingKey);
    const given = hashSecret(secret);
    const expected = row ? Buffer.from(row.secret_hash, 'hex') : hashSecret(randomUUID());
    if (!timingSafeEqual(given, expected) || !row) throw unauthorized('Invalid edge routing key or secret');
    return row;
  }

  async save(input: SaveEdgeRequest, actor: Principal): Promise<Edge> {
    await this.ctx.admit?.();
    requireTenantAdmin(actor);
    const existing = input.id?.id ? this.findRow(input.id.id) : undefined;
    if (input.id?.id && !existing) throw notFound(`Edge with id [${input.id.id}] is not found`);
    const secret = input.secret ?? (existing ? null : randomBytes(15).toString('base64url'));
    const row: EdgeRow = {
      id: existing?.id ?? randomUUID(),
      created_time: existing?.created_time ?? this.ctx.now(),
      name: input.name,
      type: input.type ?? existing?.type ?? 'default',
      label: input.label ?? null,
      routing_key: input.routingKey ?? existing?.routing_key ?? randomUUID(),
      secret_hash: secret ? hashSecret(secret).toString('hex') : existing!.secret_hash,
      customer_id: existing?.customer_id ?? null,
      additional_info: JSON.stringify(input.additionalInfo ?? {}),
    };
    try {
      await this.ctx.db.write((w) => {
        if (!existing) this.assignDefaultRuleChains(w, row.id);
        return w.run(
          `INSERT INTO edges (id, created_time, name, type, label, routing_key, secret_hash, customer_id, additional_info)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET name = excluded.name, type = excluded.type, label = excluded.label,
             routing_key = excluded.routing_key, secret_hash = excluded.secret_hash, additional_info = excluded.additional_info`,
          [
            row.id,
            row.created_time,
            row.name,
            row.type,
            row.label,
            row.routing_key,
            row.secret_hash,
            row.customer_id,
            row.additional_info,
          ],
        );
      });
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw invalidArgument(
          /routing_key/.test((err as Error).message)
            ? 'Edge with such routing key already exists!'
            : 'Edge with such name already exists!',
        );
      }
      throw err;
    }
    if (existing) this.byRoutingKey.delete(existing.routing_key);
    this.byRoutingKey.set(row.routing_key, row);
    return this.toEdge(row, secret);
  }

  /**
   * A new edge gets the edge template root chain and the chains marked for auto-assignment, as ThingsBoard
   * assigns them when an edge is created.
   */
  private assignDefaultRuleChains(w: Writer, edgeId: string): void {
    w.run(
      `INSERT OR IGNORE INTO relations (from_id, from_type, to_id, to_type, type, type_group)
       SELECT ?, 'EDGE', id, 'RULE_CHAIN', 'Contains', 'EDGE' FROM rule_chains WHERE type = 'EDGE' AND root = 1
       UNION SELECT ?, 'EDGE', to_id, 'RULE_CHAIN', 'Contains', 'EDGE' FROM relations
         WHERE type_group = 'EDGE_AUTO_ASSIGN_RULE_CHAIN' AND to_type = 'RULE_CHAIN'`,
      [edgeId, edgeId],
    );
  }

  async delete(id: string, actor: Principal): Promise<void> {
    requireTenantAdmin(actor);
    const row = this.findRow(id);
    if (!row) throw notFound(`Edge with id [${id}] is not found`);
    await this.ctx.db.write((w) => {
      w.run('DELETE FROM edges WHERE id = ?', [id]);
      w.run(
        "DELETE FROM relations WHERE (from_id = ? AND from_type = 'EDGE') OR (to_id = ? AND to_type = 'EDGE')",
        [id, id],
      );
      w.run('DELETE FROM edge_events WHERE edge_id = ?', [id]);
    });
    this.byRoutingKey.delete(row.routing_key);
  }

  page(q: PageQuery, actor: Principal): PageData<Edge> {
    const where = actor.authority === 'CUSTOMER_USER' ? ['e.customer_id = ?'] : [];
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM edges e',
        where,
        params: actor.authority === 'CUSTOMER_USER' ? [actor.customerId] : [],
        searchColumn: 'e.name',
        sortColumns: { createdTime: 'e.created_time', name: 'e.name', type: 'e.type', label: 'e.label' },
        defaultSort: 'createdTime',
      },
      q,
      (r: Row) => this.toEdge(r as unknown as EdgeRow),
    );
  }

  async assign(
    edgeId: string,
    entityType: EdgeAssignable,
    entityId: string,
    actor: Principal,
  ): Promise<void> {
    requireTenantAdmin(actor);
    if (!this.findRow(edgeId)) throw notFound(`Edge with id [${edgeId}] is not found`);
    const { table, name } = ASSIGNABLE[entityType];
    if (!this.ctx.db.get(`SELECT 1 FROM ${table} WHERE id = ?`, [entityId]))
      throw notFound(`${name} with id [${entityId}] is not found`);
    await this.ctx.db.write((w) =>
      w.run(
        `INSERT OR IGNORE INTO relations (from_id, from_type, to_id, to_type, type, type_group) VALUES (?, 'EDGE', ?, ?, 'Contains', 'EDGE')`,
        [edgeId, entityId, entityType],
      ),
    );
  }

  async unassign(
    edgeId: string,
    entityType: EdgeAssignable,
    entityId: string,
    actor: Principal,
  ): Promise<void> {
    requireTenantAdmin(actor);
    await this.ctx.db.write((w) =>
      w.run(
        `DELETE FROM relations WHERE from_id = ? AND from_type = 'EDGE' AND to_id = ? AND to_type = ? AND type = 'Contains' AND type_group = 'EDGE'`,
        [edgeId, entityId, entityType],
      ),
    );
  }

  async assignToCustomer(edgeId: string, customerId: string | null, actor: Principal): Promise<Edge> {
    requireTenantAdmin(actor);
    if (customerId && !this.ctx.db.get('SELECT 1 FROM customers WHERE id = ?', [customerId])) {
      throw notFound(`Customer with id [${customerId}] is not found`);
    }
    const n = await this.ctx.db.write((w) =>
      w.run('UPDATE edges SET customer_id = ? WHERE id = ?', [customerId, edgeId]),
    );
    if (n === 0) throw notFound(`Edge with id [${edgeId}] is not found`);
    const row = this.findRow(edgeId)!;
    this.byRoutingKey.set(row.routing_key, row);
    return this.toEdge(row);
  }

  types(): EntitySubtype[] {
    return this.rows.types();
  }

  profileIdsOf(edgeId: string): string[] {
    return this.ctx.db
      .all<{ to_id: string }>(
        "SELECT to_id FROM relations WHERE from_id = ? AND from_type = 'EDGE' AND to_type = 'DEVICE_PROFILE' AND type = 'Contains'",
        [edgeId],
      )
      .map((r) => r.to_id);
  }

  /** compat routing: EDGE -> itself; DEVICE, ASSET... -> edges it is assigned to; profile or tenant -> every edge; customer -> its edges. */
  edgesFor(entityType: string, entityId: string): string[] {
    switch (entityType) {
      case 'EDGE':
        return this.findRow(entityId) ? [entityId] : [];
      case 'DEVICE_PROFILE':
      case 'ASSET_PROFILE':
      case 'TENANT':
        return this.ctx.db.all<{ id: string }>('SELECT id FROM edges ORDER BY created_time').map((r) => r.id);
      case 'CUSTOMER':
        return this.ctx.db
          .all<{ id: string }>('SELECT id FROM edges WHERE customer_id = ?', [entityId])
          .map((r) => r.id);
      default:
        return this.ctx.db
          .all<{ from_id: string }>(
            "SELECT from_id FROM relations WHERE to_id = ? AND to_type = ? AND from_type = 'EDGE' AND type = 'Contains' AND type_group = 'EDGE'",
            [entityId, entityType],
          )
          .map((r) => r.from_id);
    }
  }
}
