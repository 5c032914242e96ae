import { Card, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useLatestTelemetry } from '../../api/hooks.ts';
import { KeyValue } from '../../components/key-value.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime } from '../../components/format.ts';

/** The newest value of every time series key; updated live (a device's). */
export function LatestTelemetryCard({
  deviceId,
  entityType = 'DEVICE',
}: {
  deviceId: string;
  entityType?: string;
}) {
  const latest = useLatestTelemetry(deviceId, entityType);
  const rows = Object.entries(latest.data ?? {})
    .map(([key, points]) => ({ key, point: points[0] }))
    .filter((r) => r.point !== undefined)
    .sort((a, b) => a.key.localeCompare(b.key));
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="xs">
        <Title order={4}>Latest telemetry</Title>
        <ErrorAlert error={latest.error} title="Could not load the latest telemetry" />
        {!latest.data && !latest.error && <Skeleton h={60} />}
        {latest.data && rows.length === 0 && (
          <Text size="sm" c="dimmed">
            {entityType === 'DEVICE'
              ? 'No telemetry yet. Send some with one of the commands above.'
              : 'No telemetry yet: POST it to /api/plugins/telemetry/' +
                entityType +
                '/' +
                deviceId +
                '/timeseries/ANY.'}
          </Text>
        )}
        {rows.length > 0 && (
          <Table.ScrollContainer minWidth={360}>
            <Table verticalSpacing={6} data-testid="latest-telemetry">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Key</Table.Th>
                  <Table.Th>Value</Table.Th>
                  <Table.Th>Time</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map(({ key, point }) => (
                  <Table.Tr key={key} data-key={key}>
                    <Table.Td ff="monospace">{key}</Table.Td>
                    <Table.Td ff="monospace" style={{ wordBreak: 'break-all' }}>
                      <KeyValue name={key} value={point!.value} />
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs" c="dimmed">
                        {formatDateTime(point!.ts)}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
    </Card>
  );
}
