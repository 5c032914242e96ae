import { Card, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useDeviceCredentials } from '../../api/hooks.ts';
import { CopyValue } from '../../components/copy-value.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';

/** The device's access token, the secret it connects with. */
export function DeviceCredentialsCard({ deviceId }: { deviceId: string }) {
  const credentials = useDeviceCredentials(deviceId);
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="xs">
        <Title order={4}>Credentials</Title>
        <Text size="sm" c="dimmed">
          Access token: the device's MQTT username and its key in the device HTTP API.
        </Text>
        <ErrorAlert error={credentials.error} title="Could not load the credentials" />
        {credentials.data ? (
          <CopyValue value={credentials.data.credentialsId} label="Copy access token" testId="access-token" />
        ) : (
          !credentials.error && <Skeleton h={24} />
        )}
      </Stack>
    </Card>
  );
}
