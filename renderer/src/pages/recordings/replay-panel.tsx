import {
  Badge,
  Button,
  Card,
  Code,
  Group,
  NumberInput,
  Progress,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { ReplayCheck, ReplayRun, ReplaySpeed } from '../../../../shared/schemas/replay.ts';
import { useReplayRun, useStartReplay, useStopReplay } from '../../api/replay-hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDuration, formatNumber } from '../../components/format.ts';
import { StatTile } from '../../components/stat-tile.tsx';

/** What to replay: a saved recording (by id) or a file's text. */
export interface ReplaySource {
  name: string;
  recordingId?: string;
  file?: string;
}

const SPEEDS = [
  { value: 'max', label: 'As fast as it takes (max)' },
  { value: '1', label: 'Real time (1x)' },
  { value: '2', label: '2x' },
  { value: '10', label: '10x' },
  { value: '100', label: '100x' },
];

const STATE_COLORS: Record<string, string> = {
  running: 'blue',
  passed: 'green',
  failed: 'red',
  error: 'red',
  stopped: 'gray',
};

const json = (v: unknown) => (v === undefined || v === null ? '—' : JSON.stringify(v, null, 2));

function ReplayProgressCard({ run }: { run: ReplayRun }) {
  const p = run.progress;
  const sentPct = p.messagesTotal ? (p.messagesSent / p.messagesTotal) * 100 : 100;
  const checked = p.checksPassed + p.checksFailed + p.checksSkipped;
  const checkedPct = p.checksTotal ? (checked / p.checksTotal) * 100 : 0;
  return (
    <Stack gap="sm" data-testid="replay-progress">
      <Group justify="space-between">
        <Text size="sm">
          {run.recording} · speed {run.speed} · {formatDuration(p.durationMs)}
        </Text>
        <Badge color={STATE_COLORS[p.state]} data-testid="replay-state">
          {p.state}
        </Badge>
      </Group>
      <Progress.Root size="xl" aria-label="replay progress">
        <Progress.Section value={sentPct} color="blue">
          <Progress.Label>sent</Progress.Label>
        </Progress.Section>
      </Progress.Root>
      {p.checksTotal > 0 && (
        <Progress.Root size="lg" aria-label="checks">
          <Progress.Section value={(p.checksPassed / p.checksTotal) * 100} color="green" />
          <Progress.Section value={(p.checksFailed / p.checksTotal) * 100} color="red" />
          <Progress.Section
            value={checkedPct - ((p.checksPassed + p.checksFailed) / p.checksTotal) * 100}
            color="gray"
          />
        </Progress.Root>
      )}
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        <StatTile
          label="Messages sent"
          value={`${formatNumber(p.messagesSent)} / ${formatNumber(p.messagesTotal)}`}
          testId="replay-sent"
        />
        <StatTile
          label="Checks passed"
          value={formatNumber(p.checksPassed)}
          color="green"
          testId="replay-passed"
        />
        <StatTile
          label="Checks failed"
          value={formatNumber(p.checksFailed)}
          color={p.checksFailed ? 'red' : undefined}
          testId="replay-failed"
        />
        <StatTile
          label="Checks in all"
          value={formatNumber(p.checksTotal)}
          note={p.checksSkipped ? `${p.checksSkipped} skipped` : undefined}
        />
      </SimpleGrid>
      {p.error && <ErrorAlert error={new Error(p.error)} title="The replay stopped" />}
    </Stack>
  );
}

function CheckRow({ check }: { check: ReplayCheck }) {
  return (
    <Table.Tr data-testid="replay-check" data-state={check.state}>
      <Table.Td>
        <Badge
          color={check.state === 'passed' ? 'green' : check.state === 'failed' ? 'red' : 'gray'}
          variant="light"
        >
          {check.state}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Text size="sm" fw={500}>
          {check.device}
        </Text>
        <Text size="xs" c="dimmed">
          {check.what} · at {check.t} ms
        </Text>
        {check.mismatches.map((m) => (
          <Text key={m} size="xs" c="red">
            {m}
          </Text>
        ))}
        {check.note && (
          <Text size="xs" c="dimmed">
            {check.note}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Code block data-testid="replay-expected">
          {json(check.expected)}
        </Code>
      </Table.Td>
      <Table.Td>
        <Code block data-testid="replay-actual">
          {json(check.actual)}
        </Code>
      </Table.Td>
    </Table.Tr>
  );
}

/** Each check of a replay: expected against actual, side by side. */
export function ReplayChecks({ run }: { run: ReplayRun }) {
  const [shown, setShown] = useState<'all' | 'failed'>('all');
  const report = run.report;
  if (!report) return null;
  const checks = shown === 'failed' ? report.checks.filter((c) => c.state === 'failed') : report.checks;
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={4}>Checks</Title>
        <SegmentedControl
          size="xs"
          value={shown}
          onChange={(v) => setShown(v as 'all' | 'failed')}
          data={[
            { value: 'all', label: `All (${report.checks.length})` },
            {
              value: 'failed',
              label: `Failed (${report.checks.filter((c) => c.state === 'failed').length})`,
            },
          ]}
        />
      </Group>
      {report.answers.length > 0 && (
        <Text size="sm" c="dimmed" data-testid="replay-answers">
          Answers (reason codes, HTTP statuses) as recorded:{' '}
          {report.answers.map((a) => `${a.device} ${a.passed}/${a.passed + a.failed}`).join(', ')}
        </Text>
      )}
      {report.notes.map((n) => (
        <Text key={n} size="sm" c="dimmed">
          {n}
        </Text>
      ))}
      <Table.ScrollContainer minWidth={720}>
        <Table verticalSpacing="xs" data-testid="replay-checks">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={90}>Result</Table.Th>
              <Table.Th>Check</Table.Th>
              <Table.Th>Expected</Table.Th>
              <Table.Th>Actual</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {checks.map((c, i) => (
              <CheckRow key={`${c.device}-${c.what}-${c.t}-${i}`} check={c} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {report.checksOmitted > 0 && (
        <Text size="sm" c="dimmed">
          {report.checksOmitted} more checks were counted, not listed.
        </Text>
      )}
    </Stack>
  );
}

/**
 * Replays a recording against this Sandboard: speed, assertions, what to ignore and the tolerance; then a
 * progress bar with the messages sent and the checks passed, and expected against actual for each check.
 */
export function ReplayPanel({ source }: { source: ReplaySource | undefined }) {
  const [speed, setSpeed] = useState('max');
  const [assert, setAssert] = useState(true);
  const [ignore, setIgnore] = useState('');
  const [tolerance, setTolerance] = useState<number | string>('');
  const [runId, setRunId] = useState<string | undefined>();
  const start = useStartReplay();
  const stop = useStopReplay();
  const run = useReplayRun(runId);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!source) return;
    const ignored = ignore
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    start.mutate(
      {
        ...(source.recordingId !== undefined
          ? { recordingId: source.recordingId }
          : { file: source.file ?? '' }),
        speed: (speed === 'max' ? 'max' : Number(speed)) as ReplaySpeed,
        assert,
        options: {
          ...(ignored.length ? { ignore: ignored } : {}),
          ...(typeof tolerance === 'number' ? { tolerance } : {}),
        },
      },
      { onSuccess: (r) => setRunId(r.id) },
    );
  };
  const running = run.data?.progress.state === 'running';

  return (
    <Stack gap="md">
      <Card withBorder>
        <form onSubmit={submit}>
          <Stack gap="sm">
            <Text size="sm">
              {source ? (
                <>
                  Replay <b>{source.name}</b> against this Sandboard: missing devices are created with the
                  recorded profile, then the traffic is sent again through MQTT, the device HTTP API and REST.
                </>
              ) : (
                'Pick a recording to replay.'
              )}
            </Text>
            <Group align="flex-end" wrap="wrap">
              <Select
                label="Speed"
                data={SPEEDS}
                value={speed}
                onChange={(v) => setSpeed(v ?? 'max')}
                allowDeselect={false}
                w={220}
              />
              <TextInput
                label="Ignore (comma-separated)"
                placeholder="humidity, alarm.severity, response.ts"
                value={ignore}
                onChange={(e) => setIgnore(e.currentTarget.value)}
                w={260}
              />
              <NumberInput
                label="Tolerance"
                placeholder="0"
                min={0}
                decimalScale={6}
                value={tolerance}
                onChange={setTolerance}
                w={120}
              />
              <Switch
                label="Check the outcomes"
                checked={assert}
                onChange={(e) => setAssert(e.currentTarget.checked)}
                mb={8}
              />
            </Group>
            <Group>
              <Button
                type="submit"
                disabled={!source || running}
                loading={start.isPending}
                data-testid="replay-start"
              >
                Replay
              </Button>
              {running && runId && (
                <Button variant="default" onClick={() => stop.mutate(runId)} loading={stop.isPending}>
                  Stop
                </Button>
              )}
            </Group>
            {start.error && <ErrorAlert error={start.error} title="The recording cannot be replayed" />}
          </Stack>
        </form>
      </Card>
      {run.data && (
        <Card withBorder>
          <Stack gap="md">
            <ReplayProgressCard run={run.data} />
            <ReplayChecks run={run.data} />
          </Stack>
        </Card>
      )}
    </Stack>
  );
}
