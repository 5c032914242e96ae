import { Badge, Card, Code, Group, Table, Text, Title, Tooltip } from '@mantine/core';
import { FAILURE_REASONS, FAULT_ANSWERS, type FaultMarker } from '../../../../shared/schemas/simulation.ts';
import type { SimulationStatus } from '../../api/client.ts';
import { formatNumber, formatTime } from '../../components/format.ts';

const answerLabel = (a: string) => FAULT_ANSWERS[a] ?? FAILURE_REASONS[a] ?? 'Other answer';

/** The scenario's faults: whom each hit, how often, and what the platform answered. */
export function FaultsCard({ status }: { status: SimulationStatus }) {
  if (status.faults.length === 0) return null;
  const lastStart = new Map<number, FaultMarker>();
  for (const m of [...status.faultMarkers].reverse()) if (m.phase === 'start') lastStart.set(m.index, m);
  return (
    <Card withBorder radius="md" p="md">
      <Group justify="space-between" mb="xs">
        <Title order={5}>Faults injected</Title>
        <Text size="xs" c="dimmed">
          injected against what the platform answered
        </Text>
      </Group>
      <Table verticalSpacing={4} data-testid="fault-counters">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Fault</Table.Th>
            <Table.Th>Hits</Table.Th>
            <Table.Th>Last started</Table.Th>
            <Table.Th ta="right">Injected</Table.Th>
            <Table.Th>Platform answered</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {status.faults.map((f) => (
            <Table.Tr key={f.index} data-testid="fault-row" data-kind={f.kind} data-injected={f.injected}>
              <Table.Td>
                <Code>{f.kind}</Code>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{f.target}</Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{lastStart.has(f.index) ? formatTime(lastStart.get(f.index)!.ts) : '—'}</Text>
              </Table.Td>
              <Table.Td ta="right">{formatNumber(f.injected)}</Table.Td>
              <Table.Td>
                <Group gap={4}>
                  {Object.entries(f.answers).map(([answer, n]) => (
                    <Tooltip key={answer} label={answerLabel(answer)}>
                      <Badge
                        variant="light"
                        color={answer === 'acknowledged' || answer === 'reconnected' ? 'teal' : 'orange'}
                        data-testid="fault-answer"
                        data-answer={answer}
                      >
                        {answer} {formatNumber(n)}
                      </Badge>
                    </Tooltip>
                  ))}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}
