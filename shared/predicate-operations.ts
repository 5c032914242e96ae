/**
 * ThingsBoard's NUMERIC and STRING predicate operations on a value and the predicate's operand, shared by
 * the entity query's key filters and the device profile's alarm conditions (which differ in how they read
 * values and operands, not in what an operation means).
 */
import type { NumericOperation, StringOperation } from './schemas/device-profile-alarms.ts';

export function numericHolds(operation: NumericOperation, v: number, target: number): boolean {
  switch (operation) {
    case 'EQUAL':
      return v === target;
    case 'NOT_EQUAL':
      return v !== target;
    case 'GREATER':
      return v > target;
    case 'GREATER_OR_EQUAL':
      return v >= target;
    case 'LESS':
      return v < target;
    case 'LESS_OR_EQUAL':
      return v <= target;
  }
}

/** `list` gives the operand as a list, for IN and NOT_IN. */
export function stringHolds(
  operation: StringOperation,
  v: string,
  target: string,
  list: () => string[],
): boolean {
  switch (operation) {
    case 'EQUAL':
      return v === target;
    case 'NOT_EQUAL':
      return v !== target;
    case 'STARTS_WITH':
      return v.startsWith(target);
    case 'ENDS_WITH':
      return v.endsWith(target);
    case 'CONTAINS':
      return v.includes(target);
    case 'NOT_CONTAINS':
      return !v.includes(target);
    case 'IN':
      return list().includes(v);
    case 'NOT_IN':
      return !list().includes(v);
  }
}
