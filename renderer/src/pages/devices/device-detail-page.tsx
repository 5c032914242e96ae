import { Anchor, Badge, Button, Group, SimpleGrid, Skeleton, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useDevice, useDeviceOwnerScope } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { useFollowDevice } from '../../live/live-provider.tsx';
import { Link, navigate } from '../../router.tsx';
import type { PageParams } from '../../shell/page-catalog.ts';
import { ConnectExamplesCard } from './connect-examples-card.tsx';
import { DeleteDeviceModal } from './delete-device-modal.tsx';
import { DeviceClaimCard } from './device-claim-card.tsx';
import { DeviceAttributesCard } from './device-attributes-card.tsx';
import { DeviceCredentialsCard } from './device-credentials-card.tsx';
import { DeviceFormModal } from './device-form-modal.tsx';
import { DeviceHttpApiCard } from './device-http-api-card.tsx';
import { LatestTelemetryCard } from './latest-telemetry-card.tsx';
import { RateLimitCard } from './rate-limit-card.tsx';
import { RpcConsoleCard } from './rpc-console-card.tsx';
import { TelemetryChartCard } from './telemetry-chart-card.tsx';
import { EntityAlarmsCard } from '../alarms/entity-alarms-card.tsx';
import { RelationsCard } from '../relations/relations-card.tsx';

export default function DeviceDetailPage({ params }: { params: PageParams }) {
  const id = params.id!;
  const device = useDevice(id);
  const scope = useDeviceOwnerScope();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const following = useFollowDevice(device.data ? id : undefined);

  const back = (
    <Anchor component={Link} to="/devices" size="sm">
      ← Devices
    </Anchor>
  );

  if (device.error) {
    return (
      <Stack gap="md">
        {back}
        <ErrorAlert error={device.error} title="Could not load the device" />
      </Stack>
    );
  }
  if (!device.data) {
    return (
      <Stack gap="md">
        {back}
        <Skeleton h={40} w="40%" />
        <Skeleton h={200} />
      </Stack>
    );
  }
  const d = device.data;
  const gateway = d.additionalInfo.gateway === true || d.additionalInfo.gateway === 'true';
  const description = typeof d.additionalInfo.description === 'string' ? d.additionalInfo.description : null;

  return (
    <Stack gap="md" data-testid="device-detail" data-following={following}>
      {back}
      <PageHeader
        title={
          <Group gap="sm">
            <span data-testid="device-name">{d.name}</span>
            {gateway && <Badge variant="light">gateway</Badge>}
          </Group>
        }
        description={
          <>
            Profile {d.type}
            {d.label ? ` · ${d.label}` : ''} · created {formatDateTime(d.createdTime)}
            {description && (
              <Text span display="block" size="sm" c="dimmed">
                {description}
              </Text>
            )}
          </>
        }
        actions={
          scope.canEdit && (
            <>
              <Button variant="default" onClick={() => setEditing(true)}>
                Edit
              </Button>
              <Button variant="light" color="red" onClick={() => setDeleting(true)}>
                Delete
              </Button>
            </>
          )
        }
      />
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <DeviceCredentialsCard deviceId={id} />
        <ConnectExamplesCard deviceId={id} />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <DeviceHttpApiCard deviceId={id} />
        <RateLimitCard deviceId={id} />
      </SimpleGrid>
      <TelemetryChartCard deviceId={id} />
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <LatestTelemetryCard deviceId={id} />
        <DeviceAttributesCard deviceId={id} />
      </SimpleGrid>
      <EntityAlarmsCard entity={{ entityType: 'DEVICE', id }} />
      <RelationsCard entity={{ entityType: 'DEVICE', id }} canEdit />
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <RpcConsoleCard deviceId={id} />
        <DeviceClaimCard device={d} />
      </SimpleGrid>
      <DeviceFormModal device={d} opened={editing} onClose={() => setEditing(false)} />
      <DeleteDeviceModal
        device={deleting ? d : null}
        onClose={() => setDeleting(false)}
        onDeleted={() => navigate('/devices', { replace: true })}
      />
    </Stack>
  );
}
