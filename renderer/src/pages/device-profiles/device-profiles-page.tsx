import { Anchor, Badge, Button, Group, Modal, Paper, Stack, Table, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useCurrentUser } from '../../api/hooks.ts';
import { useDeviceProfiles, useSaveDeviceProfile } from '../../api/transport-hooks.ts';
import { EmptyTableRow } from '../../components/empty-table-row.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { Link, navigate } from '../../router.tsx';
import { PROVISION_LABELS } from './provisioning-card.tsx';

function NewProfileModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const save = useSaveDeviceProfile();
  const [name, setName] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return;
    save.mutate(
      { name: name.trim(), type: 'DEFAULT', transportType: 'DEFAULT' },
      {
        onSuccess: (p) => {
          setName('');
          onClose();
          navigate(`/device-profiles/${p.id.id}`);
        },
      },
    );
  };
  return (
    <Modal opened={opened} onClose={onClose} title="Add device profile">
      <form onSubmit={submit}>
        <Stack gap="sm">
          <TextInput
            label="Name"
            description="Devices of this profile have it as their type"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            required
            data-autofocus
            data-testid="profile-name-input"
          />
          <ErrorAlert error={save.error} title="Could not add the profile" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending} disabled={!name.trim()}>
              Add
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Device profiles: what the devices of a type share (provisioning today, more cards later). */
export default function DeviceProfilesPage() {
  const [page] = useState(0);
  const profiles = useDeviceProfiles({ page, pageSize: 100 });
  const user = useCurrentUser();
  const canEdit = user.data?.authority === 'TENANT_ADMIN';
  const [adding, setAdding] = useState(false);
  const rows = profiles.data?.data ?? [];
  return (
    <Stack gap="md">
      <PageHeader
        title="Device profiles"
        description="What the devices of one type share: how new devices provision themselves, and more."
        actions={
          canEdit && (
            <Button onClick={() => setAdding(true)} data-testid="add-profile">
              Add profile
            </Button>
          )
        }
      />
      <ErrorAlert error={profiles.error} title="Could not load the device profiles" />
      <Paper withBorder radius="md">
        <Table.ScrollContainer minWidth={560}>
          <Table highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Provisioning</Table.Th>
                <Table.Th>Description</Table.Th>
                <Table.Th>Created</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((p) => (
                <Table.Tr
                  key={p.id.id}
                  style={{ cursor: 'pointer' }}
                  onClick={(e) => {
                    if ((e.target as HTMLElement).closest('a, button')) return;
                    navigate(`/device-profiles/${p.id.id}`);
                  }}
                >
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      <Anchor
                        component={Link}
                        to={`/device-profiles/${p.id.id}`}
                        fw={500}
                        data-testid="profile-link"
                      >
                        {p.name}
                      </Anchor>
                      {p.default && (
                        <Badge size="xs" variant="light">
                          default
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" c={p.provisionType === 'DISABLED' ? 'dimmed' : undefined}>
                      {PROVISION_LABELS[p.provisionType] ?? p.provisionType}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" lineClamp={1}>
                      {p.description ?? ''}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" c="dimmed">
                      {formatDateTime(p.createdTime)}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
              {profiles.data && rows.length === 0 && (
                <EmptyTableRow columns={4} roomy>
                  No device profiles yet.
                </EmptyTableRow>
              )}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
      <NewProfileModal opened={adding} onClose={() => setAdding(false)} />
    </Stack>
  );
}
