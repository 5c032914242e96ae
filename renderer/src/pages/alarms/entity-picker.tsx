import { Group, SegmentedControl, Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useEntityOptions } from '../../api/entities-hooks.ts';

export type PickableType = 'DEVICE' | 'ASSET';

/** Picks a device or an asset by name (searching as one types); value is its id. */
export function EntityPicker({
  entityType,
  onEntityType,
  value,
  onChange,
  label,
  testId,
}: {
  entityType: PickableType;
  onEntityType: (t: PickableType) => void;
  value: string | null;
  onChange: (id: string | null) => void;
  label: string;
  testId?: string;
}) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const options = useEntityOptions(entityType, debounced);
  return (
    <Group align="flex-end" gap="xs" wrap="wrap">
      <SegmentedControl
        aria-label={`${label}: entity type`}
        value={entityType}
        onChange={(v) => {
          onEntityType(v as PickableType);
          onChange(null);
        }}
        data={[
          { value: 'DEVICE', label: 'Device' },
          { value: 'ASSET', label: 'Asset' },
        ]}
      />
      <Select
        label={label}
        placeholder="Type to search by name"
        searchable
        required
        searchValue={search}
        onSearchChange={setSearch}
        data={options.data ?? []}
        value={value}
        onChange={onChange}
        nothingFoundMessage={options.isFetching ? 'Searching…' : 'Nothing found'}
        style={{ flex: 1, minWidth: 200 }}
        data-testid={testId}
      />
    </Group>
  );
}
