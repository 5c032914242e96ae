import {
  RELATION_LIMITS,
  RELATION_TYPE_GROUPS,
  type EntityRelation,
  type EntityRelationInfo,
  type EntityRelationsQuery,
  type RelationEntityTypeFilter,
  type RelationTypeGroup,
  type SaveRelationRequest,
  type SearchDirection,
} from '../../shared/schemas/relations.ts';
import type { Principal } from './auth/principal.ts';
import type { PlatformContext } from './context.ts';
import type { EntityDirectory, EntityRef } from './entity-directory.ts';
import { badRequestParams, notFound } from './errors.ts';
import type { StoreBudget } from './store-budget.ts';

interface RelationRow {
  from_id: string;
  from_type: string;
  to_id: string;
  to_type: string;
  type: string;
  type_group: RelationTypeGroup;
  additional_info: string | null;
}

export interface RelationKey {
  from: EntityRef;
  to: EntityRef;
  type: string;
  typeGroup: RelationTypeGroup;
}

/** Who changed a relation (null: the platform itself), for the rule engine's message metadata. */
export type RelationActor = Principal | null;

/** ThingsBoard's rule: an unknown or blank type group is COMMON. */
export function parseTypeGroup(value: string | null | undefined): RelationTypeGroup {
  return value && (RELATION_TYPE_GROUPS as readonly string[]).includes(value)
    ? (value as RelationTypeGroup)
    : 'COMMON';
}

function parseInfo(text: string | null): unknown {
  if (text === null || text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

const refKey = (r: EntityRef) => `${r.entityType}:${r.id}`;

/**
 * Relations between entities (from -type-> to, in a type group), as ThingsBoard keeps them: saved and
 * deleted by either end's owner, listed by one end, and followed level by level by relation queries
 * and alarm propagation (with a bound on depth and on the relations visited, and each entity visited
 * once, so a cycle ends).
 */
export class RelationService {
  private readonly ctx: PlatformContext;
  private readonly directory: EntityDirectory;
  private readonly storage: StoreBudget | undefined;

  constructor(ctx: PlatformContext, directory: EntityDirectory, storage?: StoreBudget) {
    this.ctx = ctx;
    this.directory = directory;
    this.storage = storage;
  }

  toRelation(row: RelationRow): EntityRelation {
    return {
      from: { entityType: row.from_type, id: row.from_id },
      to: { entityType: row.to_type, id: row.to_id },
      type: row.type,
      typeGroup: row.type_group,
      additionalInfo: parseInfo(row.additional_info),
    };
  }

  async save(input: SaveRelationRequest, actor: Principal): Promise<EntityRelation> {
    this.directory.require(input.from, actor, 'write');
    this.directory.require(input.to, actor, 'write');
    const typeGroup = input.typeGroup ?? 'COMMON';
    const info =
      input.additionalInfo === undefined || input.additionalInfo === null
        ? null
        : JSON.stringify(input.additionalInfo);
    if (info !== null && info.length > RELATION_LIMITS.additionalInfoChars) {
      throw badRequestParams(
        `Relation additionalInfo is longer than ${RELATION_LIMITS.additionalInfoChars} characters`,
      );
    }
    await this.storage?.admit();
    await this.ctx.db.write((w) =>
      w.run(
        `INSERT INTO relations (from_id, from_type, to_id, to_type, type, type_group, additional_info)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (from_id, from_type, type, type_group, to_id, to_type) DO UPDATE SET additional_info = excluded.additional_info`,
        [input.from.id, input.from.entityType, input.to.id, input.to.entityType, input.type, typeGroup, info],
      ),
    );
    const relation: EntityRelation = {
      from: { entityType: input.from.entityType, id: input.from.id },
      to: { entityType: input.to.entityType, id: input.to.id },
      type: input.type,
      typeGroup,
      additionalInfo: info === null ? null : (JSON.parse(info) as unknown),
    };
    this.ctx.events.emit('relation', { action: 'ADD_OR_UPDATE', relation, actor });
    return relation;
  }

  /** Deletes one relation; 404 when there is none. */
  async delete(key: RelationKey, actor: Principal): Promise<EntityRelation> {
    this.requireEnd(key.from, actor, 'write');
    this.requireEnd(key.to, actor, 'write');
    const row = this.findRow(key);
    if (!row) throw notFound();
    await this.ctx.db.write((w) =>
      w.run(
        'DELETE FROM relations WHERE from_id = ? AND from_type = ? AND type = ? AND type_group = ? AND to_id = ? AND to_type = ?',
        [row.from_id, row.from_type, row.type, row.type_group, row.to_id, row.to_type],
      ),
    );
    const relation = this.toRelation(row);
    this.ctx.events.emit('relation', { action: 'DELETED', relation, actor });
    return relation;
  }

  /** Deletes every COMMON relation from and to an entity (DELETE /api/relations). */
  async deleteCommon(entity: EntityRef, actor: Principal): Promise<number> {
    this.directory.require(entity, actor, 'write');
    const rows = this.ctx.db.all<RelationRow>(
      `SELECT * FROM relations WHERE type_group = 'COMMON' AND ((from_id = ? AND from_type = ?) OR (to_id = ? AND to_type = ?))`,
      [entity.id, entity.entityType, entity.id, entity.entityType],
    );
    if (rows.length === 0) return 0;
    await this.ctx.db.write((w) =>
      w.run(
        `DELETE FROM relations WHERE type_group = 'COMMON' AND ((from_id = ? AND from_type = ?) OR (to_id = ? AND to_type = ?))`,
        [entity.id, entity.entityType, entity.id, entity.entityType],
      ),
    );
    for (const row of rows)
      this.ctx.events.emit('relation', { action: 'DELETED', relation: this.toRelation(row), actor });
    return rows.length;
  }

  get(key: RelationKey, actor: Principal): EntityRelation {
    this.requireEnd(key.from, actor, 'read');
    this.requireEnd(key.to, actor, 'read');
    const row = this.findRow(key);
    if (!row) throw notFound();
    return this.toRelation(row);
  }

  /** The relations of one end (direction FROM: where it is `from`), optionally of one type. */
  list(
    entity: EntityRef,
    direction: SearchDirection,
    typeGroup: RelationTypeGroup,
    actor: Principal,
    relationType?: string,
  ): EntityRelation[] {
    this.directory.require(entity, actor, 'read');
    const rows = this.rowsOf(entity, direction, typeGroup, relationType);
    return this.readable(
      rows.map((r) => this.toRelation(r)),
      actor,
    );
  }

  /** list() with the names of both ends. */
  listInfo(
    entity: EntityRef,
    direction: SearchDirection,
    typeGroup: RelationTypeGroup,
    actor: Principal,
  ): EntityRelationInfo[] {
    return this.withNames(this.list(entity, direction, typeGroup, actor), direction);
  }

  /** ThingsBoard's relations query: relations found level by level from a root, filtered. */
  query(q: EntityRelationsQuery, actor: Principal): EntityRelation[] {
    const root = { entityType: q.parameters.rootType, id: q.parameters.rootId };
    this.directory.require(root, actor, 'read');
    const found = this.walk(root, {
      direction: q.parameters.direction,
      typeGroup: parseTypeGroup(q.parameters.relationTypeGroup),
      maxLevel: q.parameters.maxLevel ?? 1,
      fetchLastLevelOnly: q.parameters.fetchLastLevelOnly ?? false,
      strict: true,
    });
    const filtered =
      q.filters.length === 0
        ? found
        : found.filter((r) => matchesFilters(q.filters, r, q.parameters.direction));
    return this.readable(filtered, actor);
  }

  queryInfo(q: EntityRelationsQuery, actor: Principal): EntityRelationInfo[] {
    return this.withNames(this.query(q, actor), q.parameters.direction);
  }

  /**
   * The entities reached from a root level by level (each once, the root never), with the relation that
   * reached them first; for entity queries and alarm propagation. Ends quietly at the bounds.
   */
  reach(
    root: EntityRef,
    options: {
      direction: SearchDirection;
      typeGroup?: RelationTypeGroup;
      maxLevel?: number;
      fetchLastLevelOnly?: boolean;
    },
  ): EntityRelation[] {
    return this.walk(root, {
      direction: options.direction,
      typeGroup: options.typeGroup ?? 'COMMON',
      maxLevel: options.maxLevel ?? 0,
      fetchLastLevelOnly: options.fetchLastLevelOnly ?? false,
      strict: false,
    });
  }

  private walk(
    root: EntityRef,
    o: {
      direction: SearchDirection;
      typeGroup: RelationTypeGroup;
      maxLevel: number;
      fetchLastLevelOnly: boolean;
      strict: boolean;
    },
  ): EntityRelation[] {
    const maxLevel =
      o.maxLevel > 0 ? Math.min(o.maxLevel, RELATION_LIMITS.maxLevel) : RELATION_LIMITS.maxLevel;
    const seen = new Set<string>([refKey(root)]);
    const result: EntityRelation[] = [];
    let level: { node: EntityRef; via: EntityRelation[] }[] = [{ node: root, via: [] }];
    let visited = 0;
    for (let depth = 1; depth <= maxLevel && level.length > 0; depth++) {
      const next: { node: EntityRef; via: EntityRelation[] }[] = [];
      for (const { node, via } of level) {
        const relations = this.rowsOf(node, o.direction, o.typeGroup).map((r) => this.toRelation(r));
        visited += relations.length;
        if (visited > RELATION_LIMITS.queryRelations) {
          if (o.strict) {
            throw badRequestParams(
              `The relation query reaches more than ${RELATION_LIMITS.queryRelations} relations: lower maxLevel or query from a closer root`,
            );
          }
          return result;
        }
        const children = new Map<string, EntityRelation[]>();
        for (const relation of relations) {
          const child = o.direction === 'FROM' ? relation.to : relation.from;
          const key = refKey(child);
          if (!seen.has(key)) {
            seen.add(key);
            children.set(key, []);
            next.push({ node: child, via: children.get(key)! });
          }
          children.get(key)?.push(relation);
        }
        if (!o.fetchLastLevelOnly) result.push(...relations);
        else if (relations.length === 0) result.push(...via);
        else if (depth === maxLevel) result.push(...relations);
      }
      level = next;
    }
    return result;
  }

  private rowsOf(
    entity: EntityRef,
    direction: SearchDirection,
    typeGroup: RelationTypeGroup,
    relationType?: string,
  ): RelationRow[] {
    const end = direction === 'FROM' ? 'from' : 'to';
    const typeCondition = relationType === undefined ? '' : ' AND type = ?';
    return this.ctx.db.all<RelationRow>(
      `SELECT * FROM relations WHERE ${end}_id = ? AND ${end}_type = ? AND type_group = ?${typeCondition} ORDER BY type, ${end === 'from' ? 'to' : 'from'}_id`,
      relationType === undefined
        ? [entity.id, entity.entityType, typeGroup]
        : [entity.id, entity.entityType, typeGroup, relationType],
    );
  }

  private findRow(key: RelationKey): RelationRow | undefined {
    return this.ctx.db.get<RelationRow>(
      'SELECT * FROM relations WHERE from_id = ? AND from_type = ? AND type = ? AND type_group = ? AND to_id = ? AND to_type = ?',
      [key.from.id, key.from.entityType, key.type, key.typeGroup, key.to.id, key.to.entityType],
    );
  }

  /** A relation's end as the key names it: its type must be known and the principal allowed. */
  private requireEnd(ref: EntityRef, actor: Principal, access: 'read' | 'write'): void {
    const entity = this.directory.find(ref.entityType, ref.id);
    // An end deleted since (or never there) still lets the tenant remove a dangling relation.
    if (!entity && actor.authority === 'TENANT_ADMIN') return;
    this.directory.require(ref, actor, access);
  }

  /** Only relations whose both ends the principal may read (ThingsBoard's filterRelationsByReadPermission). */
  private readable<T extends EntityRelation>(relations: T[], actor: Principal): T[] {
    if (actor.authority === 'TENANT_ADMIN') return relations;
    return relations.filter((r) => {
      const from = this.directory.find(r.from.entityType, r.from.id);
      const to = this.directory.find(r.to.entityType, r.to.id);
      return (
        !!from &&
        !!to &&
        this.directory.allows(actor, from, 'read') &&
        this.directory.allows(actor, to, 'read')
      );
    });
  }

  private withNames(relations: EntityRelation[], direction: SearchDirection): EntityRelationInfo[] {
    return relations.map((r) => {
      const other = direction === 'FROM' ? r.to : r.from;
      const name = this.directory.find(other.entityType, other.id)?.name ?? null;
      return {
        ...r,
        fromName: direction === 'TO' ? name : null,
        toName: direction === 'FROM' ? name : null,
      };
    });
  }
}

function matchesFilters(
  filters: RelationEntityTypeFilter[],
  relation: EntityRelation,
  direction: SearchDirection,
): boolean {
  return filters.some((f) => {
    const typeMatches = !f.relationType || f.relationType === relation.type;
    const other = direction === 'FROM' ? relation.to : relation.from;
    const entityMatches =
      !f.entityTypes || f.entityTypes.length === 0 || f.entityTypes.includes(other.entityType);
    const match = typeMatches && entityMatches;
    return f.negate ? !match : match;
  });
}
