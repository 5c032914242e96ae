/**
 * A device profile's alarm rules ready to run (ThingsBoard's ProfileState): the alarms, and the condition
 * keys each rule reads (its key filters, the device attributes its dynamic values name), whose union is
 * what a device's snapshot keeps.
 */
import type { AlarmSeverity } from '../../../shared/schemas/alarms.ts';
import {
  alarmRulesIssues,
  type AlarmRule,
  type DeviceProfileAlarm,
  type KeyFilterPredicate,
} from '../../../shared/schemas/device-profile-alarms.ts';
import { conditionKey, splitConditionKey } from './condition.ts';

export interface ProfileRules {
  profileId: string;
  alarms: DeviceProfileAlarm[];
  /** every key the rules read */
  keys: Set<string>;
  createKeys: Map<string, Map<AlarmSeverity, Set<string>>>;
  clearKeys: Map<string, Set<string>>;
  /** the time series and attribute names the rules read, with their condition keys (a message's other keys are skipped) */
  byName: { TIME_SERIES: Map<string, string>; ATTRIBUTE: Map<string, string> };
  /** why the rules cannot run (a profile saved before its rules were checked); null when they can */
  problem: string | null;
}

function predicateKeys(p: KeyFilterPredicate, into: Set<string>): void {
  if (p.type === 'COMPLEX') {
    for (const q of p.predicates) predicateKeys(q, into);
    return;
  }
  const dv = p.value.dynamicValue;
  if (dv?.sourceType && dv.sourceType !== 'CURRENT_USER' && dv.sourceAttribute)
    into.add(conditionKey('ATTRIBUTE', dv.sourceAttribute));
}

function ruleKeys(rule: AlarmRule, all: Set<string>): Set<string> {
  const keys = new Set<string>();
  for (const f of rule.condition.condition) {
    keys.add(conditionKey(f.key.type, f.key.key));
    predicateKeys(f.predicate, keys);
  }
  for (const k of keys) all.add(k);
  const spec = rule.condition.spec;
  if (spec && spec.type !== 'SIMPLE' && spec.predicate.dynamicValue?.sourceAttribute)
    all.add(conditionKey('ATTRIBUTE', spec.predicate.dynamicValue.sourceAttribute));
  if (rule.schedule?.dynamicValue?.sourceAttribute)
    all.add(conditionKey('ATTRIBUTE', rule.schedule.dynamicValue.sourceAttribute));
  return keys;
}

/** The profile's rules, or null when it has none (the node then passes its devices' messages on at once). */
export function profileRules(profileId: string, profileData: unknown): ProfileRules | null {
  const alarms = (profileData as { alarms?: unknown } | null)?.alarms;
  if (!Array.isArray(alarms) || alarms.length === 0) return null;
  const rules: ProfileRules = {
    profileId,
    alarms: [],
    keys: new Set(),
    createKeys: new Map(),
    clearKeys: new Map(),
    byName: { TIME_SERIES: new Map(), ATTRIBUTE: new Map() },
    problem: null,
  };
  const issues = alarmRulesIssues(alarms);
  if (issues.length > 0) {
    rules.problem = `The alarm rules of device profile [${profileId}] are invalid: ${issues[0]!.path}: ${issues[0]!.message}`;
    return rules;
  }
  for (const [i, raw] of (alarms as DeviceProfileAlarm[]).entries()) {
    const alarm = { ...raw, id: raw.id || `alarm-${i}` };
    rules.alarms.push(alarm);
    const create = new Map<AlarmSeverity, Set<string>>();
    for (const [severity, rule] of Object.entries(alarm.createRules) as [AlarmSeverity, AlarmRule][])
      create.set(severity, ruleKeys(rule, rules.keys));
    rules.createKeys.set(alarm.id, create);
    if (alarm.clearRule) rules.clearKeys.set(alarm.id, ruleKeys(alarm.clearRule, rules.keys));
  }
  for (const key of rules.keys) {
    const [type, name] = splitConditionKey(key);
    if (type === 'TIME_SERIES' || type === 'ATTRIBUTE') rules.byName[type].set(name, key);
  }
  return rules;
}
