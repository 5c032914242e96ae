import {
  Anchor,
  Badge,
  Button,
  Group,
  Modal,
  Pagination,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  UnstyledButton,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import type { Device, DevicePageQuery } from '../../api/client.ts';
import { useDeviceOwnerScope, useDevices } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime } from '../../components/format.ts';
import { SortIcon } from '../../components/icons.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { Link, navigate } from '../../router.tsx';
import { DeleteDeviceModal } from './delete-device-modal.tsx';
import { ClaimDeviceForm } from './device-claim-card.tsx';
import { DeviceFormModal } from './device-form-modal.tsx';
import { EmptyTableRow } from '../../components/empty-table-row.tsx';

type SortProperty = NonNullable<DevicePageQuery['sortProperty']>;

const PAGE_SIZES = ['10', '20', '50', '100'];

function SortableHeader({
  label,
  property,
  sort,
  onSort,
}: {
  label: string;
  property: SortProperty;
  sort: { property: SortProperty; order: 'ASC' | 'DESC' };
  onSort: (property: SortProperty) => void;
}) {
  const active = sort.property === property;
  return (
    <Table.Th aria-sort={active ? (sort.order === 'ASC' ? 'ascending' : 'descending') : 'none'}>
      <UnstyledButton onClick={() => onSort(property)} data-testid={`sort-${property}`}>
        <Group gap={4} wrap="nowrap">
          <Text fw={700} size="sm">
            {label}
          </Text>
          <SortIcon sortOrder={active ? sort.order : null} />
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}

function isGateway(device: Device): boolean {
  const flag = device.additionalInfo.gateway;
  return flag === true || flag === 'true';
}

export default function DevicesPage() {
  const scope = useDeviceOwnerScope();
  const [search, setSearch] = useState('');
  const [textSearch] = useDebouncedValue(search.trim(), 300);
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState(20);
  const [sort, setSort] = useState<{ property: SortProperty; order: 'ASC' | 'DESC' }>({
    property: 'createdTime',
    order: 'DESC',
  });
  const [editing, setEditing] = useState<Device | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Device | null>(null);
  const [claiming, setClaiming] = useState(false);

  const devices = useDevices({
    page,
    pageSize,
    textSearch: textSearch || undefined,
    sortProperty: sort.property,
    sortOrder: sort.order,
  });

  const onSort = (property: SortProperty) => {
    setSort((s) =>
      s.property === property
        ? { property, order: s.order === 'ASC' ? 'DESC' : 'ASC' }
        : { property, order: property === 'createdTime' ? 'DESC' : 'ASC' },
    );
    setPage(0);
  };

  const data = devices.data;
  const rows = data?.data ?? [];

  return (
    <Stack gap="md">
      <PageHeader
        title="Devices"
        description="Every device of the tenant, with its credentials, attributes and telemetry."
        actions={
          scope.canEdit ? (
            <Button onClick={() => setEditing('new')} data-testid="add-device">
              Add device
            </Button>
          ) : (
            scope.ready && (
              <Button variant="light" onClick={() => setClaiming(true)} data-testid="open-claim">
                Claim a device
              </Button>
            )
          )
        }
      />
      <Group justify="space-between" wrap="wrap">
        <TextInput
          placeholder="Search by name"
          aria-label="Search devices by name"
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(0);
          }}
          w={320}
          maw="100%"
          data-testid="device-search"
        />
        <Text size="sm" c="dimmed" aria-live="polite">
          {data ? `${data.totalElements} device${data.totalElements === 1 ? '' : 's'}` : 'Loading…'}
        </Text>
      </Group>
      <ErrorAlert error={devices.error} title="Could not load the devices" />
      <Paper withBorder radius="md">
        <Table.ScrollContainer minWidth={640}>
          <Table highlightOnHover verticalSpacing="sm" data-testid="devices-table">
            <Table.Thead>
              <Table.Tr>
                <SortableHeader label="Name" property="name" sort={sort} onSort={onSort} />
                <SortableHeader label="Profile" property="type" sort={sort} onSort={onSort} />
                <SortableHeader label="Label" property="label" sort={sort} onSort={onSort} />
                <SortableHeader label="Created" property="createdTime" sort={sort} onSort={onSort} />
                {scope.canEdit && <Table.Th style={{ width: 1 }} aria-label="Actions" />}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody style={{ opacity: devices.isPlaceholderData ? 0.6 : 1 }}>
              {rows.map((device) => (
                <Table.Tr
                  key={device.id.id}
                  style={{ cursor: 'pointer' }}
                  onClick={(e) => {
                    if ((e.target as HTMLElement).closest('a, button')) return;
                    navigate(`/devices/${device.id.id}`);
                  }}
                >
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      <Anchor
                        component={Link}
                        to={`/devices/${device.id.id}`}
                        fw={500}
                        data-testid="device-link"
                      >
                        {device.name}
                      </Anchor>
                      {isGateway(device) && (
                        <Badge size="xs" variant="light">
                          gateway
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>{device.type}</Table.Td>
                  <Table.Td>{device.label ?? ''}</Table.Td>
                  <Table.Td>
                    <Text size="sm" c="dimmed">
                      {formatDateTime(device.createdTime)}
                    </Text>
                  </Table.Td>
                  {scope.canEdit && (
                    <Table.Td>
                      <Group gap={4} wrap="nowrap">
                        <Button size="compact-sm" variant="subtle" onClick={() => setEditing(device)}>
                          Edit
                        </Button>
                        <Button
                          size="compact-sm"
                          variant="subtle"
                          color="red"
                          onClick={() => setDeleting(device)}
                        >
                          Delete
                        </Button>
                      </Group>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
              {data && rows.length === 0 && (
                <EmptyTableRow columns={5} roomy>
                  {textSearch
                    ? `No device name contains “${textSearch}”.`
                    : scope.canEdit
                      ? 'No devices yet. Add one to get an access token.'
                      : 'No devices are assigned to your customer.'}
                </EmptyTableRow>
              )}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
      {data && data.totalElements > 0 && (
        <Group justify="space-between">
          <Select
            aria-label="Devices per page"
            data={PAGE_SIZES}
            value={String(pageSize)}
            onChange={(v) => {
              setPageSize(Number(v ?? 20));
              setPage(0);
            }}
            w={90}
            allowDeselect={false}
          />
          <Pagination total={data.totalPages} value={page + 1} onChange={(p) => setPage(p - 1)} />
        </Group>
      )}
      <DeviceFormModal
        device={editing === 'new' ? null : editing}
        opened={editing !== null}
        onClose={() => setEditing(null)}
        onSaved={(device) => {
          if (editing === 'new') navigate(`/devices/${device.id.id}`);
        }}
      />
      <DeleteDeviceModal device={deleting} onClose={() => setDeleting(null)} />
      <Modal opened={claiming} onClose={() => setClaiming(false)} title="Claim a device" size="lg">
        <Stack gap="xs">
          <Text size="sm" c="dimmed">
            A device that announced a secret key (MQTT <code>v1/devices/me/claim</code>) becomes your
            customer’s when you claim it by name with that key, in time.
          </Text>
          <ClaimDeviceForm />
        </Stack>
      </Modal>
    </Stack>
  );
}
