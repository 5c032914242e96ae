import {
  ActionIcon,
  Autocomplete,
  Button,
  Card,
  Fieldset,
  Group,
  MultiSelect,
  NumberInput,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import {
  DATE_GROUPINGS,
  MEASURE_AGGREGATIONS,
  RELATIVE_UNITS,
} from '../../../../shared/schemas/table-view.ts';
import type { Device } from '../../api/client.ts';
import type {
  DateGrouping,
  DeviceProfile,
  Dimension,
  MeasureAggregation,
  TableViewConfig,
  ViewFilter,
} from '../../api/reports-api.ts';
import type { DeviceCatalog } from '../../api/reports-hooks.ts';
import {
  AGGREGATION_LABELS,
  FIELD_LABELS,
  GROUPING_LABELS,
  RELATIVE_UNIT_LABELS,
  defaultDimensionLabel,
  fromLocalInput,
  toLocalInput,
  type ConfigIssue,
} from './report-model.ts';

type Field = Dimension['field'];
type Scope = NonNullable<Dimension['scope']>;

const FIELD_DATA = (Object.keys(FIELD_LABELS) as Field[]).map((f) => ({ value: f, label: FIELD_LABELS[f] }));
const SCOPE_DATA = [
  { value: '', label: 'Any scope' },
  { value: 'SERVER_SCOPE', label: 'Server' },
  { value: 'SHARED_SCOPE', label: 'Shared' },
  { value: 'CLIENT_SCOPE', label: 'Client' },
];

function localOffsetMinutes(): number {
  return -new Date().getTimezoneOffset();
}

function offsetLabel(minutes: number): string {
  if (minutes === 0) return 'UTC';
  const sign = minutes > 0 ? '+' : '−';
  const a = Math.abs(minutes);
  return `UTC${sign}${Math.floor(a / 60)}${a % 60 ? `:${String(a % 60).padStart(2, '0')}` : ''}`;
}

function RemoveButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <ActionIcon variant="subtle" color="gray" aria-label={label} onClick={onClick} mt={24}>
      ×
    </ActionIcon>
  );
}

/** Field, attribute key and scope of a dimension or a filter. */
function FieldInputs({
  value,
  onChange,
  attributeKeys,
  index,
  kind,
  error,
}: {
  value: { field: Field; key?: string; scope?: Scope; assetType?: string; relationType?: string };
  onChange: (patch: {
    field?: Field;
    key?: string;
    scope?: Scope | undefined;
    assetType?: string | undefined;
    relationType?: string | undefined;
  }) => void;
  attributeKeys: string[];
  index: number;
  kind: 'Dimension' | 'Filter';
  error?: string;
}) {
  return (
    <>
      <Select
        label="Field"
        aria-label={`${kind} ${index + 1} field`}
        w={150}
        data={FIELD_DATA}
        value={value.field}
        allowDeselect={false}
        onChange={(v) => v && onChange({ field: v as Field })}
      />
      {value.field === 'ATTRIBUTE' && (
        <>
          <Autocomplete
            label="Attribute key"
            aria-label={`${kind} ${index + 1} attribute key`}
            w={170}
            data={attributeKeys}
            value={value.key ?? ''}
            onChange={(v) => onChange({ key: v })}
            error={error}
          />
          <Select
            label="Scope"
            aria-label={`${kind} ${index + 1} scope`}
            w={120}
            data={SCOPE_DATA}
            value={value.scope ?? ''}
            allowDeselect={false}
            onChange={(v) => onChange({ scope: v ? (v as Scope) : undefined })}
          />
        </>
      )}
      {value.field === 'ASSET' && (
        <>
          <TextInput
            label="Asset type"
            aria-label={`${kind} ${index + 1} asset type`}
            description="the nearest asset of this type"
            placeholder="any type"
            w={170}
            value={value.assetType ?? ''}
            onChange={(e) => onChange({ assetType: e.currentTarget.value || undefined })}
          />
          <TextInput
            label="Relation"
            aria-label={`${kind} ${index + 1} relation type`}
            description="from the asset down"
            placeholder="Contains"
            w={130}
            value={value.relationType ?? ''}
            onChange={(e) => onChange({ relationType: e.currentTarget.value || undefined })}
          />
        </>
      )}
    </>
  );
}

/**
 * The definition of a table view: which devices, dimensions, the date grouping, measures, filters and
 * the time range. Keys offered come from a sample of the devices the view covers; any key can be typed.
 */
export function ViewBuilder({
  name,
  onName,
  config,
  onChange,
  profiles,
  devices,
  catalog,
  issues,
}: {
  name: string;
  onName: (name: string) => void;
  config: TableViewConfig;
  onChange: (config: TableViewConfig) => void;
  profiles: DeviceProfile[];
  devices: Device[];
  catalog: DeviceCatalog;
  issues: ConfigIssue[];
}) {
  const set = (patch: Partial<TableViewConfig>) => onChange({ ...config, ...patch });
  const issue = (path: string) => issues.find((i) => i.path === path)?.message;
  const attributeKeys = [...catalog.attributes.keys()].sort();
  const filters = config.filters ?? [];
  const range = config.timeRange;
  const local = localOffsetMinutes();
  const offsets = [...new Set([0, local, config.timezoneOffsetMinutes ?? 0])].map((m) => ({
    value: String(m),
    label: m === local && m !== 0 ? `${offsetLabel(m)} (this computer)` : offsetLabel(m),
  }));

  const setDimension = (i: number, patch: Partial<Dimension>) =>
    set({ dimensions: config.dimensions.map((d, j) => (j === i ? { ...d, ...patch } : d)) });
  const setMeasure = (i: number, patch: Partial<TableViewConfig['measures'][number]>) =>
    set({ measures: config.measures.map((m, j) => (j === i ? { ...m, ...patch } : m)) });
  const setFilter = (i: number, patch: Partial<ViewFilter>) =>
    set({ filters: filters.map((f, j) => (j === i ? { ...f, ...patch } : f)) });

  const filterSuggestions = (f: ViewFilter): string[] => {
    if (f.field === 'DEVICE_NAME') return devices.map((d) => d.name);
    if (f.field === 'DEVICE_PROFILE') return profiles.map((p) => p.name);
    return [...(catalog.attributes.get(f.key ?? '') ?? [])].sort((a, b) =>
      a.localeCompare(b, undefined, { numeric: true }),
    );
  };

  return (
    <Card withBorder radius="md" p="md" data-testid="view-builder">
      <Stack gap="sm">
        <TextInput
          label="View name"
          value={name}
          onChange={(e) => onName(e.currentTarget.value)}
          error={name.trim() ? undefined : 'Name the view to save it'}
          data-testid="view-name"
        />

        <Fieldset legend="Entities">
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <MultiSelect
              label="Device profiles"
              placeholder={config.entities.deviceProfileIds?.length ? undefined : 'Any profile'}
              data={profiles.map((p) => ({ value: p.id.id, label: p.name }))}
              value={config.entities.deviceProfileIds ?? []}
              onChange={(v) => set({ entities: { ...config.entities, deviceProfileIds: v } })}
              searchable
              clearable
              data-testid="view-profiles"
            />
            <MultiSelect
              label="Devices"
              description={devices.length >= 1000 ? 'The first 1000 by name' : undefined}
              placeholder={config.entities.deviceIds?.length ? undefined : 'And these devices'}
              data={devices.map((d) => ({ value: d.id.id, label: d.name }))}
              value={config.entities.deviceIds ?? []}
              onChange={(v) => set({ entities: { ...config.entities, deviceIds: v } })}
              searchable
              clearable
              limit={200}
              data-testid="view-devices"
            />
          </SimpleGrid>
          <Text size="xs" c="dimmed" mt={4}>
            The devices of the chosen profiles and the chosen devices; nothing chosen: every device.
          </Text>
        </Fieldset>

        <Fieldset legend="Dimensions (one column each, rows grouped by them)">
          <Stack gap="xs">
            {config.dimensions.map((d, i) => (
              <Group key={i} gap="xs" align="flex-start" wrap="wrap" data-testid="dimension-row">
                <FieldInputs
                  value={d}
                  onChange={(patch) => setDimension(i, patch)}
                  attributeKeys={attributeKeys}
                  index={i}
                  kind="Dimension"
                  error={issue(`dimensions[${i}].key`)}
                />
                <TextInput
                  label="Label"
                  aria-label={`Dimension ${i + 1} label`}
                  w={150}
                  placeholder={d.field === 'ATTRIBUTE' && !d.key ? 'the key' : defaultDimensionLabel(d)}
                  value={d.label ?? ''}
                  onChange={(e) => setDimension(i, { label: e.currentTarget.value || undefined })}
                />
                <RemoveButton
                  label={`Remove dimension ${i + 1}`}
                  onClick={() => set({ dimensions: config.dimensions.filter((_, j) => j !== i) })}
                />
              </Group>
            ))}
            <Group>
              <Button
                size="xs"
                variant="light"
                onClick={() => set({ dimensions: [...config.dimensions, { field: 'ATTRIBUTE', key: '' }] })}
                data-testid="add-dimension"
              >
                Add dimension
              </Button>
            </Group>
          </Stack>
        </Fieldset>

        <Fieldset legend="Date">
          <Group gap="xs" align="flex-start" wrap="wrap">
            <Select
              label="Date grouping"
              w={260}
              data={[
                { value: '', label: 'No date column' },
                ...DATE_GROUPINGS.map((g) => ({ value: g, label: GROUPING_LABELS[g] })),
              ]}
              value={config.date?.grouping ?? ''}
              allowDeselect={false}
              onChange={(v) =>
                set({
                  date: v
                    ? {
                        grouping: v as DateGrouping,
                        ...(config.date?.label ? { label: config.date.label } : {}),
                      }
                    : null,
                })
              }
              data-testid="view-date-grouping"
            />
            {config.date && (
              <TextInput
                label="Label"
                aria-label="Date label"
                w={150}
                placeholder="Date"
                value={config.date.label ?? ''}
                onChange={(e) =>
                  set({
                    date: {
                      grouping: config.date!.grouping,
                      ...(e.currentTarget.value ? { label: e.currentTarget.value } : {}),
                    },
                  })
                }
              />
            )}
            <Select
              label="Time zone"
              w={200}
              data={offsets}
              value={String(config.timezoneOffsetMinutes ?? 0)}
              allowDeselect={false}
              onChange={(v) => set({ timezoneOffsetMinutes: Number(v ?? 0) || undefined })}
            />
          </Group>
        </Fieldset>

        <Fieldset legend="Measures (telemetry, aggregated per row)">
          <Stack gap="xs">
            {config.measures.map((m, i) => (
              <Group key={i} gap="xs" align="flex-start" wrap="wrap" data-testid="measure-row">
                <Autocomplete
                  label="Telemetry key"
                  aria-label={`Measure ${i + 1} key`}
                  w={200}
                  data={catalog.telemetryKeys}
                  value={m.key}
                  onChange={(v) => setMeasure(i, { key: v })}
                  error={issue(`measures[${i}].key`)}
                />
                <Select
                  label="Aggregation"
                  aria-label={`Measure ${i + 1} aggregation`}
                  w={200}
                  data={MEASURE_AGGREGATIONS.map((a) => ({ value: a, label: AGGREGATION_LABELS[a] }))}
                  value={m.aggregation}
                  allowDeselect={false}
                  onChange={(v) => v && setMeasure(i, { aggregation: v as MeasureAggregation })}
                />
                <TextInput
                  label="Label"
                  aria-label={`Measure ${i + 1} label`}
                  w={150}
                  placeholder={m.key || 'the key'}
                  value={m.label ?? ''}
                  onChange={(e) => setMeasure(i, { label: e.currentTarget.value || undefined })}
                />
                <RemoveButton
                  label={`Remove measure ${i + 1}`}
                  onClick={() => set({ measures: config.measures.filter((_, j) => j !== i) })}
                />
              </Group>
            ))}
            {/* a hint, not an error: a fresh form has no measure yet */}
            {issue('measures') && (
              <Text size="sm" c="dimmed" data-testid="measures-hint">
                {issue('measures')} to see the preview.
              </Text>
            )}
            <Group>
              <Button
                size="xs"
                variant="light"
                onClick={() =>
                  set({
                    measures: [
                      ...config.measures,
                      {
                        key: config.measures.length === 0 ? (catalog.telemetryKeys[0] ?? '') : '',
                        aggregation: 'AVG',
                      },
                    ],
                  })
                }
                data-testid="add-measure"
              >
                Add measure
              </Button>
            </Group>
          </Stack>
        </Fieldset>

        <Fieldset legend="Filters (named: the report API can override their values)">
          <Stack gap="xs">
            {filters.map((f, i) => (
              <Group key={i} gap="xs" align="flex-start" wrap="wrap" data-testid="filter-row">
                <TextInput
                  label="Name"
                  aria-label={`Filter ${i + 1} name`}
                  w={130}
                  value={f.name}
                  onChange={(e) => setFilter(i, { name: e.currentTarget.value })}
                  error={issue(`filters[${i}].name`)}
                />
                <FieldInputs
                  value={f}
                  onChange={(patch) =>
                    setFilter(i, {
                      ...patch,
                      ...(patch.key !== undefined && !f.name ? { name: patch.key } : {}),
                    })
                  }
                  attributeKeys={attributeKeys}
                  index={i}
                  kind="Filter"
                  error={issue(`filters[${i}].key`)}
                />
                <TagsInput
                  label="Values kept"
                  aria-label={`Filter ${i + 1} values`}
                  placeholder={f.values.length ? undefined : 'all'}
                  style={{ flex: 1, minWidth: 200 }}
                  data={filterSuggestions(f)}
                  value={f.values}
                  onChange={(values) => setFilter(i, { values })}
                  clearable
                />
                <RemoveButton
                  label={`Remove filter ${i + 1}`}
                  onClick={() => set({ filters: filters.filter((_, j) => j !== i) })}
                />
              </Group>
            ))}
            <Group>
              <Button
                size="xs"
                variant="light"
                onClick={() =>
                  set({ filters: [...filters, { name: '', field: 'ATTRIBUTE', key: '', values: [] }] })
                }
                data-testid="add-filter"
              >
                Add filter
              </Button>
            </Group>
          </Stack>
        </Fieldset>

        <Fieldset legend="Time range">
          <Group gap="xs" align="flex-end" wrap="wrap">
            <SegmentedControl
              value={range.type}
              onChange={(v) =>
                set({
                  timeRange:
                    v === 'FIXED'
                      ? {
                          type: 'FIXED',
                          startTs: Date.now() - 7 * 86_400_000,
                          endTs: Date.now(),
                        }
                      : { type: 'RELATIVE', last: 7, unit: 'DAYS' },
                })
              }
              data={[
                { value: 'RELATIVE', label: 'Relative' },
                { value: 'FIXED', label: 'Fixed' },
              ]}
              data-testid="view-range-type"
            />
            {range.type === 'RELATIVE' ? (
              <>
                <NumberInput
                  label="Last"
                  w={100}
                  min={1}
                  max={100_000}
                  allowDecimal={false}
                  value={range.last ?? ''}
                  onChange={(n) =>
                    set({ timeRange: { ...range, last: typeof n === 'number' ? n : undefined } })
                  }
                  error={issue('timeRange.last')}
                  data-testid="view-range-last"
                />
                <Select
                  label="Unit"
                  aria-label="Range unit"
                  w={130}
                  data={RELATIVE_UNITS.map((u) => ({ value: u, label: RELATIVE_UNIT_LABELS[u] }))}
                  value={range.unit ?? 'DAYS'}
                  allowDeselect={false}
                  onChange={(v) =>
                    v && set({ timeRange: { ...range, unit: v as (typeof RELATIVE_UNITS)[number] } })
                  }
                />
              </>
            ) : (
              <>
                <TextInput
                  type="datetime-local"
                  label="From"
                  value={toLocalInput(range.startTs)}
                  onChange={(e) =>
                    set({ timeRange: { ...range, startTs: fromLocalInput(e.currentTarget.value) } })
                  }
                  data-testid="view-range-start"
                />
                <TextInput
                  type="datetime-local"
                  label="To (exclusive)"
                  value={toLocalInput(range.endTs)}
                  onChange={(e) =>
                    set({ timeRange: { ...range, endTs: fromLocalInput(e.currentTarget.value) } })
                  }
                  data-testid="view-range-end"
                />
              </>
            )}
          </Group>
          {issue('timeRange') && (
            <Text size="sm" c="red" mt={4}>
              {issue('timeRange')}
            </Text>
          )}
        </Fieldset>
        {issue('labels') && (
          <Text size="sm" c="red">
            {issue('labels')}
          </Text>
        )}
      </Stack>
    </Card>
  );
}
