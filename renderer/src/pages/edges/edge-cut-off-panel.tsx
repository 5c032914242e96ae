import { Alert, Badge, Button, Group, NumberInput, Progress, Stack, Table, Text } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import {
  EDGE_SIMULATOR_LIMITS,
  type EdgeCutOff,
  type EdgeReceiveFaults,
  type EdgeSeqList,
} from '../../../../shared/schemas/edge-simulator.ts';
import type { EdgeSimulatorSummary } from '../../api/client.ts';
import { useCutOffEdgeSimulator, usePauseEdgeSimulator, useSetEdgeSimulatorFaults } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatNumber, formatTime } from '../../components/format.ts';

const FAULTS = [
  { key: 'drop', label: 'Lose', note: 'acknowledged, then lost' },
  { key: 'duplicate', label: 'Duplicate', note: 'handled twice' },
  { key: 'reorder', label: 'Reorder', note: 'swapped with the next' },
] as const;

/** "#4, #5, #9 and 12 more" */
function SeqIds({ list }: { list: EdgeSeqList }) {
  if (list.count === 0) return <Text size="sm">none</Text>;
  const more = list.count - list.edgeSeqs.length;
  return (
    <Text size="sm" ff="monospace" style={{ wordBreak: 'break-word' }}>
      {list.edgeSeqs.map((n) => `#${n}`).join(', ')}
      {more > 0 && ` and ${formatNumber(more)} more`}
    </Text>
  );
}

function Verdict({ cutOff }: { cutOff: EdgeCutOff }) {
  const v = cutOff.verdict;
  if (!v) {
    const expected = cutOff.toEdgeSeq === null ? null : cutOff.toEdgeSeq - cutOff.afterEdgeSeq;
    return (
      <Stack gap={4} data-testid="edge-cut-off-progress">
        <Text size="sm">
          {cutOff.phase === 'cutOff'
            ? `Cut off since ${formatTime(cutOff.startedTime)}; reconnects at ${formatTime(cutOff.untilTime)}. Events queue up meanwhile.`
            : `Reconnected: ${formatNumber(cutOff.receivedSinceReconnect)}${expected === null ? '' : ` of ${formatNumber(expected)}`} queued events received.`}
        </Text>
        {expected !== null && expected > 0 && (
          <Progress value={Math.min(100, (cutOff.receivedSinceReconnect / expected) * 100)} size="sm" />
        )}
      </Stack>
    );
  }
  const rows = [
    { label: 'Missing', list: v.missing, id: 'missing' },
    { label: 'Duplicated', list: v.duplicated, id: 'duplicated' },
    { label: 'Out of order', list: v.outOfOrder, id: 'out-of-order' },
  ];
  const span = v.expected === 0 ? 'no event was queued' : `events #${v.fromEdgeSeq} to #${v.toEdgeSeq}`;
  return (
    <Alert
      color={v.clean ? 'teal' : 'red'}
      variant="light"
      title={
        v.clean
          ? `Clean: all ${formatNumber(v.expected)} events arrived exactly once, in order`
          : `Not clean: ${rows
              .filter((r) => r.list.count > 0)
              .map((r) => `${formatNumber(r.list.count)} ${r.label.toLowerCase()}`)
              .join(', ')}`
      }
      data-testid="edge-cut-off-verdict"
      data-verdict={v.clean ? 'clean' : 'faulty'}
    >
      <Text size="xs" c="dimmed">
        Checked {span} (the edge’s own numbers), {formatNumber(v.received)} arrivals
        {v.unchecked > 0 && `; ${formatNumber(v.unchecked)} later events not checked`}. Verdict at{' '}
        {formatTime(cutOff.doneTime ?? 0)}.
      </Text>
      {!v.clean && (
        <Table verticalSpacing={2} mt="xs">
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={r.id} data-testid={`edge-verdict-${r.id}`}>
                <Table.Td style={{ whiteSpace: 'nowrap', verticalAlign: 'top' }}>
                  <Text size="sm" fw={600}>
                    {r.label} ({formatNumber(r.list.count)})
                  </Text>
                </Table.Td>
                <Table.Td>
                  <SeqIds list={r.list} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Alert>
  );
}

function FaultsForm({ summary }: { summary: EdgeSimulatorSummary }) {
  const setFaults = useSetEdgeSimulatorFaults();
  const [values, setValues] = useState<Record<string, number | string>>(() =>
    Object.fromEntries(FAULTS.map((f) => [f.key, Math.round((summary.faults[f.key] ?? 0) * 100)])),
  );
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const faults: EdgeReceiveFaults = {};
    for (const f of FAULTS) {
      const v = values[f.key];
      if (typeof v === 'number' && v > 0) faults[f.key] = Math.min(100, v) / 100;
    }
    setFaults.mutate({ id: summary.id, faults });
  };
  const active = FAULTS.filter((f) => (summary.faults[f.key] ?? 0) > 0);
  return (
    <form onSubmit={onSubmit} data-testid="edge-sim-faults">
      <Stack gap={4}>
        <Group gap="xs">
          <Text size="sm" fw={600}>
            Receiving-side faults
          </Text>
          <Text size="xs" c="dimmed">
            test hooks: give the verdict something to find
          </Text>
          {active.map((f) => (
            <Badge key={f.key} size="xs" color="orange" variant="light">
              {f.label.toLowerCase()} {Math.round((summary.faults[f.key] ?? 0) * 100)}%
            </Badge>
          ))}
        </Group>
        <Group align="flex-end" gap="xs">
          {FAULTS.map((f) => (
            <NumberInput
              key={f.key}
              label={`${f.label} (%)`}
              description={f.note}
              min={0}
              max={100}
              w={150}
              value={values[f.key]}
              onChange={(v) => setValues((old) => ({ ...old, [f.key]: v }))}
              data-testid={`edge-sim-fault-${f.key}`}
            />
          ))}
          <Button
            type="submit"
            variant="default"
            loading={setFaults.isPending}
            data-testid="apply-edge-sim-faults"
          >
            Apply faults
          </Button>
        </Group>
        <ErrorAlert error={setFaults.error} />
      </Stack>
    </form>
  );
}

/**
 * Cut the simulated edge off for a while; on reconnect it checks that every event queued meanwhile arrives
 * exactly once and in order, and the verdict names the events that did not.
 */
export function EdgeCutOffPanel({ summary }: { summary: EdgeSimulatorSummary }) {
  const cutOff = useCutOffEdgeSimulator();
  const reconnect = usePauseEdgeSimulator();
  const [seconds, setSeconds] = useState<number | string>(10);
  const isCutOff = summary.state === 'cutOff';
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (typeof seconds !== 'number') return;
    cutOff.mutate({ id: summary.id, durationMs: Math.round(seconds * 1000) });
  };
  return (
    <Stack gap="xs" data-testid="edge-cut-off">
      <Text size="sm" fw={600}>
        Cut-off check
      </Text>
      <form onSubmit={onSubmit}>
        <Group align="flex-end" gap="xs">
          <NumberInput
            label="Cut off for (s)"
            description="then it reconnects by itself"
            min={0.1}
            max={EDGE_SIMULATOR_LIMITS.cutOffMs / 1000}
            decimalScale={1}
            w={180}
            value={seconds}
            onChange={setSeconds}
            data-testid="edge-cut-off-seconds"
          />
          <Button
            type="submit"
            color="orange"
            variant="light"
            loading={cutOff.isPending}
            disabled={isCutOff || summary.state === 'error' || typeof seconds !== 'number'}
            data-testid="cut-off-edge"
          >
            Cut off
          </Button>
          {isCutOff && (
            <Button
              variant="default"
              loading={reconnect.isPending}
              onClick={() => reconnect.mutate({ id: summary.id, pause: false })}
              data-testid="reconnect-edge"
            >
              Reconnect now
            </Button>
          )}
        </Group>
      </form>
      <ErrorAlert error={cutOff.error ?? reconnect.error} />
      {summary.cutOff && <Verdict cutOff={summary.cutOff} />}
      <FaultsForm summary={summary} />
    </Stack>
  );
}
