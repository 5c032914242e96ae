import {
  Button,
  Fieldset,
  Group,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
} from '@mantine/core';
import {
  BOOLEAN_OPERATIONS,
  CONDITION_KEY_TYPES,
  DYNAMIC_SOURCE_TYPES,
  ENTITY_FIELDS,
  NUMERIC_OPERATIONS,
  SPEC_TYPES,
  STRING_OPERATIONS,
  TIME_UNITS,
  type ConditionValueType,
  type SpecType,
} from '../../../../shared/schemas/device-profile-alarms.ts';
import { NumberField, SelectField, TextField, type Binder } from '../../components/bound-fields.tsx';
import { newFilter, OPERATION_LABELS, predicateFor, specFor } from './alarm-rule-drafts.ts';

const options = (list: readonly string[], labels: Record<string, string> = {}) =>
  list.map((value) => ({ value, label: labels[value] ?? value }));

const KEY_TYPE_LABELS = {
  TIME_SERIES: 'Time series',
  ATTRIBUTE: 'Attribute',
  ENTITY_FIELD: 'Entity field',
  CONSTANT: 'Constant',
};
const VALUE_TYPE_LABELS = { NUMERIC: 'Number', STRING: 'String', BOOLEAN: 'Boolean', DATE_TIME: 'Date time' };
const SOURCE_LABELS = {
  CURRENT_DEVICE: "Device's attribute",
  CURRENT_CUSTOMER: "Customer's attribute",
  CURRENT_TENANT: "Tenant's attribute",
  CURRENT_USER: "User's attribute",
};
const SPEC_LABELS = { SIMPLE: 'Simple', DURATION: 'Duration', REPEATING: 'Repeating' };
const BOOLEANS = [
  { value: 'true', label: 'true' },
  { value: 'false', label: 'false' },
];

type Filter = { key?: { type?: string }; valueType?: string; predicate?: { type?: string } };
type DynamicValue = { sourceType?: string | null; sourceAttribute?: string | null; inherit?: boolean };

/** The threshold of a simple predicate: a value of the filter's type and, optionally, an attribute that overrides it. */
function PredicateValueFields({ b, path, type }: { b: Binder; path: string; type: string }) {
  const valuePath = `${path}.value.defaultValue`;
  const dynamicPath = `${path}.value.dynamicValue`;
  const dynamic = (b.value(dynamicPath) ?? null) as DynamicValue | null;
  const source = dynamic?.sourceType ?? null;
  const value = b.value(valuePath);
  return (
    <>
      {type === 'NUMERIC' && <NumberField b={b} path={valuePath} label="Value" allowDecimal empty={null} />}
      {type === 'STRING' && <TextField b={b} path={valuePath} label="Value" />}
      {type === 'BOOLEAN' && (
        <Select
          label="Value"
          data={BOOLEANS}
          value={typeof value === 'boolean' ? String(value) : null}
          onChange={(s) => b.set(valuePath, s === null ? null : s === 'true')}
          error={b.error(valuePath)}
          disabled={b.disabled}
          data-path={valuePath}
        />
      )}
      <Select
        label="Dynamic value"
        description="an attribute that, when set, replaces the value"
        data={options(DYNAMIC_SOURCE_TYPES, SOURCE_LABELS)}
        value={source}
        placeholder="none"
        clearable
        onChange={(s) =>
          b.set(
            dynamicPath,
            s === null
              ? null
              : { sourceType: s, sourceAttribute: dynamic?.sourceAttribute ?? '', inherit: false },
          )
        }
        error={b.error(`${dynamicPath}.sourceType`)}
        disabled={b.disabled}
        data-path={`${dynamicPath}.sourceType`}
      />
      {source && <TextField b={b} path={`${dynamicPath}.sourceAttribute`} label="Source attribute" />}
      {(source === 'CURRENT_DEVICE' || source === 'CURRENT_CUSTOMER') && (
        <Switch
          label="Inherit from the owner when unset"
          checked={dynamic?.inherit === true}
          onChange={(e) => b.set(`${dynamicPath}.inherit`, e.currentTarget.checked)}
          disabled={b.disabled}
          mt="lg"
        />
      )}
    </>
  );
}

/** One key filter: the key, its value type and the predicate its value must satisfy. */
function FilterFields({ b, path, onRemove }: { b: Binder; path: string; onRemove?: () => void }) {
  const filter = (b.value(path) ?? {}) as Filter;
  const keyType = filter.key?.type;
  const predicate = filter.predicate ?? {};
  const predicatePath = `${path}.predicate`;
  const operations =
    predicate.type === 'STRING'
      ? STRING_OPERATIONS
      : predicate.type === 'BOOLEAN'
        ? BOOLEAN_OPERATIONS
        : NUMERIC_OPERATIONS;
  return (
    <Stack gap={6} data-testid="alarm-filter">
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
        <SelectField
          b={b}
          path={`${path}.key.type`}
          label="Key type"
          data={options(CONDITION_KEY_TYPES, KEY_TYPE_LABELS)}
          required
        />
        {keyType === 'ENTITY_FIELD' ? (
          <SelectField b={b} path={`${path}.key.key`} label="Field" data={options(ENTITY_FIELDS)} required />
        ) : (
          <TextField
            b={b}
            path={`${path}.key.key`}
            label={keyType === 'CONSTANT' ? 'Name (optional)' : 'Key'}
          />
        )}
        <Select
          label="Value type"
          data={options(['NUMERIC', 'STRING', 'BOOLEAN', 'DATE_TIME'], VALUE_TYPE_LABELS)}
          value={filter.valueType ?? null}
          allowDeselect={false}
          onChange={(v) =>
            v && b.set(path, { ...filter, valueType: v, predicate: predicateFor(v as ConditionValueType) })
          }
          error={b.error(`${path}.valueType`)}
          disabled={b.disabled}
          data-path={`${path}.valueType`}
        />
        {keyType === 'CONSTANT' && <TextField b={b} path={`${path}.value`} label="Constant value" />}
      </SimpleGrid>
      {predicate.type === 'COMPLEX' ? (
        <Text size="sm" c="dimmed" data-path={predicatePath}>
          A COMPLEX predicate (several conditions on this key): edit it in the JSON view.
        </Text>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
          <SelectField
            b={b}
            path={`${predicatePath}.operation`}
            label="Operation"
            data={options(operations, OPERATION_LABELS)}
            required
          />
          <PredicateValueFields b={b} path={predicatePath} type={predicate.type ?? 'NUMERIC'} />
          {predicate.type === 'STRING' && (
            <Switch
              label="Ignore case"
              checked={(predicate as { ignoreCase?: boolean }).ignoreCase === true}
              onChange={(e) => b.set(`${predicatePath}.ignoreCase`, e.currentTarget.checked)}
              disabled={b.disabled}
              mt="lg"
            />
          )}
        </SimpleGrid>
      )}
      {onRemove && (
        <Group justify="flex-end">
          <Button size="compact-xs" variant="subtle" color="red" onClick={onRemove} disabled={b.disabled}>
            Remove key filter
          </Button>
        </Group>
      )}
    </Stack>
  );
}

/** A create or clear rule: its key filters (all must hold), its condition type and the alarm details. */
export function RuleFields({
  b,
  path,
  title,
  onRemove,
}: {
  b: Binder;
  path: string;
  title: string;
  onRemove: () => void;
}) {
  const listPath = `${path}.condition.condition`;
  const list = b.value(listPath);
  const filters = Array.isArray(list) ? list : [];
  const specPath = `${path}.condition.spec`;
  const spec = (b.value(specPath) ?? { type: 'SIMPLE' }) as { type?: string };
  const schedule = b.value(`${path}.schedule`) as { type?: string } | null | undefined;
  return (
    <Fieldset legend={title} data-testid="alarm-rule" data-path={path}>
      <Stack gap="sm">
        {filters.map((_, i) => (
          <FilterFields
            key={i}
            b={b}
            path={`${listPath}[${i}]`}
            onRemove={
              filters.length > 1
                ? () =>
                    b.set(
                      listPath,
                      filters.filter((_f, j) => j !== i),
                    )
                : undefined
            }
          />
        ))}
        {b.error(listPath) && (
          <Text size="sm" c="red">
            {b.error(listPath)}
          </Text>
        )}
        <Group>
          <Button
            size="compact-sm"
            variant="light"
            onClick={() => b.set(listPath, [...filters, newFilter('')])}
            disabled={b.disabled}
          >
            Add key filter
          </Button>
        </Group>
        <Group align="flex-end" gap="md">
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Condition type
            </Text>
            <SegmentedControl
              aria-label="Condition type"
              value={spec.type ?? 'SIMPLE'}
              onChange={(v) => b.set(specPath, specFor(v as SpecType))}
              data={options(SPEC_TYPES, SPEC_LABELS)}
              disabled={b.disabled}
              size="xs"
              data-path={`${specPath}.type`}
            />
          </Stack>
          {spec.type === 'DURATION' && (
            <>
              <NumberField b={b} path={`${specPath}.predicate.defaultValue`} label="Lasts at least" min={1} />
              <SelectField b={b} path={`${specPath}.unit`} label="Unit" data={options(TIME_UNITS)} required />
            </>
          )}
          {spec.type === 'REPEATING' && (
            <NumberField b={b} path={`${specPath}.predicate.defaultValue`} label="Events in a row" min={1} />
          )}
        </Group>
        {schedule && schedule.type !== 'ANY_TIME' && (
          <Text size="sm" c="dimmed">
            Active on a schedule ({schedule.type}): edit it in the JSON view.
          </Text>
        )}
        <Textarea
          label="Alarm details"
          description="${key} is replaced by the key's value, e.g. Temperature is ${temperature}"
          value={String(b.value(`${path}.alarmDetails`) ?? '')}
          onChange={(e) => b.set(`${path}.alarmDetails`, e.currentTarget.value || null)}
          error={b.error(`${path}.alarmDetails`)}
          disabled={b.disabled}
          autosize
          minRows={1}
          data-path={`${path}.alarmDetails`}
        />
        <Group justify="flex-end">
          <Button size="compact-xs" variant="subtle" color="red" onClick={onRemove} disabled={b.disabled}>
            Remove {title.toLowerCase()}
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}
