import type { SqlValue } from 'sql.js';
import { ALARM_SORT_PROPERTIES, type AlarmInfo } from '../../shared/schemas/alarms.ts';
import type { PageData } from '../../shared/schemas/common.ts';
import {
  ENTITY_QUERY_LIMITS,
  type AlarmCountQuery,
  type AlarmData,
  type AlarmDataQuery,
  type AvailableEntityKeys,
  type EntityCountQuery,
  type EntityData,
  type EntityDataQuery,
  type EntityFilter,
  type EntityKey,
  type TsValue,
} from '../../shared/schemas/entity-query.ts';
import type { RelationTypeGroup } from '../../shared/schemas/relations.ts';
import { ATTRIBUTE_SCOPES, type AttributeScope } from '../../shared/schemas/telemetry.ts';
import type { Param } from '../store/durable-db.ts';
import type { AlarmSelection } from './alarm-records.ts';
import type { AlarmService } from './alarms.ts';
import type { Principal } from './auth/principal.ts';
import type { PlatformContext } from './context.ts';
import { KNOWN_ENTITY_TYPES, type EntityDirectory, type EntitySummary } from './entity-directory.ts';
import { badRequestParams } from './errors.ts';
import { compileKeyFilters, type CompiledKeyFilter } from './key-filters.ts';
import { likePattern } from './paging.ts';
import type { RelationService } from './relations.ts';
import type { TelemetryService } from './telemetry.ts';

const SCOPE_OF: Partial<Record<EntityKey['type'], AttributeScope>> = {
  CLIENT_ATTRIBUTE: 'CLIENT_SCOPE',
  SHARED_ATTRIBUTE: 'SHARED_SCOPE',
  SERVER_ATTRIBUTE: 'SERVER_SCOPE',
};
/** Which scope answers an ATTRIBUTE key first when several have it. */
const SCOPE_ORDER: AttributeScope[] = ['SERVER_SCOPE', 'SHARED_SCOPE', 'CLIENT_SCOPE'];

/** Tables whose other columns ENTITY_FIELD keys may read (snake_case columns as camelCase fields). */
const TABLES: Record<string, string> = {
  DEVICE: 'devices',
  ASSET: 'assets',
  EDGE: 'edges',
  CUSTOMER: 'customers',
  USER: 'users',
  DEVICE_PROFILE: 'device_profiles',
  ASSET_PROFILE: 'asset_profiles',
  RULE_CHAIN: 'rule_chains',
};
const HIDDEN_COLUMNS = new Set(['password_hash', 'tokens_valid_from', 'secret_hash', 'num', 'metadata']);
const TYPED_FILTERS: Record<
  string,
  { entityType: string; types: 'deviceTypes' | 'assetTypes' | 'edgeTypes' }
> = {
  deviceType: { entityType: 'DEVICE', types: 'deviceTypes' },
  assetType: { entityType: 'ASSET', types: 'assetTypes' },
  edgeType: { entityType: 'EDGE', types: 'edgeTypes' },
};

const camel = (column: string) => column.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** One selected entity and the values read for it so far. */
class Candidate {
  readonly entity: EntitySummary;
  private row: Record<string, SqlValue> | null | undefined;
  private attributes: Map<AttributeScope, Map<string, TsValue>> | undefined;
  private latest: Map<string, TsValue> | undefined;
  private readonly reader: ValueReader;

  constructor(entity: EntitySummary, reader: ValueReader) {
    this.entity = entity;
    this.reader = reader;
  }

  /** The value of a key as ThingsBoard answers it (text), or undefined when the entity has none. */
  value(key: EntityKey): TsValue | undefined {
    switch (key.type) {
      case 'ENTITY_FIELD':
        return this.field(key.key);
      case 'TIME_SERIES':
        return (this.latest ??= this.reader.latest(this.entity)).get(key.key);
      case 'ALARM_FIELD':
        return undefined;
      default: {
        this.attributes ??= this.reader.attributes(this.entity);
        const scope = SCOPE_OF[key.type];
        if (scope) return this.attributes.get(scope)?.get(key.key);
        for (const s of SCOPE_ORDER) {
          const v = this.attributes.get(s)?.get(key.key);
          if (v) return v;
        }
        return undefined;
      }
    }
  }

  private field(name: string): TsValue | undefined {
    const e = this.entity;
    const ts = this.reader.now;
    const text = (value: unknown) => ({ ts, value: asText(value) });
    switch (name) {
      case 'name':
        return text(e.name);
      case 'label':
        return text(e.label);
      case 'type':
        return text(e.type);
      case 'createdTime':
        return text(e.createdTime);
      case 'entityType':
        return text(e.entityType);
      case 'displayName':
        return text(e.label || e.name);
      case 'ownerType':
        return text(e.customerId ? 'CUSTOMER' : 'TENANT');
      case 'ownerName':
        return text(e.customerId ? this.reader.customerTitle(e.customerId) : 'Tenant');
    }
    if (this.row === undefined) this.row = this.reader.row(e);
    if (!this.row) return undefined;
    for (const [column, value] of Object.entries(this.row)) {
      if (camel(column) === name && !HIDDEN_COLUMNS.has(column)) return text(value);
    }
    return undefined;
  }
}

/** Reads what candidates need from the store. */
class ValueReader {
  readonly now: number;
  private readonly ctx: PlatformContext;
  private readonly directory: EntityDirectory;
  private readonly telemetry: TelemetryService;
  private readonly titles = new Map<string, string>();

  constructor(ctx: PlatformContext, directory: EntityDirectory, telemetry: TelemetryService) {
    this.ctx = ctx;
    this.directory = directory;
    this.telemetry = telemetry;
    this.now = ctx.now();
  }

  latest(e: EntitySummary): Map<string, TsValue> {
    const out = new Map<string, TsValue>();
    const num = this.directory.telemetryNum(e.entityType, e.id);
    for (const [key, p] of this.ctx.telemetry.latest(num)) out.set(key, { ts: p.ts, value: p.raw });
    return out;
  }

  attributes(e: EntitySummary): Map<AttributeScope, Map<string, TsValue>> {
    const out = new Map<AttributeScope, Map<string, TsValue>>();
    for (const a of this.telemetry.attributes(e.id, ATTRIBUTE_SCOPES)) {
      let scope = out.get(a.scope);
      if (!scope) out.set(a.scope, (scope = new Map()));
      scope.set(a.key, { ts: a.lastUpdateTs, value: asText(a.value) });
    }
    return out;
  }

  row(e: EntitySummary): Record<string, SqlValue> | null {
    const table = TABLES[e.entityType];
    return table ? (this.ctx.db.get(`SELECT * FROM ${table} WHERE id = ?`, [e.id]) ?? null) : null;
  }

  customerTitle(id: string): string {
    let title = this.titles.get(id);
    if (title === undefined) {
      title =
        this.ctx.db.get<{ title: string }>('SELECT title FROM customers WHERE id = ?', [id])?.title ?? '';
      this.titles.set(id, title);
    }
    return title;
  }
}

/**
 * ThingsBoard's entity data query and alarm data query for the filters dashboards and scripts use most
 * (single entity, entity list, entity name, entity type, device / asset / edge type, relations query):
 * the entities are selected (those the principal may see), narrowed by key filters and the text
 * search, sorted, paged, and answered with the entity fields and latest values asked for.
 */
export class EntityQueryService {
  private readonly ctx: PlatformContext;
  private readonly directory: EntityDirectory;
  private readonly relations: RelationService;
  private readonly alarms: AlarmService;
  private readonly telemetry: TelemetryService;

  constructor(
    ctx: PlatformContext,
    deps: {
      directory: EntityDirectory;
      relations: RelationService;
      alarms: AlarmService;
      telemetry: TelemetryService;
    },
  ) {
    this.ctx = ctx;
    this.directory = deps.directory;
    this.relations = deps.relations;
    this.alarms = deps.alarms;
    this.telemetry = deps.telemetry;
  }

  private reader(): ValueReader {
    return new ValueReader(this.ctx, this.directory, this.telemetry);
  }

  find(q: EntityDataQuery, actor: Principal): PageData<EntityData> {
    const reader = this.reader();
    const fields = q.entityFields ?? [];
    const latest = q.latestValues ?? [];
    let matched = this.match(q, actor, reader);
    const text = q.pageLink.textSearch?.toLowerCase();
    if (text) {
      const keys = [...fields, ...latest];
      matched = matched.filter((c) => keys.some((k) => c.value(k)?.value.toLowerCase().includes(text)));
    }
    sortCandidates(matched, q.pageLink.sortOrder ?? null);
    const { pageSize, page } = q.pageLink;
    const slice = matched.slice(page * pageSize, (page + 1) * pageSize);
    return {
      data: slice.map((c) => ({
        entityId: ref(c.entity),
        latest: latestOf(c, fields, latest),
        timeseries: {},
      })),
      totalPages: Math.ceil(matched.length / pageSize),
      totalElements: matched.length,
      hasNext: (page + 1) * pageSize < matched.length,
    };
  }

  count(q: EntityCountQuery, actor: Principal): number {
    return this.match(q, actor, this.reader()).length;
  }

  /** The time series and attribute keys of the entities on the query's page (at most 100 of them). */
  findKeys(
    q: EntityDataQuery,
    include: { timeseries: boolean; attributes: boolean; scope?: AttributeScope },
    actor: Principal,
  ): AvailableEntityKeys {
    const pageSize = Math.min(q.pageLink.pageSize, ENTITY_QUERY_LIMITS.keysPageSize);
    const page = this.find({ ...q, pageLink: { ...q.pageLink, pageSize } }, actor).data;
    const types = new Set<string>();
    const timeseries = new Set<string>();
    const attributes = new Set<string>();
    for (const { entityId } of page) {
      types.add(entityId.entityType);
      if (include.timeseries) {
        for (const key of this.ctx.telemetry.keys(
          this.directory.telemetryNum(entityId.entityType, entityId.id),
        ))
          timeseries.add(key);
      }
      if (include.attributes) {
        const rows = this.ctx.db.all<{ key: string }>(
          `SELECT DISTINCT key FROM attributes WHERE entity_id = ?${include.scope ? ' AND scope = ?' : ''}`,
          include.scope ? [entityId.id, include.scope] : [entityId.id],
        );
        for (const r of rows) attributes.add(r.key);
      }
    }
    return {
      entityTypes: [...types].sort(),
      timeseries: [...timeseries].sort(),
      attribute: [...attributes].sort(),
    };
  }

  findAlarms(q: AlarmDataQuery, actor: Principal): PageData<AlarmData> {
    const reader = this.reader();
    const { selection, candidates } = this.alarmSelection(q, q.pageLink, actor, reader);
    const sortKey = q.pageLink.sortOrder?.key;
    const page = this.alarms.page(
      {
        pageSize: q.pageLink.pageSize,
        page: q.pageLink.page,
        textSearch: q.pageLink.textSearch ?? undefined,
        sortProperty: sortKey?.type === 'ALARM_FIELD' ? alarmSortProperty(sortKey.key) : 'createdTime',
        sortOrder: q.pageLink.sortOrder?.direction ?? 'DESC',
      },
      selection,
    );
    const fields = q.entityFields ?? [];
    const latest = q.latestValues ?? [];
    return {
      ...page,
      data: page.data.map((alarm) => {
        const candidate = this.alarmEntity(alarm, candidates, reader);
        return {
          ...alarm,
          entityId: candidate ? ref(candidate.entity) : alarm.originator,
          latest: candidate ? latestOf(candidate, fields, latest) : {},
        };
      }),
    };
  }

  countAlarms(q: AlarmCountQuery, actor: Principal): number {
    const reader = this.reader();
    return this.alarms.count(this.alarmSelection(q, q, actor, reader).selection);
  }

  // --- selection -------------------------------------------------------------------------------------

  /** The entities of the filter the principal may see that pass the key filters. */
  private match(q: EntityCountQuery, actor: Principal, reader: ValueReader): Candidate[] {
    const filters = compileKeyFilters(q.keyFilters);
    const candidates = this.select(q.entityFilter, actor).map((e) => new Candidate(e, reader));
    if (filters.length === 0) return candidates;
    const any = q.keyFiltersOperation === 'OR';
    const passes = (c: Candidate, f: CompiledKeyFilter) => f.test(c.value(f.key)?.value);
    return candidates.filter((c) =>
      any ? filters.some((f) => passes(c, f)) : filters.every((f) => passes(c, f)),
    );
  }

  private select(filter: EntityFilter, actor: Principal): EntitySummary[] {
    const selected = this.selectAll(filter);
    if (selected.length > ENTITY_QUERY_LIMITS.selected) {
      throw badRequestParams(
        `The entity filter selects more than ${ENTITY_QUERY_LIMITS.selected} entities: narrow it (a type, a name prefix)`,
      );
    }
    return selected.filter((e) => this.directory.allows(actor, e, 'read'));
  }

  private selectAll(f: EntityFilter): EntitySummary[] {
    const limit = ENTITY_QUERY_LIMITS.selected + 1;
    switch (f.type) {
      case 'singleEntity': {
        if (!f.singleEntity)
          throw badRequestParams("entityFilter.singleEntity is required for 'singleEntity'");
        const e = this.directory.find(f.singleEntity.entityType, f.singleEntity.id);
        return e ? [e] : [];
      }
      case 'entityList':
        return this.directory.findMany(this.entityTypeOf(f), f.entityList ?? []);
      case 'entityName': {
        const prefix = f.entityNameFilter ?? '';
        return this.directory.listOf(
          this.entityTypeOf(f),
          ["name LIKE ? ESCAPE '\\'"],
          [`${likePattern(prefix).slice(1)}`],
          limit,
        );
      }
      case 'entityType':
        return this.directory.listOf(this.entityTypeOf(f), [], [], limit);
      case 'relationsQuery':
        return this.selectRelated(f);
      default: {
        const typed = TYPED_FILTERS[f.type]!;
        const list = f[typed.types] ?? [];
        const single = f[f.type as 'deviceType' | 'assetType' | 'edgeType'];
        const types = list.length > 0 ? list : single ? [single] : [];
        const nameFilter = f[`${f.type.replace('Type', '')}NameFilter` as 'deviceNameFilter'] ?? '';
        const where: string[] = [];
        const params: Param[] = [];
        if (types.length > 0) {
          where.push('type IN (SELECT value FROM json_each(?))');
          params.push(JSON.stringify(types));
        }
        if (nameFilter) {
          where.push("name LIKE ? ESCAPE '\\'");
          params.push(likePattern(nameFilter).slice(1));
        }
        return this.directory.listOf(typed.entityType, where, params, limit);
      }
    }
  }

  private selectRelated(f: EntityFilter): EntitySummary[] {
    if (!f.rootEntity) throw badRequestParams("entityFilter.rootEntity is required for 'relationsQuery'");
    const direction = f.direction ?? 'FROM';
    const found = this.relations.reach(f.rootEntity, {
      direction,
      typeGroup: (f.relationTypeGroup ?? 'COMMON') as RelationTypeGroup,
      maxLevel: f.maxLevel ?? 1,
      fetchLastLevelOnly: f.fetchLastLevelOnly ?? false,
    });
    const filters = f.filters ?? [];
    const seen = new Set<string>();
    const out: EntitySummary[] = [];
    for (const relation of found) {
      const other = direction === 'FROM' ? relation.to : relation.from;
      const ok =
        filters.length === 0 ||
        filters.some((rf) => {
          const typeOk = !rf.relationType || rf.relationType === relation.type;
          const entityOk =
            !rf.entityTypes || rf.entityTypes.length === 0 || rf.entityTypes.includes(other.entityType);
          return rf.negate ? !typeOk && entityOk : typeOk && entityOk;
        });
      if (!ok || seen.has(other.id)) continue;
      seen.add(other.id);
      const e = this.directory.find(other.entityType, other.id);
      if (e) out.push(e);
    }
    return out;
  }

  private entityTypeOf(f: EntityFilter): string {
    if (!f.entityType) throw badRequestParams(`entityFilter.entityType is required for '${f.type}'`);
    if (!KNOWN_ENTITY_TYPES.includes(f.entityType)) {
      throw badRequestParams(`entityFilter.entityType: unsupported entity type '${f.entityType}'`);
    }
    return f.entityType;
  }

  /** The alarms an alarm query selects, and the entities of its filter (null: no filter). */
  private alarmSelection(
    q: AlarmCountQuery | AlarmDataQuery,
    link: AlarmCountQuery | AlarmDataQuery['pageLink'],
    actor: Principal,
    reader: ValueReader,
  ): { selection: AlarmSelection; candidates: Map<string, Candidate> | null } {
    const now = this.ctx.now();
    const startTime =
      link.timeWindow && link.timeWindow > 0 && !link.startTs
        ? now - link.timeWindow
        : link.startTs || undefined;
    const selection: AlarmSelection = {
      customerId: actor.authority === 'TENANT_ADMIN' ? undefined : (actor.customerId ?? '-'),
      statusList: link.statusList ?? undefined,
      severityList: link.severityList ?? undefined,
      typeList: link.typeList ?? undefined,
      assigneeId: link.assigneeId?.id,
      startTime,
      endTime: link.endTs || undefined,
    };
    if (link.assigneeId)
      this.directory.require({ entityType: 'USER', id: link.assigneeId.id }, actor, 'read');
    if (!q.entityFilter) return { selection, candidates: null };
    const matched = this.match(
      { entityFilter: q.entityFilter, keyFilters: q.keyFilters, keyFiltersOperation: q.keyFiltersOperation },
      actor,
      reader,
    );
    const ids = matched.map((c) => c.entity.id);
    if (link.searchPropagatedAlarms) selection.entityIds = ids;
    else selection.originatorIds = ids;
    return { selection, candidates: new Map(matched.map((c) => [c.entity.id, c])) };
  }

  /** The entity of the query an alarm belongs to: its originator, else one it propagated to. */
  private alarmEntity(
    alarm: AlarmInfo,
    candidates: Map<string, Candidate> | null,
    reader: ValueReader,
  ): Candidate | undefined {
    if (!candidates) {
      const e = this.directory.find(alarm.originator.entityType, alarm.originator.id);
      return e ? new Candidate(e, reader) : undefined;
    }
    const own = candidates.get(alarm.originator.id);
    if (own) return own;
    const shown = this.ctx.db.all<{ entity_id: string }>(
      'SELECT entity_id FROM entity_alarms WHERE alarm_id = ?',
      [alarm.id.id],
    );
    for (const r of shown) {
      const c = candidates.get(r.entity_id);
      if (c) return c;
    }
    return undefined;
  }
}

const ref = (e: EntitySummary) => ({ entityType: e.entityType, id: e.id });

function latestOf(c: Candidate, fields: EntityKey[], latest: EntityKey[]): EntityData['latest'] {
  const out: EntityData['latest'] = {};
  for (const key of [...fields, ...latest]) {
    const group = (out[key.type] ??= {});
    group[key.key] = c.value(key) ?? { ts: 0, value: '' };
  }
  return out;
}

/** An ALARM_FIELD sort key as an alarm listing's sort property (createdTime for one it does not sort by). */
function alarmSortProperty(key: string): string {
  if (key === 'originator') return 'originatorName';
  return (ALARM_SORT_PROPERTIES as readonly string[]).includes(key) ? key : 'createdTime';
}

/** Sorts by the page link's key: numbers as numbers, text as text, missing values first (ascending). */
function sortCandidates(
  list: Candidate[],
  sortOrder: { key: EntityKey; direction?: 'ASC' | 'DESC' } | null,
): void {
  const key = sortOrder?.key ?? { type: 'ENTITY_FIELD' as const, key: 'createdTime' };
  const sign = (sortOrder ? (sortOrder.direction ?? 'ASC') : 'DESC') === 'ASC' ? 1 : -1;
  const values = new Map(list.map((c) => [c, c.value(key)?.value]));
  list.sort((a, b) => {
    const x = values.get(a);
    const y = values.get(b);
    if (x === y) return 0;
    if (x === undefined || x === '') return -sign;
    if (y === undefined || y === '') return sign;
    const nx = Number(x);
    const ny = Number(y);
    const cmp = Number.isFinite(nx) && Number.isFinite(ny) ? nx - ny : x.localeCompare(y);
    return cmp * sign;
  });
}
