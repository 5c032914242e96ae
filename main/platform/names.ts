import { checkName } from '../../shared/limits.ts';
import { invalidArgument } from './errors.ts';

/** A device, profile or customer name trimmed, or 400 when it is blank or too long (every path that names one). */
export function entityName(value: unknown, what: string): string {
  const checked = checkName(value, what);
  if (!checked.ok) throw invalidArgument(checked.error);
  return checked.name;
}
