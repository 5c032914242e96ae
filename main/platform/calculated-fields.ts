import { CF_TYPES, type CfType } from '../../shared/calculated-fields.ts';
import { randomUUID } from 'node:crypto';
import type { PageData, PageQuery } from '../../shared/schemas/common.ts';
import { requireTenantAdmin, type Principal } from './auth/principal.ts';
import type { PlatformContext } from './context.ts';
import type { EntityDirectory } from './entity-directory.ts';
import { badRequestParams, notFound } from './errors.ts';
import { parseJson, queryPage } from './paging.ts';

export { CF_TYPES, type CfType };

/** The entities a calculated field may be defined on. */
export const CF_ENTITY_TYPES = ['DEVICE', 'ASSET', 'DEVICE_PROFILE', 'ASSET_PROFILE'] as const;

export const ARGUMENT_TYPES = ['TS_LATEST', 'ATTRIBUTE', 'TS_ROLLING'] as const;
export type ArgumentType = (typeof ARGUMENT_TYPES)[number];

export interface ReferencedEntityKey {
  key: string;
  type: ArgumentType;
  scope?: string | null;
}

/** ThingsBoard's Argument: a key of the field's entity (or of refEntityId), with a default and, rolling, a window. */
export interface CfArgument {
  refEntityId?: { entityType: string; id: string } | null;
  refDynamicSourceConfiguration?: unknown;
  refEntityKey: ReferencedEntityKey;
  defaultValue?: string | null;
  limit?: number | null;
  timeWindow?: number | null;
}

export interface CfOutput {
  name?: string | null;
  type: 'TIME_SERIES' | 'ATTRIBUTES';
  scope?: string | null;
  decimalsByDefault?: number | null;
}

export interface CalculatedField {
  id: { entityType: 'CALCULATED_FIELD'; id: string };
  createdTime: number;
  tenantId: { entityType: 'TENANT'; id: string };
  entityId: { entityType: string; id: string };
  type: CfType;
  name: string;
  debugSettings: { failuresEnabled?: boolean; allEnabled?: boolean; allEnabledUntil?: number } | null;
  configurationVersion: number;
  configuration: Record<string, unknown> & { type: CfType };
  version: number;
}

/**
 * The tenant profile's calculated field limits (DefaultTenantProfileConfiguration's defaults): fields per
 * entity (ALARM fields not counted, as ThingsBoard counts them), arguments per field, points of a rolling
 * argument, plus Sandboard's bounds on a script or expression and on the debug events kept per field.
 */
export interface CfLimits {
  maxCalculatedFieldsPerEntity: number;
  maxArgumentsPerCF: number;
  maxDataPointsPerRollingArg: number;
  maxScriptChars: number;
  maxDebugEventsPerField: number;
}

export const DEFAULT_CF_LIMITS: CfLimits = {
  maxCalculatedFieldsPerEntity: 5,
  maxArgumentsPerCF: 10,
  maxDataPointsPerRollingArg: 1000,
  maxScriptChars: 10_000,
  maxDebugEventsPerField: 100,
};

/** A check the platform cannot make itself (an expression parses, a script compiles): null or the reason. */
export type CfConfigChecker = (type: CfType, configuration: Record<string, unknown>) => string | null;

interface CfRow {
  id: string;
  created_time: number;
  entity_type: string;
  entity_id: string;
  type: CfType;
  name: string;
  debug_settings: string | null;
  configuration_version: number;
  configuration: string;
  version: number;
}

export interface CfDebugEvent {
  id: { entityType: 'EVENT'; id: string };
  createdTime: number;
  type: 'DEBUG_CALCULATED_FIELD';
  entityId: { entityType: string; id: string };
  body: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const bad = (message: string) => badRequestParams(message);

/** The arguments a configuration names (GEOFENCING: its coordinates and zone groups), as ThingsBoard counts them. */
export function argumentsOf(type: CfType, config: Record<string, unknown>): Record<string, CfArgument> {
  if (type === 'GEOFENCING') {
    const out: Record<string, CfArgument> = {};
    const coords = isObject(config.entityCoordinates) ? config.entityCoordinates : {};
    out.latitude = { refEntityKey: { key: String(coords.latitudeKeyName ?? ''), type: 'TS_LATEST' } };
    out.longitude = { refEntityKey: { key: String(coords.longitudeKeyName ?? ''), type: 'TS_LATEST' } };
    const groups = isObject(config.zoneGroups) ? config.zoneGroups : {};
    for (const [name, g] of Object.entries(groups)) {
      const group = isObject(g) ? g : {};
      out[name] = {
        refEntityId: (group.refEntityId as CfArgument['refEntityId']) ?? null,
        refEntityKey: { key: String(group.perimeterKeyName ?? ''), type: 'ATTRIBUTE', scope: 'SERVER_SCOPE' },
      };
    }
    return out;
  }
  return isObject(config.arguments) ? (config.arguments as Record<string, CfArgument>) : {};
}

const NAME_RE = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function checkArguments(type: CfType, config: Record<string, unknown>, limits: CfLimits): void {
  const args = argumentsOf(type, config);
  const names = Object.keys(args);
  if (names.length > limits.maxArgumentsPerCF) throw bad('Calculated field arguments limit reached!');
  if (type !== 'GEOFENCING' && type !== 'RELATED_ENTITIES_AGGREGATION' && names.length === 0)
    throw bad('Arguments must be specified!');
  for (const name of names) {
    if (name === 'ctx' || name === 'propagationCtx')
      throw bad(`Argument name '${name}' is reserved and cannot be used.`);
    if (!NAME_RE.test(name)) throw bad(`Argument name '${name}' is not a valid identifier.`);
    const a = args[name];
    if (!isObject(a) || !isObject(a.refEntityKey))
      throw bad(`Argument: '${name}' doesn't have reference entity key configured!`);
    const key = a.refEntityKey as Record<string, unknown>;
    if (typeof key.key !== 'string' || key.key.trim() === '' || key.key.length > 255)
      throw bad(`Argument: '${name}' must have a key of 1 to 255 characters.`);
    if (!(ARGUMENT_TYPES as readonly unknown[]).includes(key.type))
      throw bad(`Argument: '${name}' has unknown type '${String(key.type)}'.`);
    if (key.type === 'TS_ROLLING') {
      if (type !== 'SCRIPT')
        throw bad(`Calculated field with type: '${type}' doesn't support TS_ROLLING arguments.`);
      const limit = a.limit ?? limits.maxDataPointsPerRollingArg;
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)
        throw bad(`Argument: '${name}' limit must be a positive integer.`);
      if (limit > limits.maxDataPointsPerRollingArg)
        throw bad(
          `Argument: '${name}' limit exceeds the maximum of ${limits.maxDataPointsPerRollingArg} data points per rolling argument.`,
        );
      if (a.timeWindow != null && (typeof a.timeWindow !== 'number' || a.timeWindow <= 0))
        throw bad(`Argument: '${name}' time window must be a positive number of milliseconds.`);
    }
  }
}

function checkOutput(type: CfType, config: Record<string, unknown>): void {
  if (type === 'ALARM') return;
  const out = config.output;
  if (!isObject(out)) throw bad('Output must be specified!');
  if (out.type !== 'TIME_SERIES' && out.type !== 'ATTRIBUTES')
    throw bad(`Output type must be TIME_SERIES or ATTRIBUTES, not '${String(out.type)}'.`);
  if (
    out.type === 'ATTRIBUTES' &&
    out.scope != null &&
    !['SERVER_SCOPE', 'SHARED_SCOPE', 'CLIENT_SCOPE'].includes(String(out.scope))
  )
    throw bad(`Output scope '${String(out.scope)}' is not an attribute scope.`);
  if (type === 'SIMPLE' && (typeof out.name !== 'string' || out.name.trim() === ''))
    throw bad('Output key must be specified!');
}

function checkTypeFields(type: CfType, config: Record<string, unknown>, limits: CfLimits): void {
  const text = (field: string) => {
    const v = config[field];
    if (typeof v !== 'string' || v.trim() === '') throw bad(`'${field}' must be specified!`);
    if (v.length > limits.maxScriptChars)
      throw bad(`'${field}' is longer than ${limits.maxScriptChars} characters.`);
  };
  switch (type) {
    case 'SIMPLE':
    case 'SCRIPT':
      text('expression');
      break;
    case 'PROPAGATION':
      if (!isObject(config.relation)) throw bad("'relation' must be specified!");
      if (config.applyExpressionToResolvedArguments) text('expression');
      break;
    case 'RELATED_ENTITIES_AGGREGATION':
      if (!isObject(config.relation)) throw bad("'relation' must be specified!");
      if (!isObject(config.metrics) || Object.keys(config.metrics).length === 0)
        throw bad("'metrics' must be specified!");
      break;
    case 'ENTITY_AGGREGATION':
      if (!isObject(config.metrics) || Object.keys(config.metrics).length === 0)
        throw bad('Metrics map cannot be empty.');
      if (!isObject(config.interval)) throw bad('Interval must be defined.');
      break;
    case 'GEOFENCING': {
      const c = config.entityCoordinates;
      if (!isObject(c) || typeof c.latitudeKeyName !== 'string' || typeof c.longitudeKeyName !== 'string')
        throw bad("'entityCoordinates' must name latitudeKeyName and longitudeKeyName!");
      if (!isObject(config.zoneGroups) || Object.keys(config.zoneGroups).length === 0)
        throw bad("'zoneGroups' must be specified!");
      for (const [name, g] of Object.entries(config.zoneGroups)) {
        if (name === 'latitude' || name === 'longitude')
          throw bad(`Name '${name}' is reserved and cannot be used for zone group!`);
        if (!isObject(g) || typeof g.perimeterKeyName !== 'string' || g.perimeterKeyName === '')
          throw bad(`Zone group '${name}' must name its perimeterKeyName!`);
      }
      break;
    }
    case 'ALARM':
      if (!isObject(config.createRules) || Object.keys(config.createRules).length === 0)
        throw bad("'createRules' must be specified!");
      break;
  }
}

/**
 * Calculated fields as ThingsBoard 4.3 keeps them (CalculatedFieldController, CalculatedFieldDataValidator):
 * one row per field on a device, asset or profile; its configuration validated on save against the tenant
 * limits; the engine (main/rule-engine/calculated-fields/) hears of every change through onChange.
 */
export class CalculatedFieldService {
  private readonly ctx: PlatformContext;
  private readonly directory: EntityDirectory;
  limits: CfLimits = { ...DEFAULT_CF_LIMITS };
  private checker: CfConfigChecker = () => null;
  private readonly listeners = new Set<(entityId: string) => void>();

  constructor(ctx: PlatformContext, directory: EntityDirectory) {
    this.ctx = ctx;
    this.directory = directory;
  }

  setConfigChecker(checker: CfConfigChecker): void {
    this.checker = checker;
  }

  /** Called with the entity id whose fields changed; returns the unsubscribe. */
  onChange(listener: (entityId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private toField(row: CfRow): CalculatedField {
    return {
      id: { entityType: 'CALCULATED_FIELD', id: row.id },
      createdTime: row.created_time,
      tenantId: { entityType: 'TENANT', id: this.ctx.tenantId },
      entityId: { entityType: row.entity_type, id: row.entity_id },
      type: row.type,
      name: row.name,
      debugSettings: row.debug_settings
        ? (parseJson(row.debug_settings) as CalculatedField['debugSettings'])
        : null,
      configurationVersion: row.configuration_version,
      configuration: { ...parseJson(row.configuration), type: row.type },
      version: row.version,
    };
  }

  private row(id: string): CfRow | undefined {
    return this.ctx.db.get<CfRow>('SELECT * FROM calculated_fields WHERE id = ?', [id]);
  }

  get(id: string, actor: Principal): CalculatedField {
    requireTenantAdmin(actor);
    const row = this.row(id);
    if (!row) throw notFound(`Calculated field with id [${id}] is not found`);
    return this.toField(row);
  }

  /** Every field defined on these entities (the engine's lookups). */
  fieldsOf(entityId: string): CalculatedField[] {
    return this.ctx.db
      .all<CfRow>('SELECT * FROM calculated_fields WHERE entity_id = ? ORDER BY created_time', [entityId])
      .map((r) => this.toField(r));
  }

  all(): CalculatedField[] {
    return this.ctx.db
      .all<CfRow>('SELECT * FROM calculated_fields ORDER BY created_time')
      .map((r) => this.toField(r));
  }

  page(
    entity: { entityType: string; id: string },
    q: PageQuery,
    actor: Principal,
    type?: string,
  ): PageData<CalculatedField> {
    requireTenantAdmin(actor);
    const where = ['e.entity_id = ?'];
    const params: (string | number)[] = [entity.id];
    if (type) {
      where.push('e.type = ?');
      params.push(type);
    }
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM calculated_fields e',
        where,
        params,
        searchColumn: 'e.name',
        sortColumns: { createdTime: 'e.created_time', name: 'e.name', type: 'e.type' },
        defaultSort: 'createdTime',
      },
      q,
      (r) => this.toField(r as unknown as CfRow),
    );
  }

  /** GET /api/calculatedFields/names: the names of the tenant's fields of a type, without repeats. */
  names(type: string, q: PageQuery, actor: Principal): PageData<string> {
    requireTenantAdmin(actor);
    return queryPage(
      this.ctx.db,
      {
        from: 'FROM (SELECT MIN(id) AS id, name, MIN(created_time) AS created_time FROM calculated_fields WHERE type = ? GROUP BY name) e',
        where: [],
        params: [type],
        searchColumn: 'e.name',
        sortColumns: { name: 'e.name', createdTime: 'e.created_time' },
        defaultSort: 'name',
        columns: 'e.name',
      },
      { ...q, sortOrder: q.sortOrder ?? 'ASC' },
      (r) => String((r as { name: string }).name),
    );
  }

  /** Checks a field as CalculatedFieldDataValidator does; throws ThingsBoard's 400 with its message. */
  validate(input: unknown): void {
    if (!isObject(input)) throw bad('Invalid request body');
    const type = input.type ?? (isObject(input.configuration) ? input.configuration.type : undefined);
    if (!(CF_TYPES as readonly unknown[]).includes(type))
      throw bad(`Unsupported calculated field type: ${String(type)}`);
    if (typeof input.name !== 'string' || input.name.trim() === '')
      throw bad('Calculated field name should be specified!');
    if (input.name.length > 255) throw bad('Calculated field name length must be equal or less than 255');
    const config = input.configuration;
    if (!isObject(config)) throw bad('Calculated field configuration should be specified!');
    if (config.type !== undefined && config.type !== type)
      throw bad(
        `Configuration type '${String(config.type)}' does not match the field type '${String(type)}'.`,
      );
    const entity = input.entityId;
    if (!isObject(entity) || typeof entity.id !== 'string' || typeof entity.entityType !== 'string')
      throw bad('Calculated field entity should be specified!');
    if (!(CF_ENTITY_TYPES as readonly string[]).includes(entity.entityType))
      throw bad(`Entity type '${entity.entityType}' does not support calculated fields.`);
    checkTypeFields(type as CfType, config, this.limits);
    checkArguments(type as CfType, config, this.limits);
    checkOutput(type as CfType, config);
    const problem = this.checker(type as CfType, config);
    if (problem) throw bad(problem);
  }

  async save(input: unknown, actor: Principal): Promise<CalculatedField> {
    requireTenantAdmin(actor);
    this.validate(input);
    const body = input as Record<string, unknown> & {
      id?: { id?: string } | null;
      entityId: { entityType: string; id: string };
      type?: CfType;
      name: string;
      configuration: Record<string, unknown>;
      debugSettings?: unknown;
      version?: number;
    };
    const type = (body.type ?? body.configuration.type) as CfType;
    const entity = this.directory.find(body.entityId.entityType, body.entityId.id);
    if (!entity) throw notFound(`${body.entityId.entityType} with id [${body.entityId.id}] is not found`);
    const existingId = body.id?.id;
    const config = JSON.stringify({ ...body.configuration, type });
    const debug = body.debugSettings == null ? null : JSON.stringify(body.debugSettings);
    const id = existingId ?? randomUUID();
    await this.ctx.db.write((w) => {
      if (existingId) {
        const old = w.get<CfRow>('SELECT * FROM calculated_fields WHERE id = ?', [existingId]);
        if (!old) throw bad("Can't update non existing calculated field!");
        if (old.entity_id !== body.entityId.id)
          throw bad('Changing the calculated field target entity after initialization is prohibited.');
        w.run(
          `UPDATE calculated_fields SET type = ?, name = ?, debug_settings = ?, configuration = ?, version = version + 1
           WHERE id = ?`,
          [type, body.name, debug, config, existingId],
        );
        return;
      }
      if (type !== 'ALARM') {
        const n = w.get<{ n: number }>(
          "SELECT COUNT(*) AS n FROM calculated_fields WHERE entity_id = ? AND type <> 'ALARM'",
          [body.entityId.id],
        );
        if (Number(n?.n ?? 0) >= this.limits.maxCalculatedFieldsPerEntity)
          throw bad('Calculated fields per entity limit reached!');
      }
      w.run(
        `INSERT INTO calculated_fields (id, created_time, entity_type, entity_id, type, name, debug_settings,
          configuration_version, configuration, version) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, 1)`,
        [id, Date.now(), body.entityId.entityType, body.entityId.id, type, body.name, debug, config],
      );
    });
    for (const l of this.listeners) l(body.entityId.id);
    return this.toField(this.row(id)!);
  }

  async delete(id: string, actor: Principal): Promise<CalculatedField> {
    const field = this.get(id, actor);
    await this.ctx.db.write((w) => {
      w.run('DELETE FROM calculated_fields WHERE id = ?', [id]);
      w.run('DELETE FROM calculated_field_events WHERE cf_id = ?', [id]);
    });
    for (const l of this.listeners) l(field.entityId.id);
    return field;
  }

  /** Keeps a run's debug event, dropping the field's oldest beyond maxDebugEventsPerField. */
  async addDebugEvent(
    cfId: string,
    entity: { entityType: string; id: string },
    body: Record<string, unknown>,
  ): Promise<void> {
    const keep = this.limits.maxDebugEventsPerField;
    const text = JSON.stringify(body);
    await this.ctx.db.write((w) => {
      w.run(
        'INSERT INTO calculated_field_events (id, created_time, cf_id, entity_type, entity_id, body) VALUES (?, ?, ?, ?, ?, ?)',
        [
          randomUUID(),
          Date.now(),
          cfId,
          entity.entityType,
          entity.id,
          text.length > 64_000 ? text.slice(0, 64_000) : text,
        ],
      );
      w.run(
        `DELETE FROM calculated_field_events WHERE cf_id = ? AND id NOT IN (
           SELECT id FROM calculated_field_events WHERE cf_id = ? ORDER BY created_time DESC, rowid DESC LIMIT ?)`,
        [cfId, cfId, keep],
      );
    });
  }

  /** The field's debug events, newest first. */
  debugEvents(id: string, actor: Principal, limit = 100): CfDebugEvent[] {
    this.get(id, actor);
    return this.ctx.db
      .all<{ id: string; created_time: number; entity_type: string; entity_id: string; body: string }>(
        'SELECT id, created_time, entity_type, entity_id, body FROM calculated_field_events WHERE cf_id = ? ORDER BY created_time DESC, rowid DESC LIMIT ?',
        [id, Math.min(Math.max(1, limit), 1000)],
      )
      .map((r) => ({
        id: { entityType: 'EVENT', id: r.id },
        createdTime: r.created_time,
        type: 'DEBUG_CALCULATED_FIELD',
        entityId: { entityType: r.entity_type, id: r.entity_id },
        body: parseJson(r.body),
      }));
  }
}
