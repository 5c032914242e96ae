import { Badge, Group, Modal, ScrollArea, Stack, Text, TextInput, UnstyledButton } from '@mantine/core';
import { useMemo, useState, type KeyboardEvent } from 'react';
import type { RuleNodeType } from '../../api/client.ts';
import { shortType } from './chain-model.ts';

const GROUPS = ['FILTER', 'ENRICHMENT', 'TRANSFORMATION', 'ACTION', 'EXTERNAL', 'FLOW'];
const groupName = (g: string) => g.charAt(0) + g.slice(1).toLowerCase();

/** Node types in ThingsBoard's palette groups (Filter, Enrichment, ...), each group in the server's order. */
export function paletteOrder(types: RuleNodeType[]): RuleNodeType[] {
  const rank = (t: RuleNodeType) => {
    const i = GROUPS.indexOf(t.componentType ?? 'ACTION');
    return i < 0 ? GROUPS.length : i;
  };
  return types
    .map((t, i) => ({ t, i }))
    .sort((a, b) => rank(a.t) - rank(b.t) || a.i - b.i)
    .map((x) => x.t);
}

/** Whether a type matches every word of a search, in its name, group, class or description. */
export function matchesSearch(t: RuleNodeType, search: string): boolean {
  const haystack =
    `${t.label} ${t.componentType ?? ''} ${shortType(t.type)} ${t.description ?? ''}`.toLowerCase();
  return search
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => haystack.includes(w));
}

/**
 * Every node type the chain may hold, searchable: each with its group and its documentation line. Arrow
 * keys move through the list, Enter adds the highlighted one, Esc closes.
 */
export function NodePalette({
  opened,
  types,
  placedAfter,
  onAdd,
  onClose,
}: {
  opened: boolean;
  types: RuleNodeType[];
  /** the selected node the new one goes after, if any */
  placedAfter?: string;
  onAdd: (t: RuleNodeType) => void;
  onClose: () => void;
}) {
  const [search, setSearch] = useState('');
  const [active, setActive] = useState(0);
  const ordered = useMemo(() => paletteOrder(types), [types]);
  const shown = useMemo(() => ordered.filter((t) => matchesSearch(t, search)), [ordered, search]);
  const current = Math.min(active, Math.max(0, shown.length - 1));
  const close = () => {
    setSearch('');
    setActive(0);
    onClose();
  };
  const add = (t: RuleNodeType) => {
    onAdd(t);
    close();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = (current + (e.key === 'ArrowDown' ? 1 : -1) + shown.length) % Math.max(1, shown.length);
      setActive(next);
      document.getElementById(`palette-option-${next}`)?.scrollIntoView({ block: 'nearest' });
    } else if (e.key === 'Enter' && shown[current]) {
      e.preventDefault();
      add(shown[current]);
    }
  };
  let lastGroup = '';
  return (
    <Modal
      opened={opened}
      onClose={close}
      title={placedAfter ? `Add a node after ${placedAfter}` : 'Add a node'}
      size="lg"
      data-testid="node-palette"
    >
      <Stack gap="sm">
        <TextInput
          data-autofocus
          label="Search node types"
          description={`${shown.length} of ${types.length} · ↑ ↓ to choose, Enter adds, Esc closes`}
          placeholder="e.g. alarm, save, script, filter"
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setActive(0);
          }}
          onKeyDown={onKeyDown}
          role="combobox"
          aria-expanded
          aria-controls="palette-list"
          aria-activedescendant={shown[current] ? `palette-option-${current}` : undefined}
          data-testid="palette-search"
        />
        <ScrollArea.Autosize mah="55vh" type="auto">
          <Stack gap={2} id="palette-list" role="listbox" aria-label="Node types">
            {shown.length === 0 && (
              <Text size="sm" c="dimmed" p="sm">
                No node type matches “{search}”.
              </Text>
            )}
            {shown.map((t, i) => {
              const group = t.componentType ?? 'ACTION';
              const heading = group !== lastGroup;
              lastGroup = group;
              return (
                <div key={t.type}>
                  {heading && (
                    <Text size="xs" c="dimmed" tt="uppercase" fw={700} mt={i ? 'sm' : 0} mb={2} aria-hidden>
                      {groupName(group)}
                    </Text>
                  )}
                  <UnstyledButton
                    id={`palette-option-${i}`}
                    role="option"
                    aria-selected={i === current}
                    tabIndex={-1}
                    onClick={() => add(t)}
                    onMouseEnter={() => setActive(i)}
                    data-testid="palette-item"
                    data-label={t.label}
                    w="100%"
                    p="xs"
                    style={{
                      borderRadius: 'var(--mantine-radius-sm)',
                      background: i === current ? 'var(--mantine-color-default-hover)' : undefined,
                      outline: i === current ? '2px solid var(--mantine-primary-color-filled)' : undefined,
                      outlineOffset: -2,
                    }}
                  >
                    <Group gap="xs" wrap="nowrap" justify="space-between">
                      <Text size="sm" fw={600}>
                        {t.label}
                      </Text>
                      <Badge size="xs" variant="light" tt="none">
                        {groupName(group)}
                      </Badge>
                    </Group>
                    {t.description && (
                      <Text size="xs" c="dimmed">
                        {t.description}
                      </Text>
                    )}
                  </UnstyledButton>
                </div>
              );
            })}
          </Stack>
        </ScrollArea.Autosize>
      </Stack>
    </Modal>
  );
}
