import { Alert, Badge, Button, Card, Code, Group, List, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { NULL_UUID } from '../../../../shared/schemas/common.ts';
import type { ClaimOutcome, Device } from '../../api/client.ts';
import { useClaimDevice, useCurrentUser, useCustomer, useReclaimDevice } from '../../api/hooks.ts';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { navigate } from '../../router.tsx';

const OUTCOMES: Record<ClaimOutcome['response'], { color: string; text: string }> = {
  SUCCESS: { color: 'teal', text: 'Claimed: the device is now your customer’s.' },
  FAILURE: {
    color: 'red',
    text: 'Refused: the secret key is wrong, the claim window has expired, or the device has not allowed claiming.',
  },
  CLAIMED: { color: 'orange', text: 'Refused: the device already belongs to a customer.' },
};

/** A customer user claims a device by its name and the secret key the device announced. */
export function ClaimDeviceForm({
  initialName = '',
  onClaimed,
}: {
  initialName?: string;
  onClaimed?: (d: Device) => void;
}) {
  const claim = useClaimDevice();
  const [deviceName, setDeviceName] = useState(initialName);
  const [secretKey, setSecretKey] = useState('');
  const outcome = claim.data;
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!deviceName.trim()) return;
    claim.mutate(
      { deviceName: deviceName.trim(), secretKey },
      { onSuccess: (o) => o.response === 'SUCCESS' && onClaimed?.(o.device) },
    );
  };
  return (
    <form onSubmit={onSubmit} aria-label="Claim a device" data-testid="claim-form">
      <Stack gap="xs">
        <Group align="flex-end" gap="xs" wrap="wrap">
          <TextInput
            label="Device name"
            required
            value={deviceName}
            onChange={(e) => setDeviceName(e.currentTarget.value)}
            style={{ flex: 1, minWidth: 160 }}
            name="claim-device-name"
          />
          <TextInput
            label="Secret key"
            value={secretKey}
            onChange={(e) => setSecretKey(e.currentTarget.value)}
            style={{ flex: 1, minWidth: 140 }}
            name="claim-secret-key"
            autoComplete="off"
          />
          <Button type="submit" loading={claim.isPending} data-testid="claim-device">
            Claim
          </Button>
        </Group>
        {outcome && (
          <Alert
            color={OUTCOMES[outcome.response].color}
            variant="light"
            data-testid="claim-outcome"
            data-outcome={outcome.response}
            title={outcome.response}
          >
            <Text size="sm">{OUTCOMES[outcome.response].text}</Text>
            {outcome.response === 'SUCCESS' && outcome.device.id.id && (
              <Button
                size="compact-xs"
                variant="subtle"
                mt={4}
                onClick={() => navigate(`/devices/${outcome.device.id.id}`)}
              >
                Open {outcome.device.name}
              </Button>
            )}
          </Alert>
        )}
        <ErrorAlert error={claim.error} title="Could not claim the device" />
      </Stack>
    </form>
  );
}

function HowClaimingWorks() {
  return (
    <List size="sm" type="ordered" spacing={2}>
      <List.Item>
        The device allows claiming: it publishes <Code>{'{"secretKey":"…","durationMs":60000}'}</Code> to{' '}
        <Code>v1/devices/me/claim</Code> over MQTT.
      </List.Item>
      <List.Item>
        Within that time, a customer user claims it by name with the same key (
        <Code>POST /api/customer/device/{'{name}'}/claim</Code>).
      </List.Item>
      <List.Item>
        The device then belongs to the user’s customer; reclaiming gives it back to the tenant.
      </List.Item>
    </List>
  );
}

/**
 * Device claiming: a customer user claims here; a tenant administrator sees how it works, who owns the
 * device, and can reclaim it.
 */
export function DeviceClaimCard({ device }: { device: Device }) {
  const user = useCurrentUser();
  const isAdmin = user.data?.authority === 'TENANT_ADMIN';
  const ownerId = device.customerId.id !== NULL_UUID ? device.customerId.id : undefined;
  const owner = useCustomer(isAdmin ? ownerId : undefined);
  const reclaim = useReclaimDevice();
  const [confirming, setConfirming] = useState(false);

  return (
    <Card withBorder radius="md" p="md" data-testid="claim-card">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={4}>Claiming</Title>
          <Badge variant="light" color={ownerId ? 'blue' : 'gray'} data-testid="claim-state">
            {ownerId ? 'owned by a customer' : 'tenant’s'}
          </Badge>
        </Group>
        {isAdmin ? (
          <>
            <HowClaimingWorks />
            <Text size="sm" data-testid="claim-owner">
              {ownerId ? (
                <>
                  Owned by customer <b>{owner.data?.title ?? ownerId}</b> (claimed or assigned).
                </>
              ) : (
                'No customer owns this device: a customer user can claim it once it has allowed claiming.'
              )}
            </Text>
            <Text size="xs" c="dimmed">
              Whether a claim window is open right now is not shown: the platform keeps announced keys
              private.
            </Text>
          </>
        ) : (
          <>
            <Text size="sm">
              Claim a device that announced a secret key: it then belongs to your customer.
            </Text>
            <ClaimDeviceForm initialName={ownerId ? '' : device.name} />
          </>
        )}
        {ownerId && (
          <Group justify="flex-end">
            <Button
              variant="light"
              color="red"
              size="xs"
              onClick={() => setConfirming(true)}
              data-testid="reclaim"
            >
              Reclaim
            </Button>
          </Group>
        )}
      </Stack>
      <ConfirmModal
        opened={confirming}
        title="Reclaim this device?"
        confirmLabel="Reclaim"
        busy={reclaim.isPending}
        error={reclaim.error}
        onClose={() => setConfirming(false)}
        onConfirm={() =>
          reclaim.mutate(device.name, {
            onSuccess: () => {
              setConfirming(false);
              // a customer user no longer sees a device it gave back
              if (!isAdmin) navigate('/devices', { replace: true });
            },
          })
        }
        testId="confirm-reclaim"
      >
        {`“${device.name}” goes back to the tenant; its customer no longer sees it.`}
      </ConfirmModal>
    </Card>
  );
}
