import '../components/typebox-csp.ts';
import { Alert, Anchor, Button, List, Paper, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { formatIssue, scenarioIssues, type ScenarioIssue } from '../../../shared/schemas/simulation.ts';
import type { SimulationSummary } from '../api/client.ts';
import {
  useCurrentUser,
  useImportSimulation,
  useSimulations,
  useStartSimulation,
  useStopSimulation,
} from '../api/hooks.ts';
import { openTextFile } from '../components/desktop-files.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { formatNumber } from '../components/format.ts';
import { AdminOnlyPage } from '../components/admin-only-page.tsx';
import { PageHeader } from '../components/page-header.tsx';
import { Link, navigate } from '../router.tsx';
import { NewSimulationModal } from './simulation/new-simulation-modal.tsx';
import { StateBadge, isActive, shownRate } from './simulation/simulation-ui.tsx';
import { EmptyTableRow } from '../components/empty-table-row.tsx';

/** What went wrong with an imported file: not JSON, or a scenario with problems at named paths. */
type ImportProblem = { file: string; message: string; issues: ScenarioIssue[] };

/** Start or stop from the list; errors (a gateway that cannot connect) are shown on the row. */
function RunButton({ s }: { s: SimulationSummary }) {
  const start = useStartSimulation(s.id);
  const stop = useStopSimulation(s.id);
  const active = isActive(s.state);
  const error = start.error ?? stop.error;
  return (
    <>
      <Button
        size="compact-sm"
        variant="subtle"
        color={active ? 'red' : undefined}
        loading={start.isPending || stop.isPending}
        onClick={() => (active ? stop.mutate() : start.mutate(undefined))}
        aria-label={`${active ? 'Stop' : 'Start'} ${s.name}`}
      >
        {active ? 'Stop' : 'Start'}
      </Button>
      {error && (
        <Text size="xs" c="red" role="alert">
          {error.message}
        </Text>
      )}
    </>
  );
}

function SimulationRow({ s }: { s: SimulationSummary }) {
  const failed = s.counters.failed;
  return (
    <Table.Tr
      data-testid="simulation-row"
      data-name={s.name}
      style={{ cursor: 'pointer' }}
      onClick={(e) => {
        if ((e.target as HTMLElement).closest('a, button')) return;
        navigate(`/gateways/${s.id}`);
      }}
    >
      <Table.Td>
        <Anchor component={Link} to={`/gateways/${s.id}`} fw={500} data-testid="simulation-link">
          {s.name}
        </Anchor>
        {s.lastError && (
          <Text size="xs" c="red" lineClamp={1} title={s.lastError}>
            {s.lastError}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <StateBadge state={s.state} />
      </Table.Td>
      <Table.Td>
        <Text size="sm" ff="monospace">
          {s.target}
        </Text>
      </Table.Td>
      <Table.Td ta="right">{formatNumber(s.gateways)}</Table.Td>
      <Table.Td ta="right">{formatNumber(s.devices)}</Table.Td>
      <Table.Td ta="right">{formatNumber(s.counters.sent)}</Table.Td>
      <Table.Td ta="right">{formatNumber(s.counters.acknowledged)}</Table.Td>
      <Table.Td ta="right" c={failed ? 'red' : undefined}>
        {formatNumber(failed)}
      </Table.Td>
      <Table.Td ta="right" data-testid="simulation-rate">
        {shownRate(s.state, s.counters)}
      </Table.Td>
      <Table.Td>
        <RunButton s={s} />
      </Table.Td>
    </Table.Tr>
  );
}

export default function GatewaysPage() {
  const user = useCurrentUser();
  const isAdmin = user.data?.authority === 'TENANT_ADMIN';
  const simulations = useSimulations(isAdmin);
  const importScenario = useImportSimulation();
  const [creating, setCreating] = useState(false);
  const [problem, setProblem] = useState<ImportProblem | null>(null);
  const list = simulations.data ?? [];

  const onImport = async () => {
    setProblem(null);
    importScenario.reset();
    const file = await openTextFile({
      title: 'Import a scenario',
      filters: [{ name: 'Scenario (JSON)', extensions: ['json'] }],
    });
    if (!file) return;
    let value: unknown;
    try {
      value = JSON.parse(file.contents);
    } catch (err) {
      setProblem({ file: file.name, message: `Not JSON: ${(err as Error).message}`, issues: [] });
      return;
    }
    const issues = scenarioIssues(value);
    if (issues.length) {
      setProblem({ file: file.name, message: 'Not a valid scenario:', issues });
      return;
    }
    importScenario.mutate(value, { onSuccess: (details) => navigate(`/gateways/${details.id}`) });
  };

  if (user.data && !isAdmin) {
    return (
      <AdminOnlyPage title="Gateways & Simulation">
        Simulations belong to the tenant administrator.
      </AdminOnlyPage>
    );
  }

  return (
    <Stack gap="md">
      <PageHeader
        title="Gateways & Simulation"
        description="Simulated gateways and their devices, publishing over MQTT to this platform or a remote ThingsBoard."
        actions={
          <>
            <Button variant="default" onClick={() => void onImport()} loading={importScenario.isPending}>
              Import scenario file
            </Button>
            <Button onClick={() => setCreating(true)} data-testid="new-simulation">
              New simulation
            </Button>
          </>
        }
      />
      {problem && (
        <Alert
          color="red"
          variant="light"
          title={`Could not import ${problem.file}`}
          withCloseButton
          onClose={() => setProblem(null)}
          data-testid="import-problem"
        >
          <Text size="sm">{problem.message}</Text>
          {problem.issues.length > 0 && (
            <List size="sm" mt={4}>
              {problem.issues.slice(0, 10).map((i) => (
                <List.Item key={formatIssue(i)}>
                  <code>{i.path || '(scenario)'}</code>: {i.message}
                </List.Item>
              ))}
            </List>
          )}
        </Alert>
      )}
      <ErrorAlert error={importScenario.error} title="Could not import the scenario" />
      <ErrorAlert error={simulations.error} title="Could not load the simulations" />
      {isAdmin && !simulations.data && !simulations.error && <Skeleton h={120} />}
      {simulations.data && (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={860}>
            <Table highlightOnHover verticalSpacing="sm" data-testid="simulations-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>State</Table.Th>
                  <Table.Th>Target</Table.Th>
                  <Table.Th ta="right">Gateways</Table.Th>
                  <Table.Th ta="right">Devices</Table.Th>
                  <Table.Th ta="right">Sent</Table.Th>
                  <Table.Th ta="right">Acknowledged</Table.Th>
                  <Table.Th ta="right">Failed</Table.Th>
                  <Table.Th ta="right">Msgs/s</Table.Th>
                  <Table.Th style={{ width: 1 }} aria-label="Actions" />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((s) => (
                  <SimulationRow key={s.id} s={s} />
                ))}
                {list.length === 0 && (
                  <EmptyTableRow columns={10} roomy>
                    No simulations yet. Create one from the sample template, or import a scenario file (what{' '}
                    <code>sandboard simulate</code> runs).
                  </EmptyTableRow>
                )}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
      <Text size="xs" c="dimmed">
        A simulation connects each gateway with its access token and speaks the gateway MQTT API (
        <code>v1/gateway/connect</code>, <code>telemetry</code>, <code>attributes</code>, <code>rpc</code>).
        Embedded simulations create their gateway devices here; their devices appear under{' '}
        <Anchor component={Link} to="/devices" size="xs">
          Devices
        </Anchor>{' '}
        once they connect.
      </Text>
      <NewSimulationModal
        opened={creating}
        onClose={() => setCreating(false)}
        takenNames={list.map((s) => s.name)}
      />
    </Stack>
  );
}
