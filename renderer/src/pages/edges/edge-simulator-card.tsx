import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  NumberInput,
  PasswordInput,
  ScrollArea,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { EDGE_SIMULATOR_DEFAULTS } from '../../../../shared/schemas/edge-simulator.ts';
import type { Edge, EdgeSimulatorSummary } from '../../api/client.ts';
import {
  useEdgeSecret,
  useEdgeDevices,
  useEdgeSimulator,
  useEdgeSimulators,
  usePauseEdgeSimulator,
  useSetEdgeSimulatorRate,
  useStartEdgeSimulator,
  useStopEdgeSimulator,
} from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatNumber, formatTime } from '../../components/format.ts';
import { StatTile } from '../../components/stat-tile.tsx';
import { EdgeCutOffPanel } from './edge-cut-off-panel.tsx';

const STATE_COLORS = { running: 'teal', paused: 'yellow', cutOff: 'orange', error: 'red' } as const;

function StartForm({ edge }: { edge: Edge }) {
  const remembered = useEdgeSecret(edge.id.id);
  const start = useStartEdgeSimulator();
  const [secret, setSecret] = useState(remembered ?? '');
  const [rate, setRate] = useState<number | string>(EDGE_SIMULATOR_DEFAULTS.ratePerSec);
  const [batch, setBatch] = useState<number | string>(EDGE_SIMULATOR_DEFAULTS.batchSize);
  useEffect(() => {
    if (remembered) setSecret((s) => s || remembered);
  }, [remembered]);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!secret) return;
    start.mutate({
      edgeId: edge.id.id,
      secret,
      ratePerSec: typeof rate === 'number' ? rate : EDGE_SIMULATOR_DEFAULTS.ratePerSec,
      batchSize: typeof batch === 'number' ? batch : EDGE_SIMULATOR_DEFAULTS.batchSize,
    });
  };
  return (
    <form onSubmit={onSubmit} data-testid="edge-simulator-start">
      <Stack gap="xs">
        <Text size="sm">
          A simulated edge pulls this edge’s queue over the real HTTP edge API (
          <code>/api/edge/queue/pull</code>) and acknowledges what it receives, at the rate you choose.
        </Text>
        <PasswordInput
          label="Edge secret"
          description={
            remembered
              ? 'Kept in memory since this edge was created'
              : 'Shown once when the edge was created; paste it here'
          }
          required
          value={secret}
          onChange={(e) => setSecret(e.currentTarget.value)}
          autoComplete="off"
        />
        <Group grow align="flex-start">
          <NumberInput
            label="Rate (events/s)"
            description="0: as fast as possible"
            min={0}
            value={rate}
            onChange={setRate}
          />
          <NumberInput
            label="Batch size"
            description="events per pull at most"
            min={1}
            allowDecimal={false}
            value={batch}
            onChange={setBatch}
          />
        </Group>
        <ErrorAlert error={start.error} title="Could not start the simulated edge" />
        <Group justify="flex-end">
          <Button
            type="submit"
            loading={start.isPending}
            disabled={!secret}
            data-testid="start-edge-simulator"
          >
            Start simulated edge
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function RunningSimulator({ summary }: { summary: EdgeSimulatorSummary }) {
  const pause = usePauseEdgeSimulator();
  const setRate = useSetEdgeSimulatorRate();
  const stop = useStopEdgeSimulator();
  // once stopping, it is gone: not asked for again
  const details = useEdgeSimulator(stop.isIdle || stop.isError ? summary.id : undefined);
  const s = details.data ?? summary;
  const [rate, setRateInput] = useState<number | string>(s.ratePerSec);
  const c = s.counters;
  const paused = s.state === 'paused';
  const events = details.data?.recentEvents ?? [];
  const devices = useEdgeDevices(summary.edgeId);
  const names = new Map((devices.data?.data ?? []).map((d) => [d.id.id, d.name]));
  return (
    <Stack gap="sm" data-testid="edge-simulator" data-state={s.state}>
      <Group justify="space-between">
        <Group gap="xs">
          <Badge variant="light" color={STATE_COLORS[s.state]} data-testid="edge-simulator-state">
            {s.state === 'cutOff' ? 'cut off' : s.state}
          </Badge>
          <Text size="xs" c="dimmed">
            {s.ratePerSec === 0 ? 'unlimited rate' : `${formatNumber(s.ratePerSec)} events/s at most`} ·
            batches of {formatNumber(s.batchSize)}
          </Text>
        </Group>
        <Group gap="xs">
          <Button
            size="xs"
            variant="light"
            color={paused ? 'teal' : 'yellow'}
            loading={pause.isPending}
            onClick={() => pause.mutate({ id: s.id, pause: !paused })}
            disabled={s.state === 'error'}
            data-testid="pause-edge-simulator"
          >
            {paused ? 'Resume' : 'Pause'}
          </Button>
          <Button
            size="xs"
            variant="subtle"
            color="red"
            loading={stop.isPending}
            onClick={() => stop.mutate(s.id)}
            data-testid="stop-edge-simulator"
          >
            Stop
          </Button>
        </Group>
      </Group>
      {s.lastError && (
        <Alert color="red" variant="light" title="Stopped by an error">
          {s.lastError}
        </Alert>
      )}
      <ErrorAlert error={pause.error ?? setRate.error ?? stop.error ?? details.error} />
      <SimpleGrid cols={{ base: 2, sm: 3 }}>
        <StatTile label="Pulled" value={formatNumber(c.pulled)} testId="edge-sim-pulled" />
        <StatTile label="Acknowledged" value={formatNumber(c.acknowledged)} testId="edge-sim-acknowledged" />
        <StatTile label="Events / s" value={c.eventsPerSec.toFixed(1)} note="last 5 s" />
        <StatTile label="Duplicates" value={formatNumber(c.duplicates)} note="same uid again, dropped" />
        <StatTile label="Last seqId" value={c.lastSeqId === null ? '—' : String(c.lastSeqId)} />
        <StatTile label="Errors" value={formatNumber(c.errors)} color={c.errors ? 'red' : undefined} />
      </SimpleGrid>
      <Group align="flex-end" gap="xs">
        <NumberInput
          label="Rate (events/s)"
          description="0: unlimited"
          min={0}
          value={rate}
          onChange={setRateInput}
          w={180}
          data-testid="edge-sim-rate"
        />
        <Button
          variant="default"
          disabled={typeof rate !== 'number' || rate === s.ratePerSec}
          loading={setRate.isPending}
          onClick={() => typeof rate === 'number' && setRate.mutate({ id: s.id, body: { ratePerSec: rate } })}
          data-testid="apply-edge-sim-rate"
        >
          Change rate
        </Button>
      </Group>
      <EdgeCutOffPanel summary={s} />
      <Text size="sm" fw={600}>
        Recent events received
      </Text>
      {events.length === 0 ? (
        <Text size="sm" c="dimmed">
          None yet.
        </Text>
      ) : (
        <ScrollArea.Autosize
          mah={260}
          viewportProps={{ tabIndex: 0, 'aria-label': 'Recent events received' }}
        >
          <Table verticalSpacing={2} data-testid="edge-sim-events">
            <Table.Tbody>
              {events.slice(0, 50).map((e) => (
                <Table.Tr key={`${e.seqId}-${e.receivedTime}`}>
                  <Table.Td>
                    <Text size="xs" ff="monospace" title={`seqId ${e.seqId} (shared by every edge)`}>
                      #{e.edgeSeq}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs">{e.action}</Text>
                    <Text size="xs" c="dimmed" title={e.entityId} data-testid="edge-sim-event-entity">
                      {e.type} {names.get(e.entityId) ?? `${e.entityId.slice(0, 8)}…`}
                    </Text>
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    <Text size="xs" c="dimmed">
                      {formatTime(e.receivedTime)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    {e.duplicate && (
                      <Badge size="xs" color="orange" variant="light">
                        duplicate
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td style={{ width: '50%' }}>
                    <Text size="xs" ff="monospace" lineClamp={1} style={{ wordBreak: 'break-all' }}>
                      {JSON.stringify(e.body)}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea.Autosize>
      )}
    </Stack>
  );
}

/** The simulated edge of this edge: start it with a rate, pause it to see the queue grow, change its rate. */
export function EdgeSimulatorCard({ edge }: { edge: Edge }) {
  const simulators = useEdgeSimulators();
  const mine = simulators.data?.find((s) => s.edgeId === edge.id.id);
  return (
    <Card withBorder radius="md" p="md" data-testid="edge-simulator-card">
      <Stack gap="sm">
        <Title order={5}>Simulated edge</Title>
        <ErrorAlert error={simulators.error} title="Could not load the simulated edges" />
        {mine ? (
          <RunningSimulator key={mine.id} summary={mine} />
        ) : (
          simulators.data && <StartForm edge={edge} />
        )}
      </Stack>
    </Card>
  );
}
