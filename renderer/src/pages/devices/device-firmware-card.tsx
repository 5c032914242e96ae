import { Badge, Card, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useLatestTelemetry } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';

const KEYS = [
  ['Target', 'target_fw_title', 'target_fw_version'],
  ['Running', 'current_fw_title', 'current_fw_version'],
] as const;

/** A device's firmware update as it reports it (fw_state, fw_error, current_fw_*), following live telemetry. */
export function DeviceFirmwareCard({ deviceId }: { deviceId: string }) {
  const latest = useLatestTelemetry(deviceId);
  const value = (key: string) => latest.data?.[key]?.[0]?.value;
  const state = value('fw_state');
  const error = value('fw_error');
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={4}>Firmware</Title>
          {state !== undefined && (
            <Badge
              color={state === 'UPDATED' ? 'green' : state === 'FAILED' ? 'red' : 'blue'}
              data-testid="fw-state"
            >
              {String(state)}
            </Badge>
          )}
        </Group>
        <ErrorAlert error={latest.error} title="Could not load the telemetry" />
        {state === undefined ? (
          <Text size="sm" c="dimmed">
            No update yet: give the device or its profile a package on the OTA page.
          </Text>
        ) : (
          <Table>
            <Table.Tbody>
              {KEYS.map(([label, title, version]) => (
                <Table.Tr key={label}>
                  <Table.Td>{label}</Table.Td>
                  <Table.Td>
                    {String(value(title) ?? '—')} {String(value(version) ?? '')}
                  </Table.Td>
                </Table.Tr>
              ))}
              {state === 'FAILED' && (
                <Table.Tr>
                  <Table.Td>Error</Table.Td>
                  <Table.Td c="red">{String(error ?? 'unknown')}</Table.Td>
                </Table.Tr>
              )}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
    </Card>
  );
}
