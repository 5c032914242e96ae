/**
 * A device profile's alarm rules (profileData.alarms) in ThingsBoard's shapes: DeviceProfileAlarm with
 * create rules per severity and a clear rule, each a condition (key filters with NUMERIC, STRING, BOOLEAN or
 * COMPLEX predicates), a spec (SIMPLE, DURATION, REPEATING), a schedule and alarm details. The schemas type
 * both sides; alarmRulesIssues() checks what a client sends and names the JSON path of each bad value.
 */
import { Type, type Static } from 'typebox';
import { ALARM_SEVERITIES, ALARM_LIMITS, type AlarmSeverity } from './alarms.ts';
import { Nullable, StringEnum } from './common.ts';
import { isRecord, joinPath, type JsonPathIssue } from './json-path-issues.ts';

export const ALARM_RULE_LIMITS = {
  alarmsPerProfile: 100,
  filtersPerCondition: 50,
  predicatesPerComplex: 50,
  predicateDepth: 8,
  keyChars: 255,
  valueChars: 1024,
  detailsChars: 4096,
  idChars: 255,
} as const;

export const CONDITION_KEY_TYPES = ['TIME_SERIES', 'ATTRIBUTE', 'ENTITY_FIELD', 'CONSTANT'] as const;
export type ConditionKeyType = (typeof CONDITION_KEY_TYPES)[number];
export const VALUE_TYPES = ['NUMERIC', 'STRING', 'BOOLEAN', 'DATE_TIME'] as const;
export type ConditionValueType = (typeof VALUE_TYPES)[number];
/** The entity fields a condition can read (ThingsBoard's EntityKeyMapping names). */
export const ENTITY_FIELDS = ['name', 'type', 'label', 'createdTime'] as const;

export const NUMERIC_OPERATIONS = [
  'EQUAL',
  'NOT_EQUAL',
  'GREATER',
  'LESS',
  'GREATER_OR_EQUAL',
  'LESS_OR_EQUAL',
] as const;
export const STRING_OPERATIONS = [
  'EQUAL',
  'NOT_EQUAL',
  'STARTS_WITH',
  'ENDS_WITH',
  'CONTAINS',
  'NOT_CONTAINS',
  'IN',
  'NOT_IN',
] as const;
export const BOOLEAN_OPERATIONS = ['EQUAL', 'NOT_EQUAL'] as const;
export const COMPLEX_OPERATIONS = ['AND', 'OR'] as const;
export type NumericOperation = (typeof NUMERIC_OPERATIONS)[number];
export type StringOperation = (typeof STRING_OPERATIONS)[number];
export type BooleanOperation = (typeof BOOLEAN_OPERATIONS)[number];
export type ComplexOperation = (typeof COMPLEX_OPERATIONS)[number];

export const DYNAMIC_SOURCE_TYPES = [
  'CURRENT_TENANT',
  'CURRENT_CUSTOMER',
  'CURRENT_USER',
  'CURRENT_DEVICE',
] as const;
export type DynamicSourceType = (typeof DYNAMIC_SOURCE_TYPES)[number];

export const SPEC_TYPES = ['SIMPLE', 'DURATION', 'REPEATING'] as const;
export type SpecType = (typeof SPEC_TYPES)[number];
/** Java's TimeUnit names, as ThingsBoard's DURATION spec keeps them. */
export const TIME_UNITS = [
  'MILLISECONDS',
  'SECONDS',
  'MINUTES',
  'HOURS',
  'DAYS',
  'NANOSECONDS',
  'MICROSECONDS',
] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];
export const TIME_UNIT_MS: Record<TimeUnit, number> = {
  NANOSECONDS: 1e-6,
  MICROSECONDS: 1e-3,
  MILLISECONDS: 1,
  SECONDS: 1000,
  MINUTES: 60_000,
  HOURS: 3_600_000,
  DAYS: 86_400_000,
};

export const SCHEDULE_TYPES = ['ANY_TIME', 'SPECIFIC_TIME', 'CUSTOM'] as const;
export type ScheduleType = (typeof SCHEDULE_TYPES)[number];
export const DAY_MS = 86_400_000;

export const DynamicValue = Type.Object(
  {
    sourceType: Nullable(StringEnum(DYNAMIC_SOURCE_TYPES)),
    sourceAttribute: Nullable(Type.String({ maxLength: ALARM_RULE_LIMITS.keyChars })),
    inherit: Type.Optional(Type.Boolean()),
  },
  {
    description:
      "a server attribute of the device (CURRENT_DEVICE: any scope), its customer or the tenant; with inherit, the device's falls back to the customer's, then the tenant's",
  },
);
export type DynamicValue = Static<typeof DynamicValue>;

export const NumericPredicate = Type.Object({
  type: Type.Literal('NUMERIC'),
  operation: StringEnum(NUMERIC_OPERATIONS),
  value: Type.Object({
    defaultValue: Nullable(Type.Number()),
    userValue: Type.Optional(Nullable(Type.Number())),
    dynamicValue: Type.Optional(Nullable(DynamicValue)),
  }),
});
export const StringPredicate = Type.Object({
  type: Type.Literal('STRING'),
  operation: StringEnum(STRING_OPERATIONS),
  value: Type.Object({
    defaultValue: Nullable(Type.String()),
    userValue: Type.Optional(Nullable(Type.String())),
    dynamicValue: Type.Optional(Nullable(DynamicValue)),
  }),
  ignoreCase: Type.Optional(Type.Boolean()),
});
export const BooleanPredicate = Type.Object({
  type: Type.Literal('BOOLEAN'),
  operation: StringEnum(BOOLEAN_OPERATIONS),
  value: Type.Object({
    defaultValue: Nullable(Type.Boolean()),
    userValue: Type.Optional(Nullable(Type.Boolean())),
    dynamicValue: Type.Optional(Nullable(DynamicValue)),
  }),
});
export type NumericPredicate = Static<typeof NumericPredicate>;
export type StringPredicate = Static<typeof StringPredicate>;
export type BooleanPredicate = Static<typeof BooleanPredicate>;
export type SimplePredicate = NumericPredicate | StringPredicate | BooleanPredicate;
export interface ComplexPredicate {
  type: 'COMPLEX';
  operation: ComplexOperation;
  predicates: KeyFilterPredicate[];
}
export type KeyFilterPredicate = SimplePredicate | ComplexPredicate;

export const ComplexPredicate = Type.Object({
  type: Type.Literal('COMPLEX'),
  operation: StringEnum(COMPLEX_OPERATIONS),
  predicates: Type.Array(Type.Unknown(), {
    maxItems: ALARM_RULE_LIMITS.predicatesPerComplex,
    description: 'NUMERIC, STRING, BOOLEAN or COMPLEX predicates',
  }),
});
export const KeyFilterPredicate = Type.Union([
  NumericPredicate,
  StringPredicate,
  BooleanPredicate,
  ComplexPredicate,
]);

export const ConditionFilter = Type.Object({
  key: Type.Object({
    type: StringEnum(CONDITION_KEY_TYPES),
    key: Type.String({ maxLength: ALARM_RULE_LIMITS.keyChars }),
  }),
  valueType: StringEnum(VALUE_TYPES),
  value: Type.Optional(
    Type.Unknown({ description: 'the constant of a CONSTANT key (compared with the predicate)' }),
  ),
  predicate: KeyFilterPredicate,
});
export type ConditionFilter = Omit<Static<typeof ConditionFilter>, 'predicate'> & {
  predicate: KeyFilterPredicate;
};

const countValue = Type.Object({
  defaultValue: Type.Integer({ minimum: 0 }),
  userValue: Type.Optional(Nullable(Type.Integer())),
  dynamicValue: Type.Optional(Nullable(DynamicValue)),
});
export const ConditionSpec = Type.Union([
  Type.Object({ type: Type.Literal('SIMPLE') }),
  Type.Object({ type: Type.Literal('DURATION'), unit: StringEnum(TIME_UNITS), predicate: countValue }),
  Type.Object({ type: Type.Literal('REPEATING'), predicate: countValue }),
]);
export type ConditionSpec = Static<typeof ConditionSpec>;

export const AlarmCondition = Type.Object({
  condition: Type.Array(ConditionFilter, { maxItems: ALARM_RULE_LIMITS.filtersPerCondition }),
  spec: Type.Optional(Nullable(ConditionSpec)),
});
export type AlarmCondition = { condition: ConditionFilter[]; spec?: ConditionSpec | null };

const scheduleDynamic = Type.Optional(Nullable(DynamicValue));
export const CustomScheduleItem = Type.Object({
  enabled: Type.Boolean(),
  dayOfWeek: Type.Integer({ minimum: 1, maximum: 7, description: '1 Monday ... 7 Sunday' }),
  startsOn: Type.Integer({ minimum: 0, maximum: DAY_MS, description: 'ms after midnight' }),
  endsOn: Type.Integer({ minimum: 0, maximum: DAY_MS, description: 'ms after midnight; 0 = end of day' }),
});
export const AlarmSchedule = Type.Union([
  Type.Object({ type: Type.Literal('ANY_TIME'), dynamicValue: scheduleDynamic }),
  Type.Object({
    type: Type.Literal('SPECIFIC_TIME'),
    timezone: Type.String(),
    daysOfWeek: Type.Array(Type.Integer({ minimum: 1, maximum: 7 }), { maxItems: 7 }),
    startsOn: Type.Integer({ minimum: 0, maximum: DAY_MS }),
    endsOn: Type.Integer({ minimum: 0, maximum: DAY_MS }),
    dynamicValue: scheduleDynamic,
  }),
  Type.Object({
    type: Type.Literal('CUSTOM'),
    timezone: Type.String(),
    items: Type.Array(CustomScheduleItem, { maxItems: 7 }),
    dynamicValue: scheduleDynamic,
  }),
]);
export type AlarmSchedule = Static<typeof AlarmSchedule>;
export type CustomScheduleItem = Static<typeof CustomScheduleItem>;

export const AlarmRule = Type.Object({
  condition: AlarmCondition,
  schedule: Type.Optional(Nullable(AlarmSchedule)),
  alarmDetails: Type.Optional(
    Nullable(
      Type.String({
        maxLength: ALARM_RULE_LIMITS.detailsChars,
        description: "the alarm's details.data; ${key} is the value of a key of the condition",
      }),
    ),
  ),
  dashboardId: Type.Optional(Nullable(Type.Unknown())),
});
export type AlarmRule = Omit<Static<typeof AlarmRule>, 'condition'> & { condition: AlarmCondition };

export const DeviceProfileAlarm = Type.Object({
  id: Type.String({ minLength: 1, maxLength: ALARM_RULE_LIMITS.idChars }),
  alarmType: Type.String({ minLength: 1, maxLength: ALARM_LIMITS.typeChars }),
  createRules: Type.Record(StringEnum(ALARM_SEVERITIES), AlarmRule, {
    description: 'at most one rule per severity; the highest severity whose rule holds raises the alarm',
  }),
  clearRule: Type.Optional(Nullable(AlarmRule)),
  propagate: Type.Optional(Type.Boolean()),
  propagateToOwner: Type.Optional(Type.Boolean()),
  propagateToTenant: Type.Optional(Type.Boolean()),
  propagateRelationTypes: Type.Optional(
    Nullable(Type.Array(Type.String(), { maxItems: ALARM_LIMITS.propagateRelationTypes })),
  ),
});
export type DeviceProfileAlarm = Omit<Static<typeof DeviceProfileAlarm>, 'createRules' | 'clearRule'> & {
  createRules: Partial<Record<AlarmSeverity, AlarmRule>>;
  clearRule?: AlarmRule | null;
};

// ---------------------------------------------------------------------------------------------------------
// Validation: every issue names its JSON path, e.g.
// "profileData.alarms[0].createRules.CRITICAL.condition.condition[0].predicate.operation".

const words = (list: readonly string[]) => list.join(', ');

class Checker {
  readonly issues: JsonPathIssue[] = [];
  add(path: string, message: string): void {
    if (this.issues.length < 50) this.issues.push({ path, message });
  }
  object(v: unknown, path: string): v is Record<string, unknown> {
    if (isRecord(v)) return true;
    this.add(path, v === undefined || v === null ? 'is required' : 'must be an object');
    return false;
  }
  oneOf<T extends string>(v: unknown, list: readonly T[], path: string, what = 'one of'): v is T {
    if (typeof v === 'string' && (list as readonly string[]).includes(v)) return true;
    this.add(
      path,
      v === undefined || v === null
        ? `is required (${what} ${words(list)})`
        : `${JSON.stringify(v)} is not ${what} ${words(list)}`,
    );
    return false;
  }
  optionalBoolean(v: unknown, path: string): void {
    if (v !== undefined && v !== null && typeof v !== 'boolean') this.add(path, 'must be true or false');
  }
  string(v: unknown, path: string, max: number, required = true): boolean {
    if (v === undefined || v === null) {
      if (required) this.add(path, 'is required');
      return !required;
    }
    if (typeof v !== 'string') {
      this.add(path, 'must be a string');
      return false;
    }
    if (v.length > max) {
      this.add(path, `must be at most ${max} characters`);
      return false;
    }
    return true;
  }
}

function dynamicValueIssues(c: Checker, v: unknown, path: string): boolean {
  if (v === undefined || v === null) return false;
  if (!c.object(v, path)) return false;
  if (v.sourceType === null || v.sourceType === undefined) return false;
  c.oneOf(v.sourceType, DYNAMIC_SOURCE_TYPES, joinPath(path, 'sourceType'));
  c.string(v.sourceAttribute, joinPath(path, 'sourceAttribute'), ALARM_RULE_LIMITS.keyChars);
  c.optionalBoolean(v.inherit, joinPath(path, 'inherit'));
  return typeof v.sourceAttribute === 'string' && v.sourceAttribute !== '';
}

function predicateIssues(c: Checker, p: unknown, path: string, constantKey: boolean, depth: number): void {
  if (!c.object(p, path)) return;
  if (!c.oneOf(p.type, ['NUMERIC', 'STRING', 'BOOLEAN', 'COMPLEX'] as const, joinPath(path, 'type'))) return;
  const opPath = joinPath(path, 'operation');
  if (p.type === 'COMPLEX') {
    c.oneOf(p.operation, COMPLEX_OPERATIONS, opPath, 'a COMPLEX operation: one of');
    const list = p.predicates;
    const listPath = joinPath(path, 'predicates');
    if (!Array.isArray(list)) return c.add(listPath, 'must be an array');
    if (list.length > ALARM_RULE_LIMITS.predicatesPerComplex)
      return c.add(listPath, `must have at most ${ALARM_RULE_LIMITS.predicatesPerComplex} predicates`);
    if (depth >= ALARM_RULE_LIMITS.predicateDepth)
      return c.add(listPath, `must not nest deeper than ${ALARM_RULE_LIMITS.predicateDepth} levels`);
    list.forEach((q, i) => predicateIssues(c, q, joinPath(listPath, i), constantKey, depth + 1));
    return;
  }
  const ops =
    p.type === 'NUMERIC' ? NUMERIC_OPERATIONS : p.type === 'STRING' ? STRING_OPERATIONS : BOOLEAN_OPERATIONS;
  c.oneOf(p.operation, ops, opPath, `a ${p.type} operation: one of`);
  if (p.type === 'STRING') c.optionalBoolean(p.ignoreCase, joinPath(path, 'ignoreCase'));
  const valuePath = joinPath(path, 'value');
  if (!c.object(p.value, valuePath)) return;
  const dynamic = dynamicValueIssues(c, p.value.dynamicValue, joinPath(valuePath, 'dynamicValue'));
  const given = p.value.defaultValue;
  const defaultPath = joinPath(valuePath, 'defaultValue');
  // A constant key compares with an attribute: its value comes from the dynamic value alone.
  if (given === undefined || given === null) {
    if (!dynamic && !constantKey) c.add(defaultPath, 'is required (or a dynamic value)');
    if (constantKey && !dynamic) c.add(joinPath(valuePath, 'dynamicValue'), 'is required for a CONSTANT key');
    return;
  }
  if (p.type === 'NUMERIC' && (typeof given !== 'number' || !Number.isFinite(given)))
    c.add(defaultPath, 'must be a number');
  if (p.type === 'STRING') c.string(given, defaultPath, ALARM_RULE_LIMITS.valueChars);
  if (p.type === 'BOOLEAN' && typeof given !== 'boolean') c.add(defaultPath, 'must be true or false');
}

function filterIssues(c: Checker, f: unknown, path: string): void {
  if (!c.object(f, path)) return;
  const keyPath = joinPath(path, 'key');
  let constant = false;
  if (c.object(f.key, keyPath)) {
    const typeOk = c.oneOf(f.key.type, CONDITION_KEY_TYPES, joinPath(keyPath, 'type'));
    constant = f.key.type === 'CONSTANT';
    if (c.string(f.key.key, joinPath(keyPath, 'key'), ALARM_RULE_LIMITS.keyChars)) {
      if (!constant && f.key.key === '') c.add(joinPath(keyPath, 'key'), 'must not be empty');
      if (
        typeOk &&
        f.key.type === 'ENTITY_FIELD' &&
        !(ENTITY_FIELDS as readonly unknown[]).includes(f.key.key)
      )
        c.add(joinPath(keyPath, 'key'), `${JSON.stringify(f.key.key)} is not one of ${words(ENTITY_FIELDS)}`);
    }
  }
  const valueTypeOk = c.oneOf(f.valueType, VALUE_TYPES, joinPath(path, 'valueType'));
  if (constant && valueTypeOk) {
    const v = f.value;
    const vPath = joinPath(path, 'value');
    if (v === undefined || v === null || v === '') c.add(vPath, 'is required for a CONSTANT key');
    else if (
      (f.valueType === 'NUMERIC' || f.valueType === 'DATE_TIME') &&
      !Number.isFinite(typeof v === 'number' ? v : Number(v))
    )
      c.add(vPath, 'must be a number');
    else if (f.valueType === 'BOOLEAN' && typeof v !== 'boolean' && v !== 'true' && v !== 'false')
      c.add(vPath, 'must be true or false');
    else if (typeof v === 'object') c.add(vPath, 'must be a string, a number or a boolean');
    else if (String(v).length > ALARM_RULE_LIMITS.valueChars)
      c.add(vPath, `must be at most ${ALARM_RULE_LIMITS.valueChars} characters`);
  }
  predicateIssues(c, f.predicate, joinPath(path, 'predicate'), constant, 0);
}

function countIssues(c: Checker, v: unknown, path: string, what: string): void {
  if (!c.object(v, path)) return;
  const dynamic = dynamicValueIssues(c, v.dynamicValue, joinPath(path, 'dynamicValue'));
  const d = v.defaultValue;
  if ((d === undefined || d === null) && dynamic) return;
  if (typeof d !== 'number' || !Number.isInteger(d) || d < 1)
    c.add(joinPath(path, 'defaultValue'), `must be a whole number of ${what}, at least 1`);
}

function specIssues(c: Checker, s: unknown, path: string): void {
  if (s === undefined || s === null) return;
  if (!c.object(s, path)) return;
  if (!c.oneOf(s.type, SPEC_TYPES, joinPath(path, 'type'))) return;
  if (s.type === 'DURATION') {
    c.oneOf(s.unit, TIME_UNITS, joinPath(path, 'unit'));
    countIssues(c, s.predicate, joinPath(path, 'predicate'), 'time units');
  } else if (s.type === 'REPEATING') {
    countIssues(c, s.predicate, joinPath(path, 'predicate'), 'events');
  }
}

function timeOfDay(c: Checker, v: unknown, path: string): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > DAY_MS)
    c.add(path, `must be milliseconds after midnight (0 to ${DAY_MS})`);
}

function timezoneIssues(c: Checker, v: unknown, path: string): void {
  if (!c.string(v, path, 64)) return;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: v as string });
  } catch {
    c.add(path, `${JSON.stringify(v)} is not a time zone (e.g. Europe/Kyiv, UTC)`);
  }
}

function day(c: Checker, v: unknown, path: string): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 7)
    c.add(path, 'must be a day of the week, 1 (Monday) to 7 (Sunday)');
}

function scheduleIssues(c: Checker, s: unknown, path: string): void {
  if (s === undefined || s === null) return;
  if (!c.object(s, path)) return;
  if (!c.oneOf(s.type, SCHEDULE_TYPES, joinPath(path, 'type'))) return;
  dynamicValueIssues(c, s.dynamicValue, joinPath(path, 'dynamicValue'));
  if (s.type === 'ANY_TIME') return;
  timezoneIssues(c, s.timezone, joinPath(path, 'timezone'));
  if (s.type === 'SPECIFIC_TIME') {
    const daysPath = joinPath(path, 'daysOfWeek');
    if (!Array.isArray(s.daysOfWeek)) c.add(daysPath, 'must be an array of days (1 Monday ... 7 Sunday)');
    else s.daysOfWeek.forEach((d, i) => day(c, d, joinPath(daysPath, i)));
    timeOfDay(c, s.startsOn, joinPath(path, 'startsOn'));
    timeOfDay(c, s.endsOn, joinPath(path, 'endsOn'));
    return;
  }
  const itemsPath = joinPath(path, 'items');
  if (!Array.isArray(s.items) || s.items.length > 7)
    return c.add(itemsPath, 'must be an array of at most 7 days');
  s.items.forEach((item, i) => {
    const p = joinPath(itemsPath, i);
    if (!c.object(item, p)) return;
    c.optionalBoolean(item.enabled, joinPath(p, 'enabled'));
    day(c, item.dayOfWeek, joinPath(p, 'dayOfWeek'));
    timeOfDay(c, item.startsOn, joinPath(p, 'startsOn'));
    timeOfDay(c, item.endsOn, joinPath(p, 'endsOn'));
  });
}

function ruleIssues(c: Checker, r: unknown, path: string): void {
  if (!c.object(r, path)) return;
  const condPath = joinPath(path, 'condition');
  if (c.object(r.condition, condPath)) {
    const listPath = joinPath(condPath, 'condition');
    const list = r.condition.condition;
    if (!Array.isArray(list)) c.add(listPath, 'must be an array of key filters');
    else if (list.length === 0) c.add(listPath, 'must have at least one key filter');
    else if (list.length > ALARM_RULE_LIMITS.filtersPerCondition)
      c.add(listPath, `must have at most ${ALARM_RULE_LIMITS.filtersPerCondition} key filters`);
    else list.forEach((f, i) => filterIssues(c, f, joinPath(listPath, i)));
    specIssues(c, r.condition.spec, joinPath(condPath, 'spec'));
  }
  scheduleIssues(c, r.schedule, joinPath(path, 'schedule'));
  c.string(r.alarmDetails, joinPath(path, 'alarmDetails'), ALARM_RULE_LIMITS.detailsChars, false);
}

function alarmIssues(
  c: Checker,
  a: unknown,
  path: string,
  types: Map<string, number>,
  ids: Map<string, number>,
  index: number,
): void {
  if (!c.object(a, path)) return;
  if (a.id !== undefined && a.id !== null) {
    if (c.string(a.id, joinPath(path, 'id'), ALARM_RULE_LIMITS.idChars)) {
      const first = ids.get(a.id as string);
      if (first !== undefined) c.add(joinPath(path, 'id'), `is already the id of alarms[${first}]`);
      else ids.set(a.id as string, index);
    }
  }
  const typePath = joinPath(path, 'alarmType');
  if (typeof a.alarmType !== 'string' || a.alarmType.trim() === '')
    c.add(typePath, 'Alarm rule type should be specified!');
  else if (c.string(a.alarmType, typePath, ALARM_LIMITS.typeChars)) {
    if (types.has(a.alarmType))
      c.add(typePath, `Can't create device profile with the same alarm rule types: "${a.alarmType}"!`);
    else types.set(a.alarmType, index);
  }
  const createPath = joinPath(path, 'createRules');
  if (c.object(a.createRules, createPath)) {
    const entries = Object.entries(a.createRules);
    if (entries.length === 0) c.add(createPath, 'must have a rule for at least one severity');
    for (const [severity, rule] of entries) {
      const p = joinPath(createPath, severity);
      if (!(ALARM_SEVERITIES as readonly string[]).includes(severity))
        c.add(p, `is not a severity (one of ${words(ALARM_SEVERITIES)})`);
      else ruleIssues(c, rule, p);
    }
  }
  if (a.clearRule !== undefined && a.clearRule !== null)
    ruleIssues(c, a.clearRule, joinPath(path, 'clearRule'));
  for (const flag of ['propagate', 'propagateToOwner', 'propagateToTenant'])
    c.optionalBoolean(a[flag], joinPath(path, flag));
  const rel = a.propagateRelationTypes;
  const relPath = joinPath(path, 'propagateRelationTypes');
  if (rel !== undefined && rel !== null) {
    if (!Array.isArray(rel)) c.add(relPath, 'must be an array of relation types');
    else if (rel.length > ALARM_LIMITS.propagateRelationTypes)
      c.add(relPath, `must have at most ${ALARM_LIMITS.propagateRelationTypes} relation types`);
    else rel.forEach((t, i) => c.string(t, joinPath(relPath, i), 255));
  }
}

/**
 * Every problem of a profile's alarms list (profileData.alarms), each naming its JSON path under `path`;
 * empty when the rules are valid. null or absent is no rules. An alarm without an id is valid (the
 * platform gives it one).
 */
export function alarmRulesIssues(alarms: unknown, path = 'profileData.alarms'): JsonPathIssue[] {
  if (alarms === undefined || alarms === null) return [];
  const c = new Checker();
  if (!Array.isArray(alarms)) return [{ path, message: 'must be an array of alarm rules' }];
  if (alarms.length > ALARM_RULE_LIMITS.alarmsPerProfile)
    return [{ path, message: `must have at most ${ALARM_RULE_LIMITS.alarmsPerProfile} alarm rules` }];
  const types = new Map<string, number>();
  const ids = new Map<string, number>();
  alarms.forEach((a, i) => alarmIssues(c, a, joinPath(path, i), types, ids, i));
  return c.issues;
}
