import type { Param, Writer } from '../store/durable-db.ts';
import type { Principal } from './auth/principal.ts';
import type { PlatformContext } from './context.ts';
import { badRequestParams, forbidden, notFound } from './errors.ts';

/** An entity reference as ThingsBoard writes it: {entityType, id}. */
export interface EntityRef {
  entityType: string;
  id: string;
}

/** What every part of the platform needs to know of an entity, whatever its type. */
export interface EntitySummary extends EntityRef {
  name: string;
  label: string | null;
  /** device, asset or edge type (profile name); null for other entities */
  type: string | null;
  /** the customer that owns it (for a customer: itself); null when the tenant does */
  customerId: string | null;
  createdTime: number;
}

export type Access = 'read' | 'write';

/** ThingsBoard's normal names of entity types, for messages ("Asset with id [...] is not found"). */
const NORMAL_NAMES: Record<string, string> = {
  TENANT: 'Tenant',
  CUSTOMER: 'Customer',
  USER: 'User',
  DEVICE: 'Device',
  DEVICE_PROFILE: 'Device profile',
  ASSET: 'Asset',
  ASSET_PROFILE: 'Asset profile',
  EDGE: 'Edge',
  ALARM: 'Alarm',
  RULE_CHAIN: 'Rule chain',
  DASHBOARD: 'Dashboard',
};

interface SummaryRow {
  id: string;
  name: string;
  label: string | null;
  type: string | null;
  customer_id: string | null;
  created_time: number;
}

/** The SELECT of each table, as id, name, label, type, customer_id, created_time. */
const SELECTS: Record<string, string> = {
  DEVICE: 'SELECT id, name, label, type, customer_id, created_time FROM devices',
  ASSET: 'SELECT id, name, label, type, customer_id, created_time FROM assets',
  EDGE: 'SELECT id, name, label, type, customer_id, created_time FROM edges',
  CUSTOMER:
    'SELECT id, title AS name, NULL AS label, NULL AS type, id AS customer_id, created_time FROM customers',
  USER: 'SELECT id, email AS name, NULL AS label, NULL AS type, customer_id, created_time FROM users',
  DEVICE_PROFILE:
    'SELECT id, name, NULL AS label, NULL AS type, NULL AS customer_id, created_time FROM device_profiles',
  ASSET_PROFILE:
    'SELECT id, name, NULL AS label, NULL AS type, NULL AS customer_id, created_time FROM asset_profiles',
  ALARM: 'SELECT id, type AS name, NULL AS label, type, customer_id, created_time FROM alarms',
  RULE_CHAIN: 'SELECT id, name, NULL AS label, type, NULL AS customer_id, created_time FROM rule_chains',
  DASHBOARD:
    'SELECT id, title AS name, NULL AS label, NULL AS type, NULL AS customer_id, created_time FROM dashboards',
};

/** Entity types whose rows live in a table: what relations, alarms and queries may name. */
export const KNOWN_ENTITY_TYPES = ['TENANT', ...Object.keys(SELECTS)];

/** A time series number no entity has: reads with it find nothing. */
export const NO_TELEMETRY_NUM = 0;

export function normalName(entityType: string): string {
  return NORMAL_NAMES[entityType] ?? entityType;
}

/**
 * Every kind of entity behind one face: look one up by type and id, check who may read or change it,
 * list several at once, and give it a time series number. Relations, alarms, the entity query and
 * telemetry of any entity type go through here.
 */
export class EntityDirectory {
  private readonly ctx: PlatformContext;

  constructor(ctx: PlatformContext) {
    this.ctx = ctx;
  }

  /** The entity, or undefined when the type is unknown or no such entity exists. */
  find(entityType: string, id: string): EntitySummary | undefined {
    if (entityType === 'TENANT') {
      return id === this.ctx.tenantId ? this.tenant() : undefined;
    }
    const select = SELECTS[entityType];
    if (!select) return undefined;
    const row = this.ctx.db.get<SummaryRow>(`${select} WHERE id = ?`, [id]);
    return row ? toSummary(entityType, row) : undefined;
  }

  /** Several entities of one type by id (unknown ids are left out), in no particular order. */
  findMany(entityType: string, ids: string[]): EntitySummary[] {
    if (ids.length === 0) return [];
    if (entityType === 'TENANT') return ids.includes(this.ctx.tenantId) ? [this.tenant()] : [];
    const select = SELECTS[entityType];
    if (!select) return [];
    return this.ctx.db
      .all<SummaryRow>(`${select} WHERE id IN (SELECT value FROM json_each(?))`, [JSON.stringify(ids)])
      .map((r) => toSummary(entityType, r));
  }

  /** Every entity of a type, with optional extra conditions on the table's own columns. */
  listOf(entityType: string, where: string[] = [], params: Param[] = [], limit = 100_000): EntitySummary[] {
    if (entityType === 'TENANT') return [this.tenant()];
    const select = SELECTS[entityType];
    if (!select) return [];
    const sql = `SELECT * FROM (${select})${where.length ? ` WHERE ${where.join(' AND ')}` : ''} LIMIT ?`;
    return this.ctx.db.all<SummaryRow>(sql, [...params, limit]).map((r) => toSummary(entityType, r));
  }

  /** The entity if the principal may read (or change) it: 400 for an unknown type, 404, or 403. */
  require(ref: EntityRef, actor: Principal, access: Access = 'read'): EntitySummary {
    if (!KNOWN_ENTITY_TYPES.includes(ref.entityType)) {
      throw badRequestParams(`Unsupported entity type '${ref.entityType}'`);
    }
    const entity = this.find(ref.entityType, ref.id);
    if (!entity) throw notFound(`${normalName(ref.entityType)} with id [${ref.id}] is not found`);
    if (!this.allows(actor, entity, access)) throw forbidden();
    return entity;
  }

  /** ThingsBoard's permissions: a tenant administrator everything; a customer user its customer's. */
  allows(actor: Principal, entity: EntitySummary, access: Access): boolean {
    if (actor.authority === 'TENANT_ADMIN') return true;
    const own = actor.customerId !== null && entity.customerId === actor.customerId;
    switch (entity.entityType) {
      case 'DEVICE':
      case 'ASSET':
      case 'EDGE':
      case 'ALARM':
        return own;
      case 'CUSTOMER':
        return own && access === 'read';
      case 'USER':
        return own && (access === 'read' || entity.id === actor.userId);
      case 'DEVICE_PROFILE':
      case 'ASSET_PROFILE':
        return access === 'read';
      case 'DASHBOARD':
        // a dashboard is its customers' to read when assigned to them (it may have many)
        return (
          access === 'read' &&
          this.ctx.db.get('SELECT 1 FROM dashboard_customers WHERE dashboard_id = ? AND customer_id = ?', [
            entity.id,
            actor.customerId,
          ]) !== undefined
        );
      default:
        return false;
    }
  }

  /**
   * The number an entity's time series are kept under: a device's own num, else minus a number given
   * to the entity on its first write (NO_TELEMETRY_NUM when it has none yet).
   */
  telemetryNum(entityType: string, id: string): number {
    if (entityType === 'DEVICE') {
      return (
        this.ctx.db.get<{ num: number }>('SELECT num FROM devices WHERE id = ?', [id])?.num ??
        NO_TELEMETRY_NUM
      );
    }
    const row = this.ctx.db.get<{ num: number }>('SELECT num FROM entity_nums WHERE entity_id = ?', [id]);
    return row ? -row.num : NO_TELEMETRY_NUM;
  }

  /** The entity's time series number, given inside the caller's write when it has none yet. */
  ensureTelemetryNum(w: Writer, entityType: string, id: string): number {
    if (entityType === 'DEVICE') {
      const row = w.get<{ num: number }>('SELECT num FROM devices WHERE id = ?', [id]);
      if (!row) throw notFound(`Device with id [${id}] is not found`);
      return row.num;
    }
    const row = w.get<{ num: number }>('SELECT num FROM entity_nums WHERE entity_id = ?', [id]);
    if (row) return -row.num;
    w.run('INSERT INTO entity_nums (entity_type, entity_id) VALUES (?, ?)', [entityType, id]);
    return -Number(w.get<{ n: number }>('SELECT last_insert_rowid() AS n')!.n);
  }

  private tenant(): EntitySummary {
    return {
      entityType: 'TENANT',
      id: this.ctx.tenantId,
      name: 'Tenant',
      label: null,
      type: null,
      customerId: null,
      createdTime: 0,
    };
  }
}

function toSummary(entityType: string, row: SummaryRow): EntitySummary {
  return {
    entityType,
    id: row.id,
    name: row.name,
    label: row.label,
    type: row.type,
    customerId: row.customer_id,
    createdTime: row.created_time,
  };
}

/**
 * Removes what hangs off a deleted entity inside the caller's write: attributes, relations, the alarms
 * it raised and the alarm records shown on it, and (for entities other than devices) its time series.
 */
export function deleteEntityDependents(
  ctx: PlatformContext,
  w: Writer,
  entityType: string,
  id: string,
): void {
  w.run('DELETE FROM attributes WHERE entity_id = ?', [id]);
  w.run('DELETE FROM relations WHERE (from_id = ? AND from_type = ?) OR (to_id = ? AND to_type = ?)', [
    id,
    entityType,
    id,
    entityType,
  ]);
  w.run(
    'DELETE FROM entity_alarms WHERE alarm_id IN (SELECT id FROM alarms WHERE originator_id = ?) OR entity_id = ?',
    [id, id],
  );
  w.run('DELETE FROM alarms WHERE originator_id = ?', [id]);
  w.run('DELETE FROM rule_node_states WHERE entity_id = ?', [id]);
  w.run('DELETE FROM calculated_field_events WHERE entity_id = ?', [id]);
  w.run('DELETE FROM calculated_fields WHERE entity_id = ?', [id]);
  if (entityType !== 'DEVICE') {
    const num = w.get<{ num: number }>('SELECT num FROM entity_nums WHERE entity_id = ?', [id]);
    if (num) {
      ctx.telemetry.deleteEntity(w, -num.num);
      w.run('DELETE FROM entity_nums WHERE entity_id = ?', [id]);
    }
  }
}
