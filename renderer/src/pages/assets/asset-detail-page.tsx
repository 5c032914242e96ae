import { Anchor, Button, SimpleGrid, Skeleton, Stack } from '@mantine/core';
import { useState } from 'react';
import { useAsset } from '../../api/entities-hooks.ts';
import { useDeviceOwnerScope } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { Link, navigate } from '../../router.tsx';
import { EntityAlarmsCard } from '../alarms/entity-alarms-card.tsx';
import { DeviceAttributesCard } from '../devices/device-attributes-card.tsx';
import { LatestTelemetryCard } from '../devices/latest-telemetry-card.tsx';
import { TelemetryChartCard } from '../devices/telemetry-chart-card.tsx';
import { RelationsCard } from '../relations/relations-card.tsx';
import { AssetFormModal } from './asset-form-modal.tsx';
import { DeleteAssetModal } from './delete-asset-modal.tsx';

export default function AssetDetailPage({ params }: { params: Record<string, string> }) {
  const id = params.id!;
  const asset = useAsset(id);
  const scope = useDeviceOwnerScope();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const back = (
    <Anchor component={Link} to="/assets" size="sm">
      ← Assets
    </Anchor>
  );
  if (asset.error) {
    return (
      <Stack gap="md">
        {back}
        <ErrorAlert error={asset.error} title="Could not load the asset" />
      </Stack>
    );
  }
  if (!asset.data) {
    return (
      <Stack gap="md">
        {back}
        <Skeleton h={40} w="40%" />
        <Skeleton h={200} />
      </Stack>
    );
  }
  const a = asset.data;
  const ref = { entityType: 'ASSET', id };
  return (
    <Stack gap="md" data-testid="asset-detail">
      {back}
      <PageHeader
        title={<span data-testid="asset-name-title">{a.name}</span>}
        description={`Type ${a.type}${a.label ? ` · ${a.label}` : ''} · created ${formatDateTime(a.createdTime)}`}
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
      <EntityAlarmsCard entity={ref} />
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <RelationsCard entity={ref} canEdit />
        <DeviceAttributesCard deviceId={id} entityType="ASSET" />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <LatestTelemetryCard deviceId={id} entityType="ASSET" />
        <TelemetryChartCard deviceId={id} entityType="ASSET" />
      </SimpleGrid>
      <AssetFormModal asset={a} opened={editing} onClose={() => setEditing(false)} />
      <DeleteAssetModal
        asset={deleting ? a : null}
        onClose={() => setDeleting(false)}
        onDeleted={() => navigate('/assets', { replace: true })}
      />
    </Stack>
  );
}
