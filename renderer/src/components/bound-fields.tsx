/**
 * Form fields bound to a JSON draft by path (scenarioIssues' and alarmRulesIssues' paths): each shows the
 * value at its path, writes back there, and shows the validator's problem for that path under it.
 */
import { Alert, List, NumberInput, Select, Text, TextInput } from '@mantine/core';
import type { JsonPathIssue } from '../../../shared/schemas/json-path-issues.ts';

export interface Binder {
  value(path: string): unknown;
  error(path: string): string | undefined;
  set(path: string, value: unknown): void;
  disabled: boolean;
}

/** Each path's problems joined, for Binder.error. */
export function issuesByPath(issues: JsonPathIssue[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const i of issues) m.set(i.path, m.has(i.path) ? `${m.get(i.path)}; ${i.message}` : i.message);
  return m;
}

export function TextField({
  b,
  path,
  label,
  description,
  optional,
  placeholder,
}: {
  b: Binder;
  path: string;
  label: string;
  description?: string;
  optional?: boolean;
  placeholder?: string;
}) {
  const v = b.value(path);
  return (
    <TextInput
      label={label}
      description={description}
      placeholder={placeholder}
      value={typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v)}
      onChange={(e) =>
        b.set(path, optional && e.currentTarget.value === '' ? undefined : e.currentTarget.value)
      }
      error={b.error(path)}
      disabled={b.disabled}
      data-path={path}
    />
  );
}

export function NumberField({
  b,
  path,
  label,
  description,
  min,
  placeholder,
  allowDecimal = false,
  empty,
  scale = 1,
}: {
  b: Binder;
  path: string;
  label: string;
  description?: string;
  min?: number;
  placeholder?: string;
  allowDecimal?: boolean;
  /** what an emptied field writes (default: the key is removed) */
  empty?: null;
  /** the stored value is the shown one times this (1000: shown in seconds, stored in ms) */
  scale?: number;
}) {
  const v = b.value(path);
  return (
    <NumberInput
      label={label}
      description={description}
      placeholder={placeholder}
      min={min}
      allowDecimal={allowDecimal}
      value={typeof v === 'number' ? v / scale : ''}
      onChange={(n) => b.set(path, typeof n === 'number' ? Math.round(n * scale) : empty)}
      error={b.error(path)}
      disabled={b.disabled}
      data-path={path}
    />
  );
}

/** A choice; a value of digits is written as a number. Clearable unless `required`. */
export function SelectField({
  b,
  path,
  label,
  data,
  required,
  placeholder = 'default',
}: {
  b: Binder;
  path: string;
  label: string;
  data: { value: string; label: string }[];
  required?: boolean;
  placeholder?: string;
}) {
  const v = b.value(path);
  return (
    <Select
      label={label}
      data={data}
      value={v === undefined || v === null ? null : String(v)}
      onChange={(s) => b.set(path, s === null ? undefined : /^\d+$/.test(s) ? Number(s) : s)}
      clearable={!required}
      allowDeselect={!required}
      placeholder={placeholder}
      error={b.error(path)}
      disabled={b.disabled}
      data-path={path}
    />
  );
}

/** The validator's problems, each with its JSON path. */
export function IssueList({
  issues,
  testId,
  whole = '(document)',
}: {
  issues: JsonPathIssue[];
  testId?: string;
  /** how the path of the whole document ('') reads */
  whole?: string;
}) {
  return (
    <Alert color="red" variant="light" title={`${issues.length} problem${issues.length === 1 ? '' : 's'}`}>
      <List size="sm" data-testid={testId}>
        {issues.slice(0, 20).map((i) => (
          <List.Item key={`${i.path}: ${i.message}`}>
            <code>{i.path || whole}</code>: {i.message}
          </List.Item>
        ))}
      </List>
      {issues.length > 20 && (
        <Text size="xs" c="dimmed">
          and {issues.length - 20} more
        </Text>
      )}
    </Alert>
  );
}
