import { Anchor, Badge, Group, Skeleton, Stack } from '@mantine/core';
import { useCurrentUser } from '../../api/hooks.ts';
import { useDeviceProfile } from '../../api/transport-hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { Link } from '../../router.tsx';
import type { PageParams } from '../../shell/page-catalog.ts';
import { CalculatedFieldsCard } from '../calculated-fields/calculated-fields-card.tsx';
import { AlarmRulesCard } from './alarm-rules-card.tsx';
import { ProfileGeneralCard } from './profile-general-card.tsx';
import { ProvisioningCard } from './provisioning-card.tsx';

/**
 * One device profile as a column of cards, each saving its own part of the profile (general,
 * provisioning, alarm rules; others can be added as cards of the same shape).
 */
export default function DeviceProfileDetailPage({ params }: { params: PageParams }) {
  const id = params.id!;
  const profile = useDeviceProfile(id);
  const user = useCurrentUser();
  const canEdit = user.data?.authority === 'TENANT_ADMIN';
  const back = (
    <Anchor component={Link} to="/device-profiles" size="sm">
      ← Device profiles
    </Anchor>
  );
  if (profile.error)
    return (
      <Stack gap="md">
        {back}
        <ErrorAlert error={profile.error} title="Could not load the device profile" />
      </Stack>
    );
  if (!profile.data)
    return (
      <Stack gap="md">
        {back}
        <Skeleton h={40} w="40%" />
        <Skeleton h={200} />
      </Stack>
    );
  const p = profile.data;
  return (
    <Stack gap="md" data-testid="device-profile-detail">
      {back}
      <PageHeader
        title={
          <Group gap="sm">
            <span data-testid="profile-name">{p.name}</span>
            {p.default && <Badge variant="light">default</Badge>}
          </Group>
        }
        description={`Created ${formatDateTime(p.createdTime)}`}
      />
      <ProfileGeneralCard profile={p} canEdit={canEdit} />
      <ProvisioningCard profile={p} canEdit={canEdit} />
      <AlarmRulesCard profile={p} canEdit={canEdit} />
      <CalculatedFieldsCard entity={{ entityType: 'DEVICE_PROFILE', id: p.id.id }} canEdit={canEdit} />
    </Stack>
  );
}
