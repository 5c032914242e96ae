import { Card, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useDeviceCredentials } from '../../api/hooks.ts';
import { CopyValue } from '../../components/copy-value.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';

function basicCredentials(value: string | null): Record<'clientId' | 'userName' | 'password', string | null> {
  try {
    const v = JSON.parse(value ?? '{}') as Record<string, unknown>;
    const s = (x: unknown) => (typeof x === 'string' && x !== '' ? x : null);
    return { clientId: s(v.clientId), userName: s(v.userName), password: s(v.password) };
  } catch {
    return { clientId: null, userName: null, password: null };
  }
}

/** The device's credentials: its access token, or the MQTT basic credentials it connects with. */
export function DeviceCredentialsCard({ deviceId }: { deviceId: string }) {
  const credentials = useDeviceCredentials(deviceId);
  const c = credentials.data;
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="xs">
        <Title order={4}>Credentials</Title>
        <ErrorAlert error={credentials.error} title="Could not load the credentials" />
        {!c ? (
          !credentials.error && <Skeleton h={24} />
        ) : c.credentialsType === 'MQTT_BASIC' ? (
          <>
            <Text size="sm" c="dimmed">
              MQTT basic: the device connects with these client id, user name and password.
            </Text>
            <Table variant="vertical" layout="fixed">
              <Table.Tbody>
                {Object.entries(basicCredentials(c.credentialsValue)).map(([k, v]) => (
                  <Table.Tr key={k}>
                    <Table.Th w={120}>{k}</Table.Th>
                    <Table.Td>
                      {v ? <CopyValue value={v} label={`Copy ${k}`} testId={`basic-${k}`} /> : '—'}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </>
        ) : (
          <>
            <Text size="sm" c="dimmed">
              Access token: the device&apos;s MQTT username and its key in the device HTTP API.
            </Text>
            <CopyValue value={c.credentialsId} label="Copy access token" testId="access-token" />
          </>
        )}
      </Stack>
    </Card>
  );
}
