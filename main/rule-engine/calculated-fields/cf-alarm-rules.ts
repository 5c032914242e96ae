import { ALARM_SEVERITIES, type AlarmSeverity } from '../../../shared/schemas/alarms.ts';
import { compilePredicate } from '../../platform/key-filters.ts';
import type { KvValue } from '../../platform/kv-value.ts';

/**
 * ThingsBoard 4.3's alarm rules of an ALARM calculated field (AlarmRule, AlarmCondition,
 * SimpleAlarmConditionExpression): a condition per severity and a clear condition, each SIMPLE, DURATION or
 * REPEATING over a SIMPLE (filters with key filter predicates over the arguments) or TBEL expression.
 */
export interface AlarmRuleJson {
  condition?: {
    type?: string;
    expression?: { type?: string; filters?: FilterJson[]; operation?: string; expression?: string };
    unit?: string;
    value?: unknown;
    count?: unknown;
  };
  alarmDetails?: string | null;
}

interface FilterJson {
  argument?: string;
  valueType?: string;
  operation?: string;
  predicates?: unknown[];
}

/** A rule's progress across runs (ThingsBoard's AlarmRuleState): since when true, how many times in a row. */
export interface RuleProgress {
  trueSince: number | null;
  count: number;
}

const UNIT_MS: Record<string, number> = {
  MILLISECONDS: 1,
  SECONDS: 1000,
  MINUTES: 60_000,
  HOURS: 3_600_000,
  DAYS: 86_400_000,
};

type Values = Record<string, KvValue | undefined>;

/** A static number, or {staticValue, dynamicValueArgument} read from the arguments. */
function numberOf(v: unknown, values: Values): number {
  if (typeof v === 'number') return v;
  if (v && typeof v === 'object') {
    const o = v as { staticValue?: unknown; dynamicValueArgument?: unknown; defaultValue?: unknown };
    if (typeof o.dynamicValueArgument === 'string' && values[o.dynamicValueArgument] !== undefined)
      return Number(values[o.dynamicValueArgument]);
    return Number(o.staticValue ?? o.defaultValue);
  }
  return Number(v);
}

/** Rewrites 4.3's predicate values ({staticValue, dynamicValueArgument}) into key filter ones ({defaultValue}). */
function resolvePredicate(p: unknown, values: Values): unknown {
  if (!p || typeof p !== 'object') return p;
  const o = { ...(p as Record<string, unknown>) };
  if (Array.isArray(o.predicates)) o.predicates = o.predicates.map((x) => resolvePredicate(x, values));
  const v = o.value as Record<string, unknown> | undefined;
  if (v && typeof v === 'object') {
    const dynamic = typeof v.dynamicValueArgument === 'string';
    const raw =
      (dynamic ? values[v.dynamicValueArgument as string] : undefined) ?? v.staticValue ?? v.defaultValue;
    o.value = { defaultValue: typed(o.type, raw, dynamic) };
  }
  return o;
}

/** A value as the predicate's type wants it; a dynamic one not known (yet) as its type's zero value. */
function typed(type: unknown, raw: unknown, dynamic: boolean): unknown {
  if (raw === undefined || raw === null) {
    if (!dynamic) return raw;
    return type === 'NUMERIC' ? 0 : type === 'BOOLEAN' ? false : '';
  }
  if (type === 'NUMERIC') return typeof raw === 'number' ? raw : Number(raw);
  if (type === 'BOOLEAN') return raw === true || raw === 'true';
  if (type === 'STRING') return String(raw);
  return raw;
}

const asText = (v: KvValue | undefined): string | undefined =>
  v === undefined || v === null ? undefined : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** Evaluates a SIMPLE expression's filters on the argument values. */
export function simpleExpressionTrue(
  expr: NonNullable<NonNullable<AlarmRuleJson['condition']>['expression']>,
  values: Values,
): boolean {
  const filters = expr.filters ?? [];
  if (filters.length === 0) return false;
  const results = filters.map((f, i) => {
    const predicate = compilePredicate(
      {
        type: 'COMPLEX',
        operation: f.operation ?? 'AND',
        predicates: (f.predicates ?? []).map((p) => resolvePredicate(p, values)),
      },
      `filters[${i}]`,
    );
    return predicate(asText(values[String(f.argument)]));
  });
  return expr.operation === 'OR' ? results.some(Boolean) : results.every(Boolean);
}

/** Moves a rule's progress on by one run whose condition was `now`; true when the rule holds. */
export function ruleHolds(
  rule: AlarmRuleJson,
  now: boolean,
  progress: RuleProgress,
  ts: number,
  values: Values,
): boolean {
  if (!now) {
    progress.trueSince = null;
    progress.count = 0;
    return false;
  }
  progress.trueSince ??= ts;
  progress.count++;
  const c = rule.condition ?? {};
  if (c.type === 'DURATION') {
    const ms = numberOf(c.value, values) * (UNIT_MS[c.unit ?? 'SECONDS'] ?? 1000);
    return ts - progress.trueSince >= ms;
  }
  if (c.type === 'REPEATING') return progress.count >= numberOf(c.count, values);
  return true;
}

/** The severities of createRules, most severe first. */
export function severitiesOf(createRules: Record<string, AlarmRuleJson>): AlarmSeverity[] {
  return ALARM_SEVERITIES.filter((s) => createRules[s] !== undefined);
}

/** Checks a rule for save: null or what is wrong. */
export function checkAlarmRule(rule: unknown, path: string): string | null {
  if (!rule || typeof rule !== 'object') return `${path} must be an object`;
  const c = (rule as AlarmRuleJson).condition;
  if (!c || !c.expression) return `${path}.condition.expression must be specified`;
  if (c.type !== undefined && !['SIMPLE', 'DURATION', 'REPEATING'].includes(c.type))
    return `${path}.condition.type must be SIMPLE, DURATION or REPEATING`;
  const e = c.expression;
  if (e.type === 'TBEL')
    return typeof e.expression === 'string' && e.expression.trim()
      ? null
      : `${path}.condition.expression.expression must be a TBEL script`;
  try {
    (e.filters ?? []).forEach((f, i) =>
      compilePredicate(
        {
          type: 'COMPLEX',
          operation: f.operation ?? 'AND',
          predicates: (f.predicates ?? []).map((p) => resolvePredicate(p, {})),
        },
        `${path}.condition.expression.filters[${i}]`,
      ),
    );
  } catch (err) {
    return (err as Error).message;
  }
  if (!e.filters?.length) return `${path}.condition.expression.filters must not be empty`;
  return null;
}
