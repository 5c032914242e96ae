import { NULL_UUID } from '../../shared/schemas/common.ts';
import type { AttributeScope } from '../../shared/schemas/telemetry.ts';
import type { KvValue } from '../platform/kv-value.ts';
import { NO_TELEMETRY_NUM } from '../platform/entity-directory.ts';
import type { Services } from '../platform/services.ts';
import type { Originator } from '../platform/tb-msg.ts';

/** The tables of the entities a rule node may look up, with the column of their customer and their name. */
const ENTITY_TABLES: Record<string, { table: string; customer?: string; name: string }> = {
  DEVICE: { table: 'devices', customer: 'customer_id', name: 'name' },
  ASSET: { table: 'assets', customer: 'customer_id', name: 'name' },
  ENTITY_VIEW: { table: 'entity_views', customer: 'customer_id', name: 'name' },
  EDGE: { table: 'edges', customer: 'customer_id', name: 'name' },
  USER: { table: 'users', customer: 'customer_id', name: 'email' },
  CUSTOMER: { table: 'customers', name: 'title' },
  RULE_CHAIN: { table: 'rule_chains', name: 'name' },
  DEVICE_PROFILE: { table: 'device_profiles', name: 'name' },
};

function hasTable(services: Services, table: string): boolean {
  return (
    services.ctx.db.get("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [table]) !==
    undefined
  );
}

type Row = Record<string, unknown>;

function row(services: Services, entity: Originator): Row | undefined {
  const t = ENTITY_TABLES[entity.entityType];
  if (!t || !hasTable(services, t.table)) return undefined;
  return services.ctx.db.get<Row>(`SELECT * FROM ${t.table} WHERE id = ?`, [entity.id]);
}

/**
 * The customer an entity is assigned to (ThingsBoard's fetchEntityCustomerIdAsync): undefined when the
 * entity does not exist, null when it is not assigned to any.
 */
export function customerOf(services: Services, entity: Originator): string | null | undefined {
  if (entity.entityType === 'CUSTOMER') return services.customers.exists(entity.id) ? entity.id : undefined;
  const t = ENTITY_TABLES[entity.entityType];
  if (!t?.customer) return entity.entityType === 'TENANT' ? null : undefined;
  const r = row(services, entity);
  if (!r) return undefined;
  const id = r[t.customer];
  return typeof id === 'string' && id !== NULL_UUID ? id : null;
}

/** An entity's id by its name (email for users), for the change originator node. */
export function entityIdByName(services: Services, entityType: string, name: string): string | undefined {
  const t = ENTITY_TABLES[entityType];
  if (!t || !hasTable(services, t.table)) return undefined;
  return services.ctx.db.get<{ id: string }>(`SELECT id FROM ${t.table} WHERE ${t.name} = ?`, [name])?.id;
}

export function entityExists(services: Services, entity: Originator): boolean {
  if (entity.entityType === 'TENANT') return entity.id === services.ctx.tenantId;
  return row(services, entity) !== undefined;
}

const camel = (column: string) => column.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * The entity as ThingsBoard's EntityFieldsData sees it: its JSON with ids as plain strings, so that
 * `name`, `type`, `label`, `customerId`, `additionalInfo.description` can be read by path.
 */
export function entityFields(services: Services, entity: Originator): Record<string, unknown> | undefined {
  if (entity.entityType === 'TENANT') {
    if (entity.id !== services.ctx.tenantId) return undefined;
    return { id: entity.id, name: 'Tenant', title: 'Tenant', tenantProfileId: null, region: null };
  }
  const r = row(services, entity);
  if (!r) return undefined;
  const out: Record<string, unknown> = { id: entity.id, tenantId: services.ctx.tenantId };
  for (const [column, value] of Object.entries(r)) {
    if (/hash|secret|password|num$|^metadata$/.test(column)) continue;
    let v: unknown = value;
    if ((column === 'additional_info' || column === 'configuration') && typeof value === 'string') {
      try {
        v = JSON.parse(value) as unknown;
      } catch {
        v = value;
      }
    }
    out[camel(column)] = v;
  }
  if (entity.entityType === 'CUSTOMER') out.name = r.title;
  if (entity.entityType === 'DEVICE') out.deviceProfileId = r.device_profile_id;
  if ('customer_id' in r) out.customerId = r.customer_id ?? NULL_UUID;
  return out;
}

/** ThingsBoard's EntityFieldsData.getFieldValue: a dotted path, leaves as text, objects as JSON. */
export function fieldValue(
  fields: Record<string, unknown>,
  path: string,
  ignoreNullStrings: boolean,
): string | undefined {
  let node: unknown = fields;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || !(key in (node as Row))) return undefined;
    node = (node as Row)[key];
  }
  if (node === undefined) return undefined;
  if (node === null) return ignoreNullStrings ? undefined : 'null';
  if (typeof node === 'object') return JSON.stringify(node);
  const text = String(node);
  return text === '' && ignoreNullStrings ? undefined : text;
}

export interface RelationsQuery {
  direction?: 'FROM' | 'TO';
  maxLevel?: number;
  fetchLastLevelOnly?: boolean;
  filters?: { relationType?: string | null; entityTypes?: string[] | null }[] | null;
}

interface RelationRow {
  from_id: string;
  from_type: string;
  to_id: string;
  to_type: string;
  type: string;
}

const MAX_RELATION_LEVELS = 10;
const MAX_RELATIONS_VISITED = 10_000;

/**
 * The first entity found by a relations query (COMMON relations), level by level as ThingsBoard walks them:
 * FROM follows relations out of the originator, TO into it.
 */
export function findRelatedEntity(
  services: Services,
  originator: Originator,
  query: RelationsQuery,
): Originator | undefined {
  const direction = query.direction ?? 'FROM';
  const maxLevel = Math.min(Math.max(query.maxLevel ?? 1, 1), MAX_RELATION_LEVELS);
  const filters = query.filters ?? [];
  const fits = (r: RelationRow, other: Originator) =>
    filters.length === 0 ||
    filters.some(
      (f) =>
        (!f.relationType || f.relationType === r.type) &&
        (!f.entityTypes || f.entityTypes.length === 0 || f.entityTypes.includes(other.entityType)),
    );
  const seen = new Set<string>([`${originator.entityType}:${originator.id}`]);
  let frontier: Originator[] = [originator];
  let visited = 0;
  for (let level = 1; level <= maxLevel && frontier.length > 0; level++) {
    const next: Originator[] = [];
    for (const e of frontier) {
      const rows = services.ctx.db.all<RelationRow>(
        direction === 'FROM'
          ? "SELECT * FROM relations WHERE from_id = ? AND from_type = ? AND type_group = 'COMMON' ORDER BY rowid"
          : "SELECT * FROM relations WHERE to_id = ? AND to_type = ? AND type_group = 'COMMON' ORDER BY rowid",
        [e.id, e.entityType],
      );
      for (const r of rows) {
        if (++visited > MAX_RELATIONS_VISITED) return undefined;
        const other =
          direction === 'FROM'
            ? { entityType: r.to_type, id: r.to_id }
            : { entityType: r.from_type, id: r.from_id };
        const lastLevel = level === maxLevel;
        if (fits(r, other) && (!query.fetchLastLevelOnly || lastLevel)) return other;
        const key = `${other.entityType}:${other.id}`;
        if (!seen.has(key)) {
          seen.add(key);
          next.push(other);
        }
      }
    }
    frontier = next;
  }
  return undefined;
}

/** Whether a COMMON relation of the type exists (from -> to, or any in the direction when `to` is absent). */
export function relationExists(
  services: Services,
  from: Originator | null,
  to: Originator | null,
  type: string | null | undefined,
): boolean {
  const where: string[] = ["type_group = 'COMMON'"];
  const params: string[] = [];
  if (from) {
    where.push('from_id = ? AND from_type = ?');
    params.push(from.id, from.entityType);
  }
  if (to) {
    where.push('to_id = ? AND to_type = ?');
    params.push(to.id, to.entityType);
  }
  if (type) {
    where.push('type = ?');
    params.push(type);
  }
  return (
    services.ctx.db.get(`SELECT 1 FROM relations WHERE ${where.join(' AND ')} LIMIT 1`, params) !== undefined
  );
}

export function attributeValues(
  services: Services,
  entityId: string,
  scope: AttributeScope,
  keys: string[],
): Map<string, KvValue> {
  const out = new Map<string, KvValue>();
  if (keys.length === 0) return out;
  for (const a of services.telemetry.attributes(entityId, [scope], keys)) out.set(a.key, a.value as KvValue);
  return out;
}

/** The number an entity's time series are kept under, or undefined while it has none. */
export function timeseriesNum(services: Services, entity: Originator): number | undefined {
  const num = services.directory.telemetryNum(entity.entityType, entity.id);
  return num === NO_TELEMETRY_NUM ? undefined : num;
}

export function latestValues(
  services: Services,
  entity: Originator,
  keys: string[],
): Map<string, { ts: number; value: KvValue }> {
  const num = timeseriesNum(services, entity);
  if (num === undefined || keys.length === 0) return new Map();
  return services.ctx.telemetry.latest(num, keys);
}
