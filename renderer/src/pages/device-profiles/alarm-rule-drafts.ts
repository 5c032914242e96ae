/** New alarm rules, rules, key filters, predicates and specs as the alarm rule form adds them (ThingsBoard's UI defaults). */
import type { AlarmSeverity } from '../../../../shared/schemas/alarms.ts';
import type {
  ConditionValueType,
  KeyFilterPredicate,
  SpecType,
} from '../../../../shared/schemas/device-profile-alarms.ts';

export const SEVERITY_LABELS: Record<AlarmSeverity, string> = {
  CRITICAL: 'Critical',
  MAJOR: 'Major',
  MINOR: 'Minor',
  WARNING: 'Warning',
  INDETERMINATE: 'Indeterminate',
};

export const OPERATION_LABELS: Record<string, string> = {
  EQUAL: 'equal to',
  NOT_EQUAL: 'not equal to',
  GREATER: 'greater than',
  LESS: 'less than',
  GREATER_OR_EQUAL: 'greater or equal',
  LESS_OR_EQUAL: 'less or equal',
  STARTS_WITH: 'starts with',
  ENDS_WITH: 'ends with',
  CONTAINS: 'contains',
  NOT_CONTAINS: 'does not contain',
  IN: 'in (comma separated)',
  NOT_IN: 'not in (comma separated)',
};

/** The predicate a value type compares with (DATE_TIME compares numbers, as in ThingsBoard). */
export function predicateFor(valueType: ConditionValueType): KeyFilterPredicate {
  const value = { userValue: null, dynamicValue: null };
  switch (valueType) {
    case 'STRING':
      return { type: 'STRING', operation: 'EQUAL', ignoreCase: false, value: { defaultValue: '', ...value } };
    case 'BOOLEAN':
      return { type: 'BOOLEAN', operation: 'EQUAL', value: { defaultValue: true, ...value } };
    default:
      return { type: 'NUMERIC', operation: 'GREATER', value: { defaultValue: 0, ...value } };
  }
}

export function newFilter(key = 'temperature') {
  return { key: { type: 'TIME_SERIES', key }, valueType: 'NUMERIC', predicate: predicateFor('NUMERIC') };
}

export function specFor(type: SpecType) {
  const count = (defaultValue: number) => ({ defaultValue, userValue: null, dynamicValue: null });
  if (type === 'DURATION') return { type, unit: 'SECONDS', predicate: count(30) };
  if (type === 'REPEATING') return { type, predicate: count(3) };
  return { type };
}

export function newRule() {
  return {
    condition: { condition: [newFilter()], spec: specFor('SIMPLE') },
    schedule: null,
    alarmDetails: null,
    dashboardId: null,
  };
}

export function newAlarm(alarmType: string) {
  return {
    id: crypto.randomUUID(),
    alarmType,
    createRules: { CRITICAL: newRule() },
    clearRule: null,
    propagate: false,
    propagateToOwner: false,
    propagateToTenant: false,
    propagateRelationTypes: null,
  };
}
