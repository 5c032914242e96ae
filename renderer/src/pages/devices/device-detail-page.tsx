import { Badge, Group, SimpleGrid, Text } from '@mantine/core';
import { useState } from 'react';
import { useDevice, useDeviceOwnerScope } from '../../api/hooks.ts';
import { EntityDetail } from '../../components/entity-detail.tsx';
import { formatDateTime } from '../../components/format.ts';
import { useFollowDevice } from '../../live/live-provider.tsx';
import { navigate } from '../../router.tsx';
import type { PageParams } from '../../shell/page-catalog.ts';
import { entityDataSections } from '../entity-sections.tsx';
import { ConnectExamplesCard } from './connect-examples-card.tsx';
import { ConnectivityBadge } from './connectivity-badge.tsx';
import { DeleteDeviceModal } from './delete-device-modal.tsx';
import { DeviceClaimCard } from './device-claim-card.tsx';
import { DeviceCredentialsCard } from './device-credentials-card.tsx';
import { DeviceFirmwareCard } from './device-firmware-card.tsx';
import { DeviceFormModal } from './device-form-modal.tsx';
import { DeviceHttpApiCard } from './device-http-api-card.tsx';
import { RateLimitCard } from './rate-limit-card.tsx';
import { RpcConsoleCard } from './rpc-console-card.tsx';

export default function DeviceDetailPage({ params }: { params: PageParams }) {
  const id = params.id!;
  const device = useDevice(id);
  const scope = useDeviceOwnerScope();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const following = useFollowDevice(device.data ? id : undefined);
  const d = device.data;
  const gateway = d?.additionalInfo.gateway === true || d?.additionalInfo.gateway === 'true';
  const description = typeof d?.additionalInfo.description === 'string' ? d.additionalInfo.description : null;
  const ref = { entityType: 'DEVICE', id };

  return (
    <EntityDetail
      back={{ to: '/devices', label: 'Devices' }}
      state={{ error: device.error, loading: !d, errorTitle: 'Could not load the device' }}
      testId="device-detail"
      data-following={following}
      title={
        d && (
          <Group gap="sm">
            <span data-testid="device-name">{d.name}</span>
            {gateway && <Badge variant="light">gateway</Badge>}
            <ConnectivityBadge deviceId={d.id.id} />
          </Group>
        )
      }
      description={
        d && (
          <>
            Profile {d.type}
            {d.label ? ` · ${d.label}` : ''} · created {formatDateTime(d.createdTime)}
            {description && (
              <Text span display="block" size="sm" c="dimmed">
                {description}
              </Text>
            )}
          </>
        )
      }
      onEdit={scope.canEdit ? () => setEditing(true) : undefined}
      onDelete={scope.canEdit ? () => setDeleting(true) : undefined}
      sections={[
        {
          id: 'connect',
          label: 'Connect',
          content: (
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              <DeviceCredentialsCard deviceId={id} />
              <ConnectExamplesCard deviceId={id} />
            </SimpleGrid>
          ),
        },
        ...entityDataSections(ref),
        {
          id: 'rpc',
          label: 'RPC',
          content: <RpcConsoleCard deviceId={id} />,
        },
        {
          id: 'firmware',
          label: 'Firmware',
          content: <DeviceFirmwareCard deviceId={id} />,
        },
        {
          id: 'claiming',
          label: 'Claiming',
          content: d && <DeviceClaimCard device={d} />,
        },
        {
          id: 'http-api',
          label: 'HTTP API and limits',
          content: (
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              <DeviceHttpApiCard deviceId={id} />
              <RateLimitCard deviceId={id} />
            </SimpleGrid>
          ),
        },
      ]}
    >
      {d && (
        <>
          <DeviceFormModal device={d} opened={editing} onClose={() => setEditing(false)} />
          <DeleteDeviceModal
            device={deleting ? d : null}
            onClose={() => setDeleting(false)}
            onDeleted={() => navigate('/devices', { replace: true })}
          />
        </>
      )}
    </EntityDetail>
  );
}
