import { Anchor, Card, Group, Progress, SimpleGrid, Table, Text, Title } from '@mantine/core';
import type { SimulationStatus } from '../../api/client.ts';
import { formatNumber } from '../../components/format.ts';
import { StatTile } from '../../components/stat-tile.tsx';
import { Link } from '../../router.tsx';

/** The run's devices that update themselves: connected, updated, failed (and why), still at it. */
export function OtaRunCard({ status }: { status: SimulationStatus }) {
  const ota = status.ota;
  if (!ota) return null;
  const busy = ota.devices - ota.updated - ota.failed - (ota.states.IDLE ?? 0);
  const pct = (n: number) => (ota.devices ? (n / ota.devices) * 100 : 0);
  const reasons = Object.entries(ota.failedByReason).sort((a, b) => b[1] - a[1]);
  return (
    <Card withBorder radius="md" p="md" data-testid="simulation-ota">
      <Group justify="space-between" mb="xs">
        <Title order={5}>OTA devices</Title>
        <Text size="xs" c="dimmed">
          Assign a package to their profile on the{' '}
          <Anchor component={Link} to="/ota" size="xs">
            OTA updates page
          </Anchor>
          ; {formatNumber(ota.failingOnPurpose)} fail on purpose
        </Text>
      </Group>
      <SimpleGrid cols={{ base: 2, sm: 5 }} mb="sm">
        <StatTile
          label="Connected"
          value={`${formatNumber(ota.connected)} / ${formatNumber(ota.devices)}`}
          testId="ota-connected"
        />
        <StatTile label="Waiting" value={formatNumber(ota.states.IDLE ?? 0)} testId="ota-waiting" />
        <StatTile label="Updating" value={formatNumber(busy)} testId="ota-busy" />
        <StatTile label="Updated" value={formatNumber(ota.updated)} testId="ota-updated" color="teal" />
        <StatTile
          label="Failed"
          value={formatNumber(ota.failed)}
          testId="ota-failed"
          color={ota.failed ? 'red' : undefined}
        />
      </SimpleGrid>
      <Progress.Root size="lg">
        <Progress.Section value={pct(ota.updated)} color="teal" aria-label="Updated" />
        <Progress.Section value={pct(ota.failed)} color="red" aria-label="Failed" />
        <Progress.Section value={pct(busy)} color="blue" aria-label="Updating" />
      </Progress.Root>
      {reasons.length > 0 && (
        <Table mt="sm" verticalSpacing={4} data-testid="ota-run-failures">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Failure (fw_error)</Table.Th>
              <Table.Th w={100}>Devices</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {reasons.map(([reason, n]) => (
              <Table.Tr key={reason}>
                <Table.Td>{reason}</Table.Td>
                <Table.Td>{formatNumber(n)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}
