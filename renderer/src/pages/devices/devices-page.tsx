import { Badge, Button, Modal, Select, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { DeviceInfo, DeviceInfoPageQuery } from '../../api/client.ts';
import {
  useDeviceInfos,
  useDeviceOwnerScope,
  useDeviceTypes,
  useLastActivityTimes,
} from '../../api/hooks.ts';
import {
  EntityList,
  createdColumn,
  nameColumn,
  useEntityListState,
  type EntityColumn,
} from '../../components/entity-list.tsx';
import { formatDateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { navigate } from '../../router.tsx';
import { DeleteDeviceModal } from './delete-device-modal.tsx';
import { ClaimDeviceForm } from './device-claim-card.tsx';
import { DeviceFormModal } from './device-form-modal.tsx';

type SortProperty = NonNullable<DeviceInfoPageQuery['sortProperty']>;
type StatusFilter = 'any' | 'active' | 'inactive';

function isGateway(device: DeviceInfo): boolean {
  const flag = device.additionalInfo.gateway;
  return flag === true || flag === 'true';
}

const hrefOf = (d: DeviceInfo) => `/devices/${d.id.id}`;

export default function DevicesPage() {
  const scope = useDeviceOwnerScope();
  const list = useEntityListState<SortProperty>('createdTime');
  const [status, setStatus] = useState<StatusFilter>('any');
  const [type, setType] = useState<string | null>(null);
  const [editing, setEditing] = useState<DeviceInfo | 'new' | null>(null);
  const [deleting, setDeleting] = useState<DeviceInfo | null>(null);
  const [claiming, setClaiming] = useState(false);
  const types = useDeviceTypes();

  const devices = useDeviceInfos({
    ...list.query,
    active: status === 'any' ? undefined : status === 'active',
    type: type ?? undefined,
  });
  const ids = (devices.data?.data ?? []).map((d) => d.id.id);
  const lastActivity = useLastActivityTimes(ids);

  const columns: EntityColumn<DeviceInfo, SortProperty>[] = [
    nameColumn(
      hrefOf,
      'device-link',
      'name',
      (d) =>
        isGateway(d) && (
          <Badge size="xs" variant="light">
            gateway
          </Badge>
        ),
    ),
    {
      label: 'Status',
      render: (d) => (
        <Badge
          size="sm"
          variant="light"
          color={d.active ? 'teal' : 'gray'}
          data-testid="device-status"
          data-active={d.active}
        >
          {d.active ? 'active' : 'inactive'}
        </Badge>
      ),
    },
    {
      label: 'Last activity',
      render: (d) => {
        const ts = lastActivity.data?.[d.id.id];
        return (
          <Text size="sm" c="dimmed" data-testid="device-last-activity" title={ts ? String(ts) : undefined}>
            {ts ? formatDateTime(ts) : 'never'}
          </Text>
        );
      },
    },
    { label: 'Type (profile)', sortProperty: 'type', render: (d) => d.type },
    { label: 'Label', sortProperty: 'label', render: (d) => d.label ?? '' },
    createdColumn('createdTime'),
  ];

  return (
    <Stack gap="md">
      <PageHeader
        title="Devices"
        description="Every device of the tenant, with its status, credentials, attributes and telemetry."
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
      <EntityList
        noun="device"
        state={list}
        data={devices.data}
        error={devices.error}
        stale={devices.isPlaceholderData}
        columns={columns}
        hrefOf={hrefOf}
        tableTestId="devices-table"
        searchTestId="device-search"
        filtered={status !== 'any' || type !== null}
        filters={
          <>
            <Select
              aria-label="Status"
              data={[
                { value: 'any', label: 'Any status' },
                { value: 'active', label: 'Active' },
                { value: 'inactive', label: 'Inactive' },
              ]}
              value={status}
              onChange={(v) => {
                setStatus((v as StatusFilter | null) ?? 'any');
                list.setPage(0);
              }}
              allowDeselect={false}
              w={150}
              data-testid="device-status-filter"
            />
            <Select
              aria-label="Type"
              placeholder="Any type"
              data={(types.data ?? []).map((t) => t.type)}
              value={type}
              onChange={(v) => {
                setType(v);
                list.setPage(0);
              }}
              clearable
              w={180}
              data-testid="device-type-filter"
            />
          </>
        }
        onEdit={scope.canEdit ? setEditing : undefined}
        onDelete={scope.canEdit ? setDeleting : undefined}
        empty={
          scope.canEdit
            ? 'No devices yet. Add one to get an access token.'
            : 'No devices are assigned to your customer.'
        }
      />
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
