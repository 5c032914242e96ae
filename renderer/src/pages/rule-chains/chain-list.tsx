import { ActionIcon, Badge, Button, Group, Menu, Stack, Text, UnstyledButton } from '@mantine/core';
import type { RuleChain } from '../../api/rule-chains-api.ts';

export interface ChainActions {
  onOpen: (chain: RuleChain) => void;
  onNew: () => void;
  onRename: (chain: RuleChain) => void;
  onSetRoot: (chain: RuleChain) => void;
  onExport: (chain: RuleChain) => void;
  onDelete: (chain: RuleChain) => void;
}

function ChainRow({
  chain,
  current,
  actions,
}: { chain: RuleChain; current: boolean } & { actions: ChainActions }) {
  const rootLabel = chain.type === 'EDGE' ? 'edge root' : 'root';
  return (
    <Group
      gap={4}
      wrap="nowrap"
      justify="space-between"
      data-testid="chain-row"
      data-name={chain.name}
      data-current={current}
      style={{
        borderRadius: 'var(--mantine-radius-sm)',
        background: current ? 'var(--mantine-primary-color-light)' : undefined,
      }}
    >
      <UnstyledButton
        onClick={() => actions.onOpen(chain)}
        aria-current={current ? 'page' : undefined}
        px="xs"
        py={6}
        style={{ flex: 1, minWidth: 0, borderRadius: 'var(--mantine-radius-sm)' }}
        data-testid="chain-open"
      >
        <Group gap={6} wrap="wrap">
          <Text size="sm" fw={current ? 700 : 500} style={{ overflowWrap: 'anywhere' }}>
            {chain.name}
          </Text>
          {chain.root && (
            <Badge size="xs" variant="filled" data-testid="chain-root">
              {rootLabel}
            </Badge>
          )}
        </Group>
      </UnstyledButton>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <ActionIcon variant="subtle" aria-label={`Actions of ${chain.name}`} data-testid="chain-menu">
            ⋯
          </ActionIcon>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item onClick={() => actions.onRename(chain)} data-testid="chain-rename">
            Rename…
          </Menu.Item>
          <Menu.Item
            onClick={() => actions.onSetRoot(chain)}
            disabled={chain.root}
            data-testid="chain-set-root"
          >
            {chain.type === 'EDGE' ? 'Make edge template root' : 'Make root'}
          </Menu.Item>
          <Menu.Item onClick={() => actions.onExport(chain)} data-testid="chain-export">
            Export to a file
          </Menu.Item>
          <Menu.Divider />
          <Menu.Item
            color="red"
            onClick={() => actions.onDelete(chain)}
            disabled={chain.root}
            data-testid="chain-delete"
          >
            Delete…
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
    </Group>
  );
}

/**
 * The tenant's chains, CORE (the root marked) and EDGE (the template root marked): open one, create,
 * import a file exported from ThingsBoard, and each one's actions.
 */
export function ChainList({
  chains,
  currentId,
  actions,
}: {
  chains: RuleChain[];
  currentId: string | undefined;
  actions: ChainActions;
}) {
  const groups: [string, string, RuleChain[]][] = [
    ['CORE', 'Core chains', chains.filter((c) => c.type !== 'EDGE')],
    ['EDGE', 'Edge chains', chains.filter((c) => c.type === 'EDGE')],
  ];
  return (
    <Stack gap="sm" data-testid="chain-list">
      <Group gap="xs">
        <Button size="xs" onClick={actions.onNew} data-testid="chain-new">
          New chain
        </Button>
      </Group>
      {groups.map(([type, title, list]) => (
        <Stack key={type} gap={2}>
          <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
            {title} ({list.length})
          </Text>
          {list.length === 0 && (
            <Text size="xs" c="dimmed">
              {type === 'EDGE' ? 'None yet: edges run these (ThingsBoard Edge).' : 'None.'}
            </Text>
          )}
          {list.map((c) => (
            <ChainRow key={c.id.id} chain={c} current={c.id.id === currentId} actions={actions} />
          ))}
        </Stack>
      ))}
    </Stack>
  );
}
