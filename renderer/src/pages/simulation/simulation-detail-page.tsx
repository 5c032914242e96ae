import '../../components/typebox-csp.ts';
import {
  Alert,
  Anchor,
  Button,
  Group,
  NumberInput,
  Popover,
  SimpleGrid,
  Skeleton,
  Stack,
  Tabs,
  Text,
} from '@mantine/core';
import { useState } from 'react';
import { SIMULATION_LIMITS } from '../../../../shared/schemas/simulation.ts';
import { useApi } from '../../api/api-context.tsx';
import {
  useDeleteSimulation,
  useSimulation,
  useSimulationStatus,
  useStartSimulation,
  useStopSimulation,
} from '../../api/hooks.ts';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { fileNameFor, saveTextFile } from '../../components/desktop-files.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime, formatNumber } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { Link, navigate } from '../../router.tsx';
import type { PageParams } from '../../shell/page-catalog.ts';
import { RecordButton } from '../recordings/record-button.tsx';
import { ScenarioEditor } from './scenario-editor.tsx';
import {
  AttributeLog,
  FailureReasons,
  GatewayStatusTable,
  RpcLog,
  SimulationCounters,
  SimulationRateChart,
} from './simulation-live.tsx';
import { FaultsCard } from './simulation-faults.tsx';
import { SimulationReportCard } from './simulation-report-card.tsx';
import { OtaRunCard } from './simulation-ota.tsx';
import { ScriptErrorsCard } from './simulation-script-errors.tsx';
import { SimulatorCostCard } from './simulator-cost.tsx';
import { StateBadge, isActive } from './simulation-ui.tsx';

const FINISH_REASONS: Record<string, string> = {
  stopped: 'stopped',
  duration: 'its duration was reached',
  messages: 'its message count was reached',
  error: 'an error',
  shutdown: 'the platform shut down',
};

/** Start, with optional limits for this run only. */
function StartButton({ start }: { start: ReturnType<typeof useStartSimulation> }) {
  const [opened, setOpened] = useState(false);
  const [seconds, setSeconds] = useState<number | string>('');
  const [messages, setMessages] = useState<number | string>('');
  const [workers, setWorkers] = useState<number | string>('');
  const withLimits = () => {
    const overrides: { durationMs?: number; messages?: number; workers?: number } = {};
    if (typeof seconds === 'number') overrides.durationMs = seconds * 1000;
    if (typeof messages === 'number') overrides.messages = messages;
    if (typeof workers === 'number') overrides.workers = workers;
    setOpened(false);
    start.mutate(Object.keys(overrides).length ? overrides : undefined);
  };
  return (
    <>
      <Group gap={0}>
        <Button
          onClick={() => start.mutate(undefined)}
          loading={start.isPending}
          data-testid="start-simulation"
          style={{ borderTopRightRadius: 0, borderBottomRightRadius: 0 }}
        >
          Start
        </Button>
        <Popover opened={opened} onChange={setOpened} position="bottom-end" withArrow trapFocus>
          <Popover.Target>
            <Button
              variant="light"
              disabled={start.isPending}
              onClick={() => setOpened((o) => !o)}
              aria-label="Start with limits"
              style={{ borderTopLeftRadius: 0, borderBottomLeftRadius: 0 }}
            >
              ▾
            </Button>
          </Popover.Target>
          <Popover.Dropdown>
            <Stack gap="xs" w={240}>
              <Text size="sm" fw={600}>
                This run only
              </Text>
              <NumberInput
                label="Stop after (seconds)"
                min={1}
                allowDecimal={false}
                value={seconds}
                onChange={setSeconds}
              />
              <NumberInput
                label="Messages per gateway"
                min={1}
                allowDecimal={false}
                value={messages}
                onChange={setMessages}
              />
              <NumberInput
                label="Worker threads"
                description="0: none; empty: the scenario's"
                min={0}
                max={SIMULATION_LIMITS.workers}
                allowDecimal={false}
                value={workers}
                onChange={setWorkers}
              />
              <Button size="xs" onClick={withLimits}>
                Start with these limits
              </Button>
            </Stack>
          </Popover.Dropdown>
        </Popover>
      </Group>
    </>
  );
}

export default function SimulationDetailPage({ params }: { params: PageParams }) {
  const id = params.id!;
  const client = useApi();
  const simulation = useSimulation(id);
  const status = useSimulationStatus(id);
  const start = useStartSimulation(id);
  const stop = useStopSimulation(id);
  const remove = useDeleteSimulation();
  const [deleting, setDeleting] = useState(false);
  const [exported, setExported] = useState<string | null>(null);
  const [exportError, setExportError] = useState<unknown>(null);

  const back = (
    <Anchor component={Link} to="/gateways" size="sm">
      ← Gateways & Simulation
    </Anchor>
  );
  const error = simulation.error ?? (simulation.data ? null : status.error);
  if (error) {
    return (
      <Stack gap="md">
        {back}
        <ErrorAlert error={error} title="Could not load the simulation" />
      </Stack>
    );
  }
  if (!simulation.data) {
    return (
      <Stack gap="md">
        {back}
        <Skeleton h={40} w="40%" />
        <Skeleton h={240} />
      </Stack>
    );
  }
  const s = status.data ?? simulation.data;
  const active = isActive(s.state);

  const onExport = async () => {
    setExported(null);
    setExportError(null);
    try {
      const scenario = await client.exportSimulation(id);
      const name = await saveTextFile(fileNameFor(scenario.name), `${JSON.stringify(scenario, null, 2)}\n`, {
        title: 'Export the scenario',
        filters: [{ name: 'Scenario (JSON)', extensions: ['json'] }],
      });
      if (name) setExported(name);
    } catch (err) {
      setExportError(err);
    }
  };

  return (
    <Stack gap="md" data-testid="simulation-detail" data-state={s.state}>
      {back}
      <PageHeader
        title={
          <Group gap="sm">
            <span data-testid="simulation-name">{s.name}</span>
            <StateBadge state={s.state} testId="simulation-state" />
          </Group>
        }
        description={
          <>
            {formatNumber(s.gateways)} gateway{s.gateways === 1 ? '' : 's'}, {formatNumber(s.devices)} device
            {s.devices === 1 ? '' : 's'} · target {s.target}
            {s.startedAt !== null && ` · started ${formatDateTime(s.startedAt)}`}
            {s.stoppedAt !== null &&
              !active &&
              ` · ended ${formatDateTime(s.stoppedAt)}${s.finishReason ? ` (${FINISH_REASONS[s.finishReason] ?? s.finishReason})` : ''}`}
          </>
        }
        actions={
          <>
            {active && (
              <RecordButton
                filter={{ devices: simulation.data.scenario.gateways.map((g) => g.name) }}
                scope={`simulation.${id}`}
                what="this simulation's gateways and their devices"
                defaultName={s.name}
              />
            )}
            {active ? (
              <Button
                color="red"
                variant="light"
                onClick={() => stop.mutate()}
                loading={stop.isPending || s.state === 'stopping'}
                data-testid="stop-simulation"
              >
                Stop
              </Button>
            ) : (
              <StartButton start={start} />
            )}
            <Button variant="default" onClick={() => void onExport()} data-testid="export-simulation">
              Export
            </Button>
            <Button variant="subtle" color="red" onClick={() => setDeleting(true)}>
              Delete
            </Button>
          </>
        }
      />
      {s.lastError && (
        <Alert color="red" variant="light" title="The last run failed" data-testid="simulation-error">
          {s.lastError}
        </Alert>
      )}
      <ErrorAlert error={start.error} title="Could not start" />
      <ErrorAlert error={stop.error} title="Could not stop" />
      <ErrorAlert error={exportError} title="Could not export" />
      {exported && (
        <Alert color="teal" variant="light" withCloseButton onClose={() => setExported(null)}>
          Saved as {exported}. Run it headless with <code>sandboard simulate {exported}</code>, or import it
          elsewhere.
        </Alert>
      )}
      <Tabs defaultValue="live" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="live" data-testid="tab-live">
            Live
          </Tabs.Tab>
          <Tabs.Tab value="scenario" data-testid="tab-scenario">
            Scenario
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="live" pt="md">
          <Stack gap="md">
            <ErrorAlert error={status.error} title="Could not load the live status" />
            <SimulationCounters status={status.data} />
            {status.data && (
              <>
                <SimulationReportCard status={status.data} />
                <SimpleGrid cols={{ base: 1, lg: 3 }}>
                  <div style={{ gridColumn: 'span 2' }}>
                    <SimulationRateChart status={status.data} />
                  </div>
                  <FailureReasons status={status.data} />
                </SimpleGrid>
                <SimulatorCostCard status={status.data} />
                <OtaRunCard status={status.data} />
                <FaultsCard status={status.data} />
                <ScriptErrorsCard status={status.data} />
                <GatewayStatusTable
                  gateways={status.data.gatewayStatus}
                  runState={s.state}
                  scenario={simulation.data.scenario}
                />
                <SimpleGrid cols={{ base: 1, lg: 2 }}>
                  <AttributeLog status={status.data} />
                  <RpcLog status={status.data} />
                </SimpleGrid>
              </>
            )}
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="scenario" pt="md">
          <ScenarioEditor simulation={simulation.data} locked={active} />
        </Tabs.Panel>
      </Tabs>
      <ConfirmModal
        opened={deleting}
        title="Delete this simulation?"
        confirmLabel="Delete"
        busy={remove.isPending}
        error={remove.error}
        onClose={() => setDeleting(false)}
        onConfirm={() =>
          remove.mutate(id, {
            onSuccess: () => navigate('/gateways', { replace: true }),
          })
        }
        testId="confirm-delete-simulation"
      >
        {`“${s.name}” stops if it runs, and its scenario is deleted. Its gateway devices and their data stay.`}
      </ConfirmModal>
    </Stack>
  );
}
