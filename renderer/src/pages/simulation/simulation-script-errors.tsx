import { Badge, Card, Code, Group, Table, Text, Title } from '@mantine/core';
import type { SimulationStatus } from '../../api/client.ts';
import { formatNumber, formatTime } from '../../components/format.ts';

/** The devices' script errors of the run: which device, which hook, which line, and whether it stopped. */
export function ScriptErrorsCard({ status }: { status: SimulationStatus }) {
  const errors = status.scriptErrors;
  if (errors.length === 0 && status.counters.scriptErrors === 0) return null;
  const stopped = status.gatewayStatus.reduce((n, g) => n + g.scriptedDevicesStopped, 0);
  return (
    <Card withBorder radius="md" p="md" data-testid="script-errors">
      <Group justify="space-between" mb="xs">
        <Title order={5}>Script errors</Title>
        <Text size="xs" c="dimmed">
          {formatNumber(status.counters.scriptErrors)} error(s) in {formatNumber(status.counters.scriptCalls)}{' '}
          hook calls · {formatNumber(stopped)} device(s) stopped · the last 100, newest first
        </Text>
      </Group>
      <Table verticalSpacing={4} style={{ tableLayout: 'fixed' }}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={90}>Time</Table.Th>
            <Table.Th w="22%">Device</Table.Th>
            <Table.Th w={110}>Hook</Table.Th>
            <Table.Th w={60}>Line</Table.Th>
            <Table.Th>Error</Table.Th>
            <Table.Th w={90}>Then</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {errors.map((e) => (
            <Table.Tr
              key={e.seq}
              data-testid="script-error"
              data-device={e.device ?? ''}
              data-line={e.line ?? ''}
            >
              <Table.Td>
                <Text size="sm">{formatTime(e.ts)}</Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm" truncate="end" title={e.device ?? `every device of ${e.gateway}`}>
                  {e.device ?? `every device of ${e.gateway}`}
                </Text>
              </Table.Td>
              <Table.Td>{e.hook ? <Code>{e.hook}</Code> : <Text size="sm">loading</Text>}</Table.Td>
              <Table.Td>
                <Text size="sm">{e.line ?? '—'}</Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                  {e.message}
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge variant="light" color={e.stopped ? 'red' : 'orange'}>
                  {e.stopped ? 'stopped' : 'skipped'}
                </Badge>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}
