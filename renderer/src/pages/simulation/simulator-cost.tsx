import { Card, Table, Text, Title } from '@mantine/core';
import type { SimulationStatus } from '../../api/client.ts';
import { formatNumber } from '../../components/format.ts';

const micros = (v: number | null) => (v === null ? '–' : `${v.toFixed(1)} µs`);

/** What driving the fleet costs the simulator's own threads: CPU now, and per publish and value. */
export function SimulatorCostCard({ status }: { status: SimulationStatus }) {
  const cost = status.cost;
  if (!cost) return null;
  const threads = cost.workers ? cost.threads.filter((t) => t.thread !== 'main') : cost.threads;
  return (
    <Card withBorder radius="md" p="md">
      <Title order={5} mb="xs">
        Simulator cost
      </Title>
      <Text size="xs" c="dimmed" mb="xs">
        {cost.workers
          ? `The gateways run in ${cost.workers} worker threads, off the platform's event loop.`
          : cost.sharedWithPlatform
            ? "The gateways run in the platform's own thread: its CPU here includes the platform's."
            : 'The gateways run in the main thread.'}{' '}
        A thread near 100% of a core is the bound: add worker threads (up to one per core) or machines.
      </Text>
      <Table.ScrollContainer minWidth={560}>
        <Table verticalSpacing={4} data-testid="simulator-cost">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Thread</Table.Th>
              <Table.Th ta="right">Gateways</Table.Th>
              <Table.Th ta="right">Publishes</Table.Th>
              <Table.Th ta="right">Values</Table.Th>
              <Table.Th ta="right">CPU now</Table.Th>
              <Table.Th ta="right">CPU per publish</Table.Th>
              <Table.Th ta="right">CPU per value</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {threads.map((t) => (
              <Table.Tr key={t.thread} data-testid="simulator-thread">
                <Table.Td>{t.thread}</Table.Td>
                <Table.Td ta="right">{formatNumber(t.gateways)}</Table.Td>
                <Table.Td ta="right">{formatNumber(t.sent)}</Table.Td>
                <Table.Td ta="right">{formatNumber(t.datapoints)}</Table.Td>
                <Table.Td ta="right">{`${t.cpuPct.toFixed(0)}%`}</Table.Td>
                <Table.Td ta="right">{micros(t.cpuUsPerPublish)}</Table.Td>
                <Table.Td ta="right">{micros(t.cpuUsPerValue)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Card>
  );
}
