import type { AttributeScope } from '../../../shared/schemas/telemetry.ts';
import type { AlarmSeverity } from '../../../shared/schemas/alarms.ts';
import {
  argumentsOf,
  type CalculatedField,
  type CfArgument,
  type CfOutput,
  type CfType,
} from '../../platform/calculated-fields.ts';
import type { KvValue } from '../../platform/kv-value.ts';
import type { Services } from '../../platform/services.ts';
import { NO_TELEMETRY_NUM } from '../../platform/entity-directory.ts';
import type { TelemetryTarget } from '../../platform/telemetry.ts';
import type { TsEntry } from '../../platform/telemetry-repository.ts';
import { newMsg, type TbMsg } from '../../platform/tb-msg.ts';
import { alarmMessage } from '../entity-messages.ts';
import { compileMathExpression, type MathExpression } from '../math-expression.ts';
import { sharedScriptSandbox, type ScriptSandbox } from '../script/script-sandbox.ts';
import {
  pushRolling,
  readArgument,
  scriptValueOf,
  sourceOf,
  toNumber,
  type ArgValue,
  type EntityRef,
  type RollingValue,
} from './cf-arguments.ts';
import {
  ruleHolds,
  severitiesOf,
  simpleExpressionTrue,
  type AlarmRuleJson,
  type RuleProgress,
} from './cf-alarm-rules.ts';
import { computeMetrics, type AggMetric, type Row } from './cf-metrics.ts';
import { isScriptNumber, type ArithmeticScript } from './cf-arithmetic.ts';
import {
  arithmeticOfCfScript,
  CfScript,
  CfScriptBatch,
  looksLikeScript,
  type ScriptOutcome,
} from './cf-script.ts';
import { insideZone, parseZone, type Zone } from './geofencing.ts';

/** A change of an entity's data: time series points, or attributes of a scope. */
export interface DataUpdate {
  kind: 'ts' | 'attr';
  scope?: AttributeScope;
  ts: number;
  values: Record<string, unknown>;
}

interface Compiled {
  field: CalculatedField;
  type: CfType;
  args: Record<string, CfArgument>;
  argNames: string[];
  /** Object.entries(args), made once: every update walks them */
  argList: [string, CfArgument][];
  expression: MathExpression | null;
  script: Pick<CfScript, 'run' | 'release'> | null;
  /** a SCRIPT field that only returns arithmetic of its arguments: computed here when they are numbers */
  arithmetic: ArithmeticScript | null;
  /** the batch program a SCRIPT field runs in, and its place there (see batchScripts) */
  batch: { program: CfScriptBatch; index: number } | null;
  /** TBEL conditions of an ALARM field, by rule (severity or CLEAR) */
  conditions: Map<string, CfScript>;
  /** the output key of a single-output field (its own result does not trigger it) */
  outputs: Set<string>;
  /**
   * SIMPLE and SCRIPT fields reading the same latest values or attributes of their own entity share this key:
   * an entity's fields of one key keep one state and are computed together (see enqueueGroup).
   */
  groupKey: string | null;
  /** how its results leave (strategy, scope, which ts): a group's fields leaving alike can leave as one */
  leaves: string;
}

/** An entity's SIMPLE and SCRIPT fields of one groupKey, its own and its profile's, in their order. */
interface Group {
  members: Compiled[];
  /** no member's output is one of their (common) arguments: whether one member is triggered says it for all */
  uniform: boolean;
  /** every member a formula or an arithmetic script: computed at once when nothing of the group is queued */
  formulas: boolean;
  /** formulas leaving alike: their results can be computed into one object and emitted once (computeFormulas) */
  together: boolean;
  /** members with debug settings that may ask for a debug event of every run (its own arguments and result) */
  debugging: Compiled[];
}

/** The fields an update of an entity may trigger, as onData walks them: alone in their order, then by group. */
interface Dispatch {
  own: Compiled[];
  inherited: Compiled[];
  singles: Compiled[];
  groups: Group[];
}

/** The fields of an entity that has none (one list for all such entities). */
const NO_FIELDS: Compiled[] = [];

/** A queued computation of a field (or of a group of fields) for an entity. */
interface Job {
  updates: DataUpdate[];
  reread: boolean;
  depth: number;
  /** a group's fields to compute (null: a single field) */
  members: Set<Compiled> | null;
}

/** The jobs of one key (field or group, and entity), one at a time: the last one's end, and the one waiting. */
interface Queue {
  tail: Promise<void>;
  pending: number;
  waiting: Job | null;
}

interface GlobalIndex {
  /** RELATED_ENTITIES_AGGREGATION fields (their related entities trigger them) */
  related: Compiled[];
  /** fields by the entity (not their own) an argument reads */
  byRef: Map<string, Compiled[]>;
  /** every key any field reads */
  argKeys: Set<string>;
}

interface OutboxEntry {
  entity: EntityRef;
  scope: string | null;
  ts: number;
  immediate: boolean;
  values: Record<string, unknown>;
  /** the fields whose results it holds (the rule engine message says them; IMMEDIATE writes do not) */
  fieldIds: Set<string> | null;
}

interface FieldState {
  args: Map<string, ArgValue>;
  /** geofencing: whether the entity was inside each zone group at the last run */
  presence: Map<string, boolean>;
  /** alarm: each rule's progress */
  rules: Map<string, RuleProgress>;
  /** entity aggregation: the interval being collected and its points */
  interval: { start: number; rows: { ts: number; row: Row }[] } | null;
}

/** An entity's field states; `used` since eviction last passed them (least recently used, approximately: CLOCK). */
interface EntityStates {
  fields: Map<string, FieldState>;
  used: boolean;
}

export interface CfEngineOptions {
  sandbox?: ScriptSandbox;
  /** states kept in memory (field x entity); the least recently used beyond are dropped */
  maxStates?: number;
  /** how many results in a row may trigger further fields (ThingsBoard stops chains too) */
  maxChainDepth?: number;
}

const MAX_PENDING_PER_STATE = 1000;
/** the types whose queued updates may be computed together (see enqueue) */
const COALESCED = new Set<CfType>([
  'SIMPLE',
  'SCRIPT',
  'PROPAGATION',
  'RELATED_ENTITIES_AGGREGATION',
  'ENTITY_AGGREGATION',
]);
const MAX_PRODUCED = 50_000;
const MAX_RELATED = 1000;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function round(v: number, decimals: unknown): number {
  if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > 15) return v;
  const f = 10 ** decimals;
  return Math.round(v * f) / f;
}

/**
 * Runs calculated fields (ThingsBoard 4.3's CalculatedFieldEntityMessageProcessor): when a time series or
 * attribute of an argument changes, the fields of the entity and of its profile that read it are computed
 * from their state (latest values, rolling windows), and the result enters the rule engine as a
 * POST_TELEMETRY_REQUEST or POST_ATTRIBUTES_REQUEST of the entity, which the root chain saves. ALARM fields
 * raise and clear alarms themselves and tell the rule engine as the alarm nodes do. Each field x entity runs
 * one update at a time, in order; a script runs in the rule engine's sandbox.
 */
export class CalculatedFieldEngine {
  private readonly services: Services;
  private readonly submit: (msg: TbMsg) => void;
  private readonly sandbox: ScriptSandbox;
  private readonly maxStates: number;
  private readonly maxChainDepth: number;
  private readonly compiled = new Map<string, Compiled[]>();
  /** by entity, then by field id (no key made per update); statesCount bounds them all */
  private readonly states = new Map<string, EntityStates>();
  private statesCount = 0;
  private readonly queues = new Map<string, Queue>();
  private readonly profiles = new Map<string, string | null>();
  /** by the list of own fields (or, for entities without, of their profile's): see dispatchOf */
  private readonly dispatches = new WeakMap<Compiled[], Dispatch>();
  /** entity|key -> depth of the chain that produced it, so a field's own result does not loop forever */
  private readonly produced = new Map<string, number>();
  private global: GlobalIndex | null = null;
  private readonly unsubscribe: (() => void)[] = [];
  private idle: Promise<void> = Promise.resolve();
  /** entities whose changed fields are compiled at the next turn (prepareSoon) */
  private readonly preparing = new Set<string>();
  /** results waiting for the entity's running fields, by entity then by kind and ts */
  private readonly outbox = new Map<string, OutboxEntry[]>();
  /** entities' latest values read this turn (a new state reads them once for all its fields) */
  private readonly latestRead = new Map<string, Map<string, { ts: number; value: KvValue }>>();
  private readonly latestOf = (src: EntityRef, num: number): Map<string, { ts: number; value: KvValue }> => {
    let m = this.latestRead.get(src.id);
    if (!m) {
      if (this.latestRead.size === 0) setImmediate(() => this.latestRead.clear());
      m = this.services.ctx.telemetry.latest(num);
      this.latestRead.set(src.id, m);
    }
    return m;
  };
  /** IMMEDIATE time series results waiting for the end of this turn (saveSoon) */
  private toSave: { target: TelemetryTarget; entries: TsEntry[] }[] = [];
  /** the latest saveSoon write, until it is durable */
  private saving: Promise<void> = Promise.resolve();
  /** entities' time series targets (numbers never change once given; a deleted device's is dropped) */
  private readonly targets = new Map<string, TelemetryTarget>();
  private readonly targetOf = (entity: EntityRef): TelemetryTarget => {
    let target = this.targets.get(entity.id);
    if (target === undefined) {
      const num = this.services.directory.telemetryNum(entity.entityType, entity.id);
      target = { id: entity.id, num, entityType: entity.entityType };
      if (num === NO_TELEMETRY_NUM) return target;
      if (this.targets.size > this.maxStates) this.targets.clear();
      this.targets.set(entity.id, target);
    }
    return target;
  };
  private readonly numOf = (entity: EntityRef): number => this.targetOf(entity).num;
  /** fields of each entity queued or running (its results go out when none is) */
  private readonly running = new Map<string, number>();
  computed = 0;
  failures = 0;

  constructor(services: Services, submit: (msg: TbMsg) => void, options: CfEngineOptions = {}) {
    this.services = services;
    this.submit = submit;
    this.sandbox = options.sandbox ?? sharedScriptSandbox();
    this.maxStates = options.maxStates ?? 100_000;
    this.maxChainDepth = options.maxChainDepth ?? 8;
  }

  start(): void {
    const { events } = this.services.ctx;
    // most writes (a field's own results among them) carry no key any field reads: nothing is made for them
    const read = (entries: { values: Record<string, unknown> }[]) => {
      const { argKeys } = this.globalIndex();
      return entries.some((x) => readsAny(argKeys, x.values));
    };
    const onTs = (e: { deviceId: string; entries: { ts: number; values: Record<string, unknown> }[] }) => {
      if (read(e.entries)) this.onData({ entityType: 'DEVICE', id: e.deviceId }, e.entries.map(tsUpdate));
    };
    const onAttr = (e: {
      deviceId: string;
      scope: AttributeScope;
      values: Record<string, unknown>;
      ts: number;
    }) =>
      this.onData({ entityType: 'DEVICE', id: e.deviceId }, [
        { kind: 'attr', scope: e.scope, ts: e.ts, values: e.values },
      ]);
    const onEntityTs = (e: {
      entityType: string;
      entityId: string;
      entries: { ts: number; values: Record<string, unknown> }[];
    }) => {
      if (read(e.entries)) this.onData({ entityType: e.entityType, id: e.entityId }, e.entries.map(tsUpdate));
    };
    const onEntityAttr = (e: {
      entityType: string;
      entityId: string;
      scope: AttributeScope;
      values: Record<string, unknown>;
      ts: number;
    }) =>
      this.onData({ entityType: e.entityType, id: e.entityId }, [
        { kind: 'attr', scope: e.scope, ts: e.ts, values: e.values },
      ]);
    const onDevice = (e: { deviceId: string }) => this.profiles.delete(e.deviceId);
    const onDeviceDeleted = (e: { deviceId: string }) => {
      this.targets.delete(e.deviceId);
      this.toSave = this.toSave.filter((i) => i.target.id !== e.deviceId);
    };
    events.on('telemetry', onTs);
    events.on('attributes', onAttr);
    events.on('entityTelemetry', onEntityTs);
    events.on('entityAttributes', onEntityAttr);
    events.on('deviceSaved', onDevice);
    events.on('deviceDeleted', onDeviceDeleted);
    this.unsubscribe.push(
      () => events.off('telemetry', onTs),
      () => events.off('attributes', onAttr),
      () => events.off('entityTelemetry', onEntityTs),
      () => events.off('entityAttributes', onEntityAttr),
      () => events.off('deviceSaved', onDevice),
      () => events.off('deviceDeleted', onDeviceDeleted),
      this.services.calculatedFields.onChange((entityId) => {
        this.reset();
        this.prepareSoon(entityId);
      }),
    );
  }

  /**
   * Compiles an entity's (or profile's) fields soon after they change, as ThingsBoard compiles a field's
   * script when it is saved: its scripts' batch is loaded into a started sandbox, so the first telemetry
   * after a save is not held up by the sandbox's start.
   */
  private prepareSoon(entityId: string): void {
    if (this.preparing.size === 0)
      setImmediate(() => {
        const ids = [...this.preparing];
        this.preparing.clear();
        if (this.unsubscribe.length > 0) for (const id of ids) this.fieldsOf(id);
      });
    this.preparing.add(entityId);
  }

  stop(): void {
    for (const u of this.unsubscribe.splice(0)) u();
    this.reset();
  }

  /** Resolves once every update queued so far has been computed (tests, the bench). */
  async settled(): Promise<void> {
    let last: Promise<void> | null = null;
    let saved: Promise<void> | null = null;
    while (last !== this.idle || saved !== this.saving) {
      last = this.idle;
      saved = this.saving;
      await last;
      await Promise.all([...this.queues.values()].map((q) => q.tail));
      await saved;
    }
  }

  /** Forgets compiled fields and their states (a field was saved or deleted). */
  reset(): void {
    for (const list of this.compiled.values()) for (const c of list) this.release(c);
    if (this.global) for (const c of this.global.related) this.release(c);
    this.compiled.clear();
    this.states.clear();
    this.statesCount = 0;
    this.global = null;
  }

  private release(c: Compiled): void {
    c.script?.release();
    for (const s of c.conditions.values()) s.release();
  }

  // --- which fields run -------------------------------------------------------------------------------

  private compile(field: CalculatedField): Compiled {
    const type = field.type;
    const config = field.configuration;
    const args = argumentsOf(type, config);
    const argNames = Object.keys(args);
    const c: Compiled = {
      field,
      type,
      args,
      argNames,
      argList: Object.entries(args),
      expression: null,
      script: null,
      arithmetic: null,
      batch: null,
      conditions: new Map(),
      outputs: new Set(),
      groupKey: null,
      leaves: leavesOf(config),
    };
    c.outputs = outputKeysOf(c);
    const expr = typeof config.expression === 'string' ? config.expression : '';
    if (
      type === 'SIMPLE' ||
      (type === 'PROPAGATION' && config.applyExpressionToResolvedArguments && !looksLikeScript(expr))
    )
      c.expression = compileMathExpression(expr, argNames);
    else if (type === 'SCRIPT' || (type === 'PROPAGATION' && config.applyExpressionToResolvedArguments)) {
      c.script = new CfScript(this.sandbox, expr, argNames);
      if (type === 'SCRIPT') c.arithmetic = arithmeticOfCfScript(expr, argNames);
    }
    if (
      (c.expression && type === 'SIMPLE') ||
      (c.script && type === 'SCRIPT' && c.argList.every(([, a]) => a.refEntityKey.type !== 'TS_ROLLING'))
    )
      c.groupKey = c.argList.every(([, a]) => !a.refEntityId?.id)
        ? `group:${JSON.stringify(c.argList)}`
        : null;
    if (type === 'ALARM') {
      const rules: [string, AlarmRuleJson | undefined][] = [
        ...Object.entries((config.createRules ?? {}) as Record<string, AlarmRuleJson>),
        ['CLEAR', config.clearRule as AlarmRuleJson | undefined],
      ];
      for (const [key, rule] of rules) {
        const e = rule?.condition?.expression;
        if (e?.type === 'TBEL' && typeof e.expression === 'string')
          c.conditions.set(key, new CfScript(this.sandbox, e.expression, argNames));
      }
    }
    return c;
  }

  /** An entity's (or profile's) SCRIPT fields run as one batch program (CfScriptBatch). */
  private batchScripts(list: Compiled[]): void {
    const scripted = list.filter((c) => c.type === 'SCRIPT' && c.script);
    if (scripted.length < 2) return;
    let batch: CfScriptBatch;
    try {
      batch = new CfScriptBatch(
        this.sandbox,
        scripted.map((c) => ({ source: String(c.field.configuration.expression), argNames: c.argNames })),
      );
    } catch {
      return;
    }
    batch.warm();
    scripted.forEach((c, i) => {
      c.script!.release();
      c.batch = { program: batch, index: i };
      c.script = {
        run: (ctx, args) => batch.run(i, ctx, args),
        release: () => (i === 0 ? batch.release() : undefined),
      };
    });
  }

  private fieldsOf(entityId: string): Compiled[] {
    let list = this.compiled.get(entityId);
    if (!list) {
      list = [];
      for (const f of this.services.calculatedFields.fieldsOf(entityId)) {
        try {
          list.push(this.compile(f));
        } catch {
          // saved before a check existed, or the expression no longer parses: the field does not run
        }
      }
      this.batchScripts(list);
      if (list.length === 0) list = NO_FIELDS;
      if (this.compiled.size > this.maxStates) this.compiled.clear();
      this.compiled.set(entityId, list);
    }
    return list;
  }

  private globalIndex(): GlobalIndex {
    if (!this.global) {
      const related: Compiled[] = [];
      const byRef = new Map<string, Compiled[]>();
      const argKeys = new Set<string>();
      for (const f of this.services.calculatedFields.all()) {
        const args = Object.values(argumentsOf(f.type, f.configuration));
        for (const a of args) argKeys.add(a.refEntityKey.key);
        const refs = args
          .map((a) => a.refEntityId?.id)
          .filter((id): id is string => typeof id === 'string' && id !== f.entityId.id);
        if (f.type !== 'RELATED_ENTITIES_AGGREGATION' && refs.length === 0) continue;
        let c: Compiled;
        try {
          c = this.compile(f);
        } catch {
          continue;
        }
        if (f.type === 'RELATED_ENTITIES_AGGREGATION') related.push(c);
        for (const id of refs) byRef.set(id, [...(byRef.get(id) ?? []), c]);
      }
      this.global = { related, byRef, argKeys };
    }
    return this.global;
  }

  private profileOf(entity: EntityRef): string | null {
    if (entity.entityType !== 'DEVICE' && entity.entityType !== 'ASSET') return null;
    let p = this.profiles.get(entity.id);
    if (p === undefined) {
      p =
        entity.entityType === 'DEVICE'
          ? (this.services.devices.findRow(entity.id)?.device_profile_id ?? null)
          : ((this.services.assets.findRow(entity.id) as { asset_profile_id?: string } | undefined)
              ?.asset_profile_id ?? null);
      if (this.profiles.size > this.maxStates) this.profiles.clear();
      this.profiles.set(entity.id, p);
    }
    return p;
  }

  /**
   * The fields of an entity whose own fields are `own` and its profile's `inherited`, grouped as onData
   * walks them; made once for the profile's entities without fields of their own, once for an entity with.
   */
  private dispatchOf(own: Compiled[], inherited: Compiled[]): Dispatch {
    const anchor = own.length === 0 ? inherited : own;
    let d = this.dispatches.get(anchor);
    if (d && d.inherited === inherited && (d.own === own || (d.own.length === 0 && own.length === 0)))
      return d;
    const singles: Compiled[] = [];
    const byKey = new Map<string, Compiled[]>();
    for (const c of [...own, ...inherited]) {
      if (c.type === 'RELATED_ENTITIES_AGGREGATION') continue;
      if (c.groupKey === null) singles.push(c);
      else byKey.set(c.groupKey, [...(byKey.get(c.groupKey) ?? []), c]);
    }
    const groups = [...byKey.values()].map((members): Group => {
      const formulas = members.every((c) => c.type === 'SIMPLE' || c.arithmetic);
      return {
        members,
        uniform: members.every((c) => c.argList.every(([, a]) => !c.outputs.has(a.refEntityKey.key))),
        formulas,
        together: formulas && members.every((c) => c.leaves === members[0]!.leaves),
        debugging: members.filter((c) => {
          const settings = c.field.debugSettings;
          return settings?.allEnabled === true || typeof settings?.allEnabledUntil === 'number';
        }),
      };
    });
    d = { own, inherited, singles, groups };
    this.dispatches.set(anchor, d);
    return d;
  }

  /** The entity's data changed: queue the fields it triggers. */
  onData(entity: EntityRef, updates: DataUpdate[]): void {
    // most writes (a field's own results among them) carry no key any field reads
    const { argKeys } = this.globalIndex();
    if (!updates.some((u) => readsAny(argKeys, u.values))) return;
    let depth = 0;
    if (this.produced.size > 0)
      for (const u of updates)
        for (const key of Object.keys(u.values)) {
          const d = this.produced.get(`${entity.id}|${key}`);
          if (d !== undefined) {
            depth = Math.max(depth, d);
            this.produced.delete(`${entity.id}|${key}`);
          }
        }
    if (depth >= this.maxChainDepth) return;
    const own = this.fieldsOf(entity.id);
    const profileId = this.profileOf(entity);
    const dispatch = this.dispatchOf(own, profileId ? this.fieldsOf(profileId) : NO_FIELDS);
    // held while its fields are queued, so that fields computed at once still leave as one write
    this.running.set(entity.id, (this.running.get(entity.id) ?? 0) + 1);
    try {
      for (const c of dispatch.singles)
        if (this.triggers(c, entity, updates, false)) this.enqueue(c, entity, updates, depth);
      for (const group of dispatch.groups) {
        const all = group.members;
        const members = group.uniform
          ? this.triggers(all[0]!, entity, updates, false)
            ? all
            : NO_FIELDS
          : all.filter((c) => this.triggers(c, entity, updates, false));
        if (members.length === 1) this.enqueue(members[0]!, entity, updates, depth);
        else if (members.length > 1)
          this.enqueueGroup(members, entity, updates, depth, members === all ? group : null);
      }
    } finally {
      this.done(entity.id);
    }
    const g = this.globalIndex();
    for (const c of g.byRef.get(entity.id) ?? [])
      if (this.triggers(c, entity, updates, true) && isInstanceTarget(c.field.entityId.entityType))
        this.enqueue(c, c.field.entityId, [], depth, true);
    for (const c of g.related) {
      if (!this.triggers(c, entity, updates, false)) continue;
      for (const parent of this.parentsOf(c, entity)) this.enqueue(c, parent, [], depth, true);
    }
  }

  /** Whether an update touches one of the field's arguments (of the entity itself, or of refEntityId). */
  private triggers(c: Compiled, entity: EntityRef, updates: DataUpdate[], byRef: boolean): boolean {
    const outputs = c.outputs;
    for (const [, a] of c.argList) {
      const isRef = !!a.refEntityId?.id;
      if (byRef ? a.refEntityId?.id !== entity.id : isRef && a.refEntityId!.id !== entity.id) continue;
      const key = a.refEntityKey;
      for (const u of updates) {
        if (!(key.key in u.values)) continue;
        if (!byRef && outputs.has(key.key)) continue;
        if (u.kind === 'ts' && key.type !== 'ATTRIBUTE') return true;
        if (u.kind === 'attr' && key.type === 'ATTRIBUTE' && (key.scope ?? 'SERVER_SCOPE') === u.scope)
          return true;
      }
    }
    return false;
  }

  /** The entities a related-entities aggregation runs for, given one of its related entities. */
  private parentsOf(c: Compiled, child: EntityRef): EntityRef[] {
    const rel = (c.field.configuration.relation ?? {}) as { direction?: string; relationType?: string };
    const out: EntityRef[] = [];
    const rows = this.services.ctx.db.all<{ id: string; type: string }>(
      rel.direction === 'TO'
        ? `SELECT to_id AS id, to_type AS type FROM relations WHERE from_id = ? AND type = ? AND type_group = 'COMMON' LIMIT ?`
        : `SELECT from_id AS id, from_type AS type FROM relations WHERE to_id = ? AND type = ? AND type_group = 'COMMON' LIMIT ?`,
      [child.id, rel.relationType ?? 'Contains', MAX_RELATED],
    );
    for (const r of rows) {
      const p: EntityRef = { entityType: r.type, id: r.id };
      if (c.field.entityId.id === p.id || this.profileOf(p) === c.field.entityId.id) out.push(p);
    }
    return out;
  }

  private relatedOf(c: Compiled, entity: EntityRef): EntityRef[] {
    const rel = (c.field.configuration.relation ?? {}) as { direction?: string; relationType?: string };
    return this.services.ctx.db.all<{ id: string; entityType: string }>(
      rel.direction === 'TO'
        ? `SELECT from_id AS id, from_type AS entityType FROM relations WHERE to_id = ? AND type = ? AND type_group = 'COMMON' LIMIT ?`
        : `SELECT to_id AS id, to_type AS entityType FROM relations WHERE from_id = ? AND type = ? AND type_group = 'COMMON' LIMIT ?`,
      [entity.id, rel.relationType ?? 'Contains', MAX_RELATED],
    );
  }

  private enqueue(
    c: Compiled,
    entity: EntityRef,
    updates: DataUpdate[],
    depth: number,
    reread = false,
  ): void {
    const key = `${c.field.id.id}|${entity.id}`;
    // A formula with nothing queued before it is computed at once: no queue, no promise per update.
    if (!reread && c.type === 'SIMPLE' && !this.queues.has(key)) {
      this.runNow(c, entity, updates, depth);
      return;
    }
    this.schedule(
      key,
      entity,
      { updates, reread, depth, members: null },
      COALESCED.has(c.type),
      (job) => this.run(c, entity, job.updates, job.depth, job.reread),
      (err) => this.failed(c, entity, err),
    );
  }

  /**
   * Fields of the entity reading the same arguments (one groupKey): one state, the arguments applied once,
   * formulas computed at once when nothing of the group is queued, the scripts' calls made from one ctx.
   */
  private enqueueGroup(
    members: Compiled[],
    entity: EntityRef,
    updates: DataUpdate[],
    depth: number,
    group: Group | null,
  ): void {
    const lead = members[0]!;
    const keyOf = () => `${lead.groupKey}|${entity.id}`;
    const idle = this.queues.size === 0 || !this.queues.has(keyOf());
    if (idle && (group ? group.formulas : members.every((c) => c.type === 'SIMPLE' || c.arithmetic))) {
      // formulas and arithmetic scripts are computed now; a script whose arguments are not all numbers goes
      // to the sandbox, and the group's next updates wait for it (in order, as queued ones do)
      const state = this.groupState(lead, entity, updates);
      if (!state) return;
      const ts = tsOf(updates);
      if (
        group?.together &&
        !group.debugging.some((c) => debugs(c.field, null)) &&
        this.computeFormulas(lead, members, entity, state, ts, depth)
      )
        return;
      const scripts = this.computeGroup(lead, members, entity, state, ts, depth, true);
      if (scripts.length > 0) {
        const key = keyOf();
        this.track(key, entity, this.queueOf(key), Promise.all(scripts), (err) =>
          this.failed(lead, entity, err),
        );
      }
      return;
    }
    this.schedule(
      keyOf(),
      entity,
      { updates, reread: false, depth, members: new Set(members) },
      true,
      (job) => {
        const state = this.groupState(lead, entity, job.updates);
        return Promise.all(
          state ? this.computeGroup(lead, job.members!, entity, state, tsOf(job.updates), job.depth) : [],
        );
      },
      (err) => this.failed(lead, entity, err),
    );
  }

  /** The group's state with the updates applied (null, the failure counted, when its arguments can't be read). */
  private groupState(lead: Compiled, entity: EntityRef, updates: DataUpdate[]): FieldState | null {
    try {
      const found = this.stateOf(lead, entity, lead.groupKey!);
      if (!found.fresh) this.apply(lead, entity, found.state, updates);
      return found.state;
    } catch (err) {
      this.failed(lead, entity, err);
      return null;
    }
  }

  /**
   * A group of formulas and arithmetic scripts leaving alike, computed into one object and emitted once: the
   * same values in the same order as an emit per field. False, having changed nothing, when a field needs
   * more than that (an argument missing, or not a number for a script; a formula's error or result that is
   * not a number): computeGroup then computes each field as usual.
   */
  private computeFormulas(
    lead: Compiled,
    members: Compiled[],
    entity: EntityRef,
    state: FieldState,
    ts: number,
    depth: number,
  ): boolean {
    if (!this.ready(lead, state)) return false;
    const values: Record<string, unknown> = {};
    let vars: Record<string, number> | undefined;
    let args: number[] | undefined;
    try {
      for (const c of members) {
        if (c.arithmetic) {
          if (!args) {
            args = [];
            for (const n of lead.argNames) {
              const v = singleValue(state, n);
              if (!isScriptNumber(v)) return false;
              // the sandbox gets its arguments as JSON: -0 arrives as 0
              args.push(v + 0);
            }
          }
          c.arithmetic.resultInto(args, values);
        } else {
          const value = c.expression!.evaluate((vars ??= this.numbers(state)));
          if (!Number.isFinite(value)) return false;
          const output = c.field.configuration.output as CfOutput;
          values[String(output.name)] = round(value, output.decimalsByDefault);
        }
      }
    } catch {
      return false;
    }
    this.computed += members.length;
    this.emit(lead, entity, values, this.useTs(lead, state, ts), depth, members);
    return true;
  }

  /** Computes a group's fields: formulas now, scripts' results when the sandbox answers (the promises). */
  private computeGroup(
    lead: Compiled,
    members: Iterable<Compiled>,
    entity: EntityRef,
    state: FieldState,
    ts: number,
    depth: number,
    onlySandbox = false,
  ): Promise<void>[] {
    const out: Promise<void>[] = [];
    let script: ReturnType<CalculatedFieldEngine['scriptCtx']> | undefined;
    const scriptCtx = () => (script ??= this.scriptCtx(lead, state));
    let vars: Record<string, number> | undefined;
    const numbers = () => (vars ??= this.numbers(state));
    // the scripts of one batch program go in one call for all (one promise, one set of arguments)
    let batched: Compiled[] | null = null;
    for (const c of members) {
      this.computed++;
      if (c.arithmetic) {
        try {
          const done = this.arithmeticResult(c, entity, state, ts, depth, scriptCtx);
          if (done !== null) {
            const caught = done?.catch((err: unknown) => this.failed(c, entity, err));
            if (caught && !onlySandbox) out.push(caught);
            continue;
          }
        } catch (err) {
          this.failed(c, entity, err);
          continue;
        }
      }
      if (
        c.type === 'SCRIPT' &&
        c.batch &&
        (batched === null || batched[0]!.batch!.program === c.batch.program)
      ) {
        (batched ??= []).push(c);
        continue;
      }
      try {
        const done =
          c.type === 'SIMPLE'
            ? this.runSimple(c, entity, state, ts, depth, numbers)
            : this.runScript(c, entity, state, ts, depth, scriptCtx);
        const caught = done?.catch((err: unknown) => this.failed(c, entity, err));
        if (caught && (c.type !== 'SIMPLE' || !onlySandbox)) out.push(caught);
      } catch (err) {
        this.failed(c, entity, err);
      }
    }
    if (batched && this.ready(lead, state)) {
      const scripts = batched;
      const { ctx, args } = scriptCtx();
      out.push(
        scripts[0]!
          .batch!.program.runMany(
            scripts.map((c) => c.batch!.index),
            ctx,
            args,
          )
          .then((outcomes) => {
            const pending: Promise<void>[] = [];
            outcomes.forEach((o, k) => {
              const c = scripts[k]!;
              try {
                const d = this.scriptOutcome(c, entity, state, ts, depth, args, o);
                if (d) pending.push(d.catch((err: unknown) => this.failed(c, entity, err)));
              } catch (err) {
                this.failed(c, entity, err);
              }
            });
            return pending.length > 0 ? Promise.all(pending).then(() => undefined) : undefined;
          }),
      );
    }
    return out;
  }

  private failed(c: Compiled, entity: EntityRef, err: unknown): void {
    this.failures++;
    void this.debug(c, entity, null, null, (err as Error)?.message ?? String(err));
  }

  /**
   * Queues a job behind the ones of its key. A job still waiting for the previous one takes a new update
   * too when `coalesce` (one computation on the newest values): a field that cannot keep up computes less
   * often instead of falling ever further behind. Alarm and geofencing fields see every update (their
   * transitions count).
   */
  private schedule(
    key: string,
    entity: EntityRef,
    job: Job,
    coalesce: boolean,
    run: (job: Job) => Promise<unknown>,
    fail: (err: unknown) => void,
  ): void {
    const q = this.queueOf(key);
    const waiting = q.waiting;
    if (waiting && coalesce) {
      waiting.updates.push(...job.updates);
      waiting.reread ||= job.reread;
      waiting.depth = Math.max(waiting.depth, job.depth);
      if (job.members) for (const c of job.members) waiting.members?.add(c);
      return;
    }
    if (q.pending >= MAX_PENDING_PER_STATE) {
      this.failures++;
      return;
    }
    const mine: Job = { ...job, updates: [...job.updates] };
    q.waiting = mine;
    this.track(
      key,
      entity,
      q,
      q.tail.then(() => {
        if (q.waiting === mine) q.waiting = null;
        return run(mine);
      }),
      fail,
    );
  }

  private queueOf(key: string): Queue {
    let q = this.queues.get(key);
    if (!q) {
      q = { tail: Promise.resolve(), pending: 0, waiting: null };
      this.queues.set(key, q);
    }
    return q;
  }

  /** Work of the queue's key, running or waiting: the key's next jobs and the entity's results wait for it. */
  private track(
    key: string,
    entity: EntityRef,
    queue: Queue,
    work: Promise<unknown>,
    fail: (err: unknown) => void,
  ): void {
    queue.pending++;
    this.running.set(entity.id, (this.running.get(entity.id) ?? 0) + 1);
    const finish = () => {
      queue.pending--;
      this.done(entity.id);
      if (queue.pending === 0 && this.queues.get(key) === queue) this.queues.delete(key);
    };
    queue.tail = work.then(finish, (err: unknown) => {
      fail(err);
      finish();
    });
    this.idle = queue.tail;
  }

  /** One of the entity's fields is done: its results go out once none is queued or running. */
  private done(entityId: string): void {
    const left = (this.running.get(entityId) ?? 1) - 1;
    if (left > 0) this.running.set(entityId, left);
    else {
      this.running.delete(entityId);
      this.flush(entityId);
    }
  }

  private runNow(c: Compiled, entity: EntityRef, updates: DataUpdate[], depth: number): void {
    const failed = (err: unknown) => this.failed(c, entity, err);
    try {
      const { state, fresh } = this.stateOf(c, entity);
      if (!fresh) this.apply(c, entity, state, updates);
      this.computed++;
      this.runSimple(c, entity, state, tsOf(updates), depth)?.catch(failed);
    } catch (err) {
      failed(err);
    }
  }

  // --- state --------------------------------------------------------------------------------------------

  private stateOf(
    c: Compiled,
    entity: EntityRef,
    key = c.field.id.id,
  ): { state: FieldState; fresh: boolean } {
    let of = this.states.get(entity.id);
    let state = of?.fields.get(key);
    if (of && state) {
      of.used = true;
      return { state, fresh: false };
    }
    state = { args: new Map(), presence: new Map(), rules: new Map(), interval: null };
    this.loadArgs(c, entity, state);
    while (this.statesCount >= this.maxStates && this.states.size > 0) this.evictStates();
    of = this.states.get(entity.id);
    if (!of) {
      of = { fields: new Map(), used: false };
      this.states.set(entity.id, of);
    }
    of.fields.set(key, state);
    this.statesCount++;
    return { state, fresh: true };
  }

  /** Drops the states of the oldest entity not used since the last pass; used ones get a second chance at the back. */
  private evictStates(): void {
    for (const [id, of] of this.states) {
      this.states.delete(id);
      if (!of.used) {
        this.statesCount -= of.fields.size;
        return;
      }
      of.used = false;
      this.states.set(id, of);
    }
  }

  private loadArgs(c: Compiled, entity: EntityRef, state: FieldState): void {
    const limit = this.services.calculatedFields.limits.maxDataPointsPerRollingArg;
    for (const [name, a] of c.argList) {
      const v = readArgument(this.services, a, entity, limit, this.latestOf, this.numOf);
      if (v) state.args.set(name, v);
      else state.args.delete(name);
    }
  }

  private apply(c: Compiled, entity: EntityRef, state: FieldState, updates: DataUpdate[]): void {
    const limit = this.services.calculatedFields.limits.maxDataPointsPerRollingArg;
    for (const [name, a] of c.argList) {
      if (sourceOf(a, entity).id !== entity.id) continue;
      const key = a.refEntityKey;
      for (const u of updates) {
        if (!(key.key in u.values)) continue;
        if ((u.kind === 'attr') !== (key.type === 'ATTRIBUTE')) continue;
        if (u.kind === 'attr' && (key.scope ?? 'SERVER_SCOPE') !== u.scope) continue;
        const value = u.values[key.key] as KvValue;
        if (key.type === 'TS_ROLLING') {
          const r = state.args.get(name) as RollingValue | undefined;
          if (r) pushRolling(r, u.ts, toNumber(value), a, limit);
        } else {
          const old = state.args.get(name);
          if (old?.kind === 'single') {
            // in place: a state's values are read synchronously, never kept
            if (old.ts <= u.ts) {
              old.ts = u.ts;
              old.value = value;
            }
          } else if (!old) state.args.set(name, { kind: 'single', ts: u.ts, value });
        }
      }
    }
  }

  // --- computing ----------------------------------------------------------------------------------------

  private async run(
    c: Compiled,
    entity: EntityRef,
    updates: DataUpdate[],
    depth: number,
    reread: boolean,
  ): Promise<void> {
    const { state, fresh } = this.stateOf(c, entity);
    if (reread && !fresh) this.loadArgs(c, entity, state);
    else if (!fresh) this.apply(c, entity, state, updates);
    const ts = tsOf(updates);
    this.computed++;
    switch (c.type) {
      case 'SIMPLE':
        return this.runSimple(c, entity, state, ts, depth);
      case 'SCRIPT':
        return this.runScript(c, entity, state, ts, depth);
      case 'GEOFENCING':
        return this.runGeofencing(c, entity, state, ts, depth);
      case 'ALARM':
        return this.runAlarm(c, entity, state, ts);
      case 'PROPAGATION':
        return this.runPropagation(c, entity, state, ts, depth);
      case 'RELATED_ENTITIES_AGGREGATION':
        return this.runRelatedAggregation(c, entity, ts, depth);
      case 'ENTITY_AGGREGATION':
        return this.runEntityAggregation(c, entity, state, updates, depth);
    }
  }

  private ready(c: Compiled, state: FieldState): boolean {
    return c.argNames.every((n) => state.args.has(n));
  }

  private numbers(state: FieldState): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [n, v] of state.args) if (v.kind === 'single') out[n] = toNumber(v.value);
    return out;
  }

  private latestTs(state: FieldState): number {
    let ts = 0;
    for (const v of state.args.values()) ts = Math.max(ts, v.kind === 'single' ? v.ts : v.timeWindow.endTs);
    return ts;
  }

  /** Synchronous: only its debug event (when debugging is on) is written afterwards. */
  private runSimple(
    c: Compiled,
    entity: EntityRef,
    state: FieldState,
    ts: number,
    depth: number,
    numbers = () => this.numbers(state),
  ): Promise<void> | undefined {
    if (!this.ready(c, state)) return;
    const vars = numbers();
    const value = c.expression!.evaluate(vars);
    const output = c.field.configuration.output as CfOutput;
    if (!Number.isFinite(value))
      return this.debug(c, entity, vars, null, `Expression result is not a number: ${String(value)}`);
    const result = { [String(output.name)]: round(value, output.decimalsByDefault) };
    this.emit(c, entity, result, this.useTs(c, state, ts), depth);
    return this.debug(c, entity, vars, result, null);
  }

  private scriptCtx(c: Compiled, state: FieldState): { ctx: unknown; args: Record<string, unknown> } {
    const entries: Record<string, unknown> = {};
    const args: Record<string, unknown> = {};
    for (const n of c.argNames) {
      const v = state.args.get(n);
      if (!v) continue;
      entries[n] = v.kind === 'single' ? { ts: v.ts, value: v.value } : scriptValueOf(v);
      args[n] = scriptValueOf(v);
    }
    return { ctx: { args: entries, latestTs: this.latestTs(state) }, args };
  }

  private async runScript(
    c: Compiled,
    entity: EntityRef,
    state: FieldState,
    ts: number,
    depth: number,
    scriptCtx = () => this.scriptCtx(c, state),
  ): Promise<void> {
    if (!this.ready(c, state)) return;
    const computed = this.arithmeticResult(c, entity, state, ts, depth, scriptCtx);
    if (computed !== null) return computed;
    const { ctx, args } = scriptCtx();
    let outcome: ScriptOutcome;
    try {
      outcome = { ok: true, value: await c.script!.run(ctx, args) };
    } catch (err) {
      outcome = { ok: false, error: err as Error };
    }
    await this.scriptOutcome(c, entity, state, ts, depth, args, outcome);
  }

  /**
   * An arithmetic SCRIPT field's result computed here when its arguments are all numbers (the arguments as the
   * script would get them are only built for a debug event, the one place they show); null when the sandbox
   * must run it.
   */
  private arithmeticResult(
    c: Compiled,
    entity: EntityRef,
    state: FieldState,
    ts: number,
    depth: number,
    scriptCtx: () => { args: Record<string, unknown> },
  ): Promise<void> | undefined | null {
    const now = c.arithmetic?.evaluate((n) => singleValue(state, n));
    if (!now) return null;
    const args = debugs(c.field, null) ? scriptCtx().args : {};
    return this.scriptResult(c, entity, state, ts, depth, args, now);
  }

  /**
   * A script's outcome: its result (scriptResult), or its error shown in a debug event and then thrown;
   * undefined when nothing is left to wait for.
   */
  private scriptOutcome(
    c: Compiled,
    entity: EntityRef,
    state: FieldState,
    ts: number,
    depth: number,
    args: Record<string, unknown>,
    outcome: ScriptOutcome,
  ): Promise<void> | undefined {
    if (outcome.ok) return this.scriptResult(c, entity, state, ts, depth, args, outcome.value);
    const debugged = this.debug(c, entity, args, null, outcome.error.message);
    if (!debugged) throw outcome.error;
    return debugged.then(() => {
      throw outcome.error;
    });
  }

  /** A script's result: emitted when it is an object of output keys (or {ts, values}), else a debug error. */
  private scriptResult(
    c: Compiled,
    entity: EntityRef,
    state: FieldState,
    ts: number,
    depth: number,
    args: Record<string, unknown>,
    result: unknown,
  ): Promise<void> | undefined {
    if (!isObject(result))
      return this.debug(
        c,
        entity,
        args,
        result,
        'The script must return an object of output keys and values',
      );
    const values = isObject(result.values) && typeof result.ts === 'number' ? result.values : result;
    const at =
      typeof result.ts === 'number' && isObject(result.values) ? result.ts : this.useTs(c, state, ts);
    if (Object.keys(values).length > 0) this.emit(c, entity, values, at, depth);
    return this.debug(c, entity, args, result, null);
  }

  private zonesOf(c: Compiled, entity: EntityRef, group: string, state: FieldState): Zone[] {
    const cfg =
      ((c.field.configuration.zoneGroups ?? {}) as Record<string, Record<string, unknown>>)[group] ?? {};
    const dyn = cfg.refDynamicSourceConfiguration as
      | {
          levels?: { direction?: string; relationType?: string }[];
          direction?: string;
          relationType?: string;
        }
      | undefined;
    if (!dyn) {
      const v = state.args.get(group);
      const z = v?.kind === 'single' ? parseZone(v.value) : null;
      return z ? [z] : [];
    }
    // zones held by related entities (RELATION_PATH_QUERY / RELATION_QUERY, one level)
    const level = dyn.levels?.[0] ?? dyn;
    const rows = this.services.ctx.db.all<{ id: string }>(
      level.direction === 'TO'
        ? `SELECT from_id AS id FROM relations WHERE to_id = ? AND type = ? AND type_group = 'COMMON' LIMIT ?`
        : `SELECT to_id AS id FROM relations WHERE from_id = ? AND type = ? AND type_group = 'COMMON' LIMIT ?`,
      [entity.id, level.relationType ?? 'Contains', MAX_RELATED],
    );
    const zones: Zone[] = [];
    for (const r of rows) {
      const attr = this.services.telemetry.attributes(
        r.id,
        ['SERVER_SCOPE'],
        [String(cfg.perimeterKeyName)],
      )[0];
      const z = attr ? parseZone(attr.value) : null;
      if (z) zones.push(z);
    }
    return zones;
  }

  private async runGeofencing(
    c: Compiled,
    entity: EntityRef,
    state: FieldState,
    ts: number,
    depth: number,
  ): Promise<void> {
    const lat = state.args.get('latitude');
    const lng = state.args.get('longitude');
    if (lat?.kind !== 'single' || lng?.kind !== 'single') return;
    const la = toNumber(lat.value);
    const lo = toNumber(lng.value);
    if (!Number.isFinite(la) || !Number.isFinite(lo)) return;
    const result: Record<string, string> = {};
    const groups = (c.field.configuration.zoneGroups ?? {}) as Record<string, { reportStrategy?: string }>;
    for (const [group, cfg] of Object.entries(groups)) {
      const zones = this.zonesOf(c, entity, group, state);
      const inside = zones.some((z) => insideZone(z, la, lo));
      const before = state.presence.get(group);
      state.presence.set(group, inside);
      const strategy = cfg.reportStrategy ?? 'REPORT_TRANSITION_EVENTS_AND_PRESENCE_STATUS';
      const event = inside && before !== true ? 'ENTERED' : !inside && before === true ? 'LEFT' : null;
      if (strategy !== 'REPORT_PRESENCE_STATUS_ONLY' && event) result[`${group}Event`] = event;
      if (strategy !== 'REPORT_TRANSITION_EVENTS_ONLY')
        result[`${group}Status`] = inside ? 'INSIDE' : 'OUTSIDE';
    }
    if (Object.keys(result).length > 0) this.emit(c, entity, result, this.useTs(c, state, ts), depth);
    await this.debug(c, entity, { latitude: la, longitude: lo }, result, null);
  }

  private async conditionTrue(
    c: Compiled,
    key: string,
    rule: AlarmRuleJson,
    state: FieldState,
  ): Promise<boolean> {
    const e = rule.condition?.expression;
    if (!e) return false;
    if (e.type === 'TBEL') {
      const script = c.conditions.get(key);
      if (!script) return false;
      const { ctx, args } = this.scriptCtx(c, state);
      return (await script.run(ctx, args)) === true;
    }
    const values: Record<string, KvValue | undefined> = {};
    for (const [n, v] of state.args) if (v.kind === 'single') values[n] = v.value;
    return simpleExpressionTrue(e, values);
  }

  private async runAlarm(c: Compiled, entity: EntityRef, state: FieldState, ts: number): Promise<void> {
    const config = c.field.configuration;
    const createRules = (config.createRules ?? {}) as Record<string, AlarmRuleJson>;
    const values: Record<string, KvValue | undefined> = {};
    for (const [n, v] of state.args) if (v.kind === 'single') values[n] = v.value;
    let severity: AlarmSeverity | null = null;
    for (const s of severitiesOf(createRules)) {
      const progress = state.rules.get(s) ?? { trueSince: null, count: 0 };
      state.rules.set(s, progress);
      const holds = ruleHolds(
        createRules[s]!,
        await this.conditionTrue(c, s, createRules[s]!, state),
        progress,
        ts,
        values,
      );
      if (holds && !severity) severity = s;
    }
    const type = c.field.name;
    const { alarms } = this.services;
    if (severity) {
      const rule = createRules[severity]!;
      const change = await alarms.createOrUpdateActive({
        originator: entity,
        type,
        severity,
        details: rule.alarmDetails ? { data: rule.alarmDetails } : undefined,
        propagation: {
          propagate: config.propagate === true,
          propagateToOwner: config.propagateToOwner === true,
          propagateToTenant: config.propagateToTenant === true,
          propagateRelationTypes: Array.isArray(config.propagateRelationTypes)
            ? (config.propagateRelationTypes as string[])
            : [],
        },
      });
      if (change.kind) this.submit(alarmMessage({ ...change, kind: change.kind, actor: null }, undefined));
      await this.debug(c, entity, values, { severity, alarm: change.kind ?? 'UNCHANGED' }, null);
      return;
    }
    const clear = config.clearRule as AlarmRuleJson | undefined;
    if (!clear || !alarms.findActive(entity, type)) return;
    const progress = state.rules.get('CLEAR') ?? { trueSince: null, count: 0 };
    state.rules.set('CLEAR', progress);
    if (!ruleHolds(clear, await this.conditionTrue(c, 'CLEAR', clear, state), progress, ts, values)) return;
    const change = await alarms.clearActive(entity, type, { clearTs: ts });
    if (change?.kind) this.submit(alarmMessage({ ...change, kind: change.kind, actor: null }, undefined));
    await this.debug(c, entity, values, { alarm: 'CLEARED' }, null);
  }

  private async runPropagation(
    c: Compiled,
    entity: EntityRef,
    state: FieldState,
    ts: number,
    depth: number,
  ): Promise<void> {
    if (!this.ready(c, state)) return;
    const config = c.field.configuration;
    let values: Record<string, unknown>;
    if (config.applyExpressionToResolvedArguments) {
      const output = config.output as CfOutput;
      if (c.expression)
        values = {
          [String(output.name)]: round(c.expression.evaluate(this.numbers(state)), output.decimalsByDefault),
        };
      else {
        const { ctx, args } = this.scriptCtx(c, state);
        const r = await c.script!.run(ctx, args);
        values = isObject(r) ? r : { [String(output.name)]: r };
      }
    } else {
      values = {};
      for (const [n, v] of state.args) if (v.kind === 'single') values[n] = v.value;
    }
    const targets = this.relatedOf(c, entity);
    for (const t of targets) this.emit(c, t, values, this.useTs(c, state, ts), depth);
    await this.debug(c, entity, values, { propagatedTo: targets.length }, null);
  }

  private async runRelatedAggregation(
    c: Compiled,
    entity: EntityRef,
    ts: number,
    depth: number,
  ): Promise<void> {
    const rows: Row[] = [];
    const limit = this.services.calculatedFields.limits.maxDataPointsPerRollingArg;
    for (const child of this.relatedOf(c, entity)) {
      const row: Row = {};
      for (const [n, a] of c.argList) {
        const v = readArgument(this.services, { ...a, refEntityId: null }, child, limit);
        if (v?.kind === 'single') row[n] = toNumber(v.value);
      }
      rows.push(row);
    }
    const result = computeMetrics(
      c.field.configuration.metrics as Record<string, AggMetric>,
      rows,
      c.argNames,
    );
    if (Object.keys(result).length > 0) this.emit(c, entity, result, ts, depth);
    await this.debug(c, entity, { entities: rows.length }, result, null);
  }

  /** Aggregates each interval's points; when a point of a later interval comes, the closed one is written. */
  private async runEntityAggregation(
    c: Compiled,
    entity: EntityRef,
    state: FieldState,
    updates: DataUpdate[],
    depth: number,
  ): Promise<void> {
    const size = intervalMs(c.field.configuration.interval);
    for (const u of updates) {
      if (u.kind !== 'ts') continue;
      const row: Row = {};
      for (const [n, a] of c.argList)
        if (a.refEntityKey.key in u.values) row[n] = toNumber(u.values[a.refEntityKey.key] as KvValue);
      if (Object.keys(row).length === 0) continue;
      const start = Math.floor(u.ts / size) * size;
      if (state.interval && state.interval.start < start) {
        const closed = state.interval;
        const result = computeMetrics(
          c.field.configuration.metrics as Record<string, AggMetric>,
          closed.rows.map((r) => r.row),
          c.argNames,
        );
        if (Object.keys(result).length > 0) this.emit(c, entity, result, closed.start, depth);
        await this.debug(
          c,
          entity,
          { intervalStart: closed.start, points: closed.rows.length },
          result,
          null,
        );
        state.interval = null;
      }
      if (!state.interval || state.interval.start > start) state.interval ??= { start, rows: [] };
      if (state.interval.start === start && state.interval.rows.length < 100_000)
        state.interval.rows.push({ ts: u.ts, row });
    }
  }

  // --- results ------------------------------------------------------------------------------------------

  private useTs(c: Compiled, state: FieldState, ts: number): number {
    return c.field.configuration.useLatestTs === true ? this.latestTs(state) || ts : ts;
  }

  /**
   * A result enters the rule engine as the entity's POST_TELEMETRY_REQUEST / POST_ATTRIBUTES_REQUEST, or,
   * with the output strategy IMMEDIATE (ThingsBoard 4.2+), is saved at once without the rule chain. An
   * entity's results wait until none of its fields is still running, then go as one message (or one write)
   * per kind and ts: the saved data is the same as one message per field, for a fraction of the work.
   */
  private emit(
    c: Compiled,
    entity: EntityRef,
    values: Record<string, unknown>,
    ts: number,
    depth: number,
    /** the fields whose results `values` holds, when several (then a new object the outbox may keep) */
    together: readonly Compiled[] | null = null,
  ): void {
    const output = (c.field.configuration.output ?? { type: 'TIME_SERIES' }) as CfOutput & {
      strategy?: { type?: string };
    };
    if (this.produced.size >= MAX_PRODUCED) this.produced.clear();
    // only a key some field reads can start a chain
    const { argKeys } = this.globalIndex();
    for (const key in values) if (argKeys.has(key)) this.produced.set(`${entity.id}|${key}`, depth + 1);
    const scope = output.type === 'ATTRIBUTES' ? (output.scope ?? 'SERVER_SCOPE') : null;
    const immediate = output.strategy?.type === 'IMMEDIATE';
    let byEntity = this.outbox.get(entity.id);
    if (!byEntity) {
      byEntity = [];
      this.outbox.set(entity.id, byEntity);
    }
    // one entry per strategy, scope and ts (attributes: per scope); an entity has few
    const pending = byEntity.find(
      (o) => o.immediate === immediate && o.scope === scope && (scope !== null || o.ts === ts),
    );
    if (pending) {
      for (const key in values) pending.values[key] = values[key];
      if (pending.fieldIds)
        if (together) for (const f of together) pending.fieldIds.add(f.field.id.id);
        else pending.fieldIds.add(c.field.id.id);
    } else
      byEntity.push({
        entity,
        scope,
        ts,
        immediate,
        values: together ? values : { ...values },
        fieldIds: immediate ? null : new Set(together ? together.map((f) => f.field.id.id) : [c.field.id.id]),
      });
    if ((this.running.get(entity.id) ?? 0) === 0) this.flush(entity.id);
  }

  private flush(entityId: string): void {
    const byEntity = this.outbox.get(entityId);
    if (!byEntity) return;
    this.outbox.delete(entityId);
    for (const o of byEntity) {
      if (o.immediate && !o.scope) {
        this.saveSoon(o);
        continue;
      }
      if (o.immediate) {
        void this.saveNow(o).catch(() => {
          this.failures++;
        });
        continue;
      }
      const ids = [...o.fieldIds!].join(',');
      this.submit(
        o.scope
          ? newMsg('POST_ATTRIBUTES_REQUEST', o.entity, o.values, { scope: o.scope, calculatedFieldId: ids })
          : newMsg(
              'POST_TELEMETRY_REQUEST',
              o.entity,
              { ts: o.ts, values: o.values },
              { ts: String(o.ts), calculatedFieldId: ids },
            ),
      );
    }
  }

  /**
   * IMMEDIATE time series of every entity computed in this turn of the event loop go in one write, several
   * datapoints per statement: the same rows as a write per entity, for far less of the store's time.
   */
  private saveSoon(o: OutboxEntry): void {
    this.toSave.push({ target: this.targetOf(o.entity), entries: [{ ts: o.ts, values: o.values }] });
    if (this.toSave.length > 1) return;
    this.saving = new Promise<void>((resolve) =>
      setImmediate(() => {
        const items = this.toSave;
        this.toSave = [];
        this.services.telemetry.saveTimeseriesMany(items).then(
          () => resolve(),
          () => {
            this.failures++;
            resolve();
          },
        );
      }),
    );
  }

  private async saveNow(o: OutboxEntry): Promise<void> {
    const { telemetry, directory } = this.services;
    if (o.scope) {
      await telemetry.saveAttributes(o.entity.id, o.scope as AttributeScope, o.values, o.entity.entityType);
      return;
    }
    const num = directory.telemetryNum(o.entity.entityType, o.entity.id);
    await telemetry.saveTimeseries({ id: o.entity.id, num, entityType: o.entity.entityType }, [
      { ts: o.ts, values: o.values as Record<string, KvValue> },
    ]);
  }

  /** Writes a debug event when the field's debug settings ask for one (undefined when they do not). */
  private debug(
    c: Compiled,
    entity: EntityRef,
    args: unknown,
    result: unknown,
    error: string | null,
  ): Promise<void> | undefined {
    if (!debugs(c.field, error)) return;
    return this.services.calculatedFields.addDebugEvent(c.field.id.id, entity, {
      calculatedFieldId: c.field.id.id,
      entityId: entity.id,
      entityType: entity.entityType,
      msgType:
        c.field.configuration.output && (c.field.configuration.output as CfOutput).type === 'ATTRIBUTES'
          ? 'POST_ATTRIBUTES_REQUEST'
          : 'POST_TELEMETRY_REQUEST',
      arguments: JSON.stringify(args ?? {}),
      result: result === null || result === undefined ? null : JSON.stringify(result),
      error,
    });
  }
}

/** A single-valued argument's value in the state (undefined when absent or rolling). */
function singleValue(state: FieldState, name: string): unknown {
  const v = state.args.get(name);
  return v?.kind === 'single' ? v.value : undefined;
}

/** Whether a run of the field with this outcome (an error, or none) writes a debug event. */
function debugs(field: CalculatedField, error: string | null): boolean {
  const d = field.debugSettings;
  const all =
    d?.allEnabled === true || (typeof d?.allEnabledUntil === 'number' && d.allEnabledUntil > Date.now());
  return all || (!!error && !!d?.failuresEnabled);
}

function readsAny(keys: Set<string>, values: Record<string, unknown>): boolean {
  for (const key in values) if (keys.has(key)) return true;
  return false;
}

const tsUpdate = (x: { ts: number; values: Record<string, unknown> }): DataUpdate => ({
  kind: 'ts',
  ts: x.ts,
  values: x.values,
});

/** The newest ts of the updates (now when there are none: a re-read). */
const tsOf = (updates: DataUpdate[]) => updates.reduce((m, u) => Math.max(m, u.ts), 0) || Date.now();

const isInstanceTarget = (entityType: string) => entityType === 'DEVICE' || entityType === 'ASSET';

function leavesOf(config: Record<string, unknown>): string {
  const output = (config.output ?? { type: 'TIME_SERIES' }) as CfOutput & { strategy?: { type?: string } };
  const scope = output.type === 'ATTRIBUTES' ? (output.scope ?? 'SERVER_SCOPE') : '';
  return `${output.strategy?.type === 'IMMEDIATE'}|${scope}|${config.useLatestTs === true}`;
}

function outputKeysOf(c: Compiled): Set<string> {
  const out = c.field.configuration.output as CfOutput | undefined;
  return new Set(out?.name ? [out.name] : []);
}

function intervalMs(interval: unknown): number {
  const i = (interval ?? {}) as { type?: string; durationSec?: number };
  const fixed: Record<string, number> = { MIN: 60_000, HOUR: 3_600_000, DAY: 86_400_000, WEEK: 604_800_000 };
  if (typeof i.durationSec === 'number' && i.durationSec > 0) return i.durationSec * 1000;
  return fixed[i.type ?? 'HOUR'] ?? 3_600_000;
}
