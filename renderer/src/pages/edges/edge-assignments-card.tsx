import { Anchor, Button, Card, Group, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import type { Edge } from '../../api/client.ts';
import { useDevices, useEdgeAssignment, useEdgeDevices } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Link } from '../../router.tsx';

/** The devices whose data reaches the edge: assign from a searchable picker, unassign from the list. */
export function EdgeAssignmentsCard({ edge }: { edge: Edge }) {
  const edgeId = edge.id.id;
  const assigned = useEdgeDevices(edgeId);
  const assignment = useEdgeAssignment(edgeId);
  const [search, setSearch] = useState('');
  const [textSearch] = useDebouncedValue(search.trim(), 250);
  const [picked, setPicked] = useState<string | null>(null);
  const candidates = useDevices({
    page: 0,
    pageSize: 20,
    textSearch: textSearch || undefined,
    sortProperty: 'name',
    sortOrder: 'ASC',
  });
  const assignedIds = new Set((assigned.data?.data ?? []).map((d) => d.id.id));
  const options = (candidates.data?.data ?? [])
    .filter((d) => !assignedIds.has(d.id.id))
    .map((d) => ({ value: d.id.id, label: d.name }));
  const list = assigned.data?.data ?? [];

  return (
    <Card withBorder radius="md" p="md" data-testid="edge-assignments">
      <Stack gap="sm">
        <div>
          <Title order={5}>Assigned devices</Title>
          <Text size="xs" c="dimmed">
            Messages of these devices that reach a “push to edge” node are queued for this edge.
          </Text>
        </div>
        <Group align="flex-end" gap="xs" wrap="nowrap">
          <Select
            label="Device"
            placeholder="Search devices by name"
            searchable
            data={options}
            value={picked}
            onChange={setPicked}
            searchValue={search}
            onSearchChange={setSearch}
            nothingFoundMessage={candidates.isFetching ? 'Searching…' : 'No unassigned device matches'}
            filter={({ options: o }) => o}
            style={{ flex: 1 }}
            data-testid="edge-device-picker"
          />
          <Button
            disabled={!picked}
            loading={assignment.isPending && assignment.variables?.assign === true}
            onClick={() =>
              picked &&
              assignment.mutate(
                { deviceId: picked, assign: true },
                {
                  onSuccess: () => {
                    setPicked(null);
                    setSearch('');
                  },
                },
              )
            }
            data-testid="assign-device"
          >
            Assign
          </Button>
        </Group>
        <ErrorAlert error={assignment.error ?? assigned.error} title="Could not change the assignment" />
        {list.length === 0 ? (
          <Text size="sm" c="dimmed">
            {assigned.data ? 'No devices assigned yet.' : 'Loading…'}
          </Text>
        ) : (
          <Table verticalSpacing={4} data-testid="assigned-devices">
            <Table.Tbody>
              {list.map((d) => (
                <Table.Tr key={d.id.id} data-testid="assigned-device">
                  <Table.Td>
                    <Anchor component={Link} to={`/devices/${d.id.id}`} size="sm">
                      {d.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed">
                      {d.type}
                    </Text>
                  </Table.Td>
                  <Table.Td ta="right">
                    <Button
                      size="compact-xs"
                      variant="subtle"
                      color="red"
                      onClick={() => assignment.mutate({ deviceId: d.id.id, assign: false })}
                      aria-label={`Unassign ${d.name}`}
                    >
                      Unassign
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        {assigned.data && assigned.data.totalElements > list.length && (
          <Text size="xs" c="dimmed">
            Showing {list.length} of {assigned.data.totalElements}.
          </Text>
        )}
      </Stack>
    </Card>
  );
}
