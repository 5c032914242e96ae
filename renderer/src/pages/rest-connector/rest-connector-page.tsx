import '../../components/typebox-csp.ts';
import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Paper,
  SimpleGrid,
  Skeleton,
  Stack,
  Switch,
  Table,
  Tabs,
  Text,
  Tooltip,
} from '@mantine/core';
import { useEffect, useState } from 'react';
import { useCurrentUser } from '../../api/hooks.ts';
import type { RestConnectorSummary, RestEndpointInfo } from '../../api/rest-connector-api.ts';
import {
  useDeleteRestConnector,
  useRestConnector,
  useRestConnectors,
  useRestEndpoints,
  useRestOutgoingLog,
  useRestRequestLog,
  useSetAutostart,
  useStartStopRestConnector,
} from '../../api/rest-connector-hooks.ts';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime, formatNumber } from '../../components/format.ts';
import { AdminOnlyPage } from '../../components/admin-only-page.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { StatTile } from '../../components/stat-tile.tsx';
import { Link } from '../../router.tsx';
import { ConfigEditor } from './config-editor.tsx';
import { ConnectorStateBadge } from './connector-ui.tsx';
import { ConvertersCard } from './converters-card.tsx';
import { EndpointsCard } from './endpoints-card.tsx';
import { OutgoingLog, RequestLog } from './logs.tsx';
import { NewConnectorModal } from './new-connector-modal.tsx';
import { TesterCard, type TesterSeed } from './tester-card.tsx';
import { EmptyTableRow } from '../../components/empty-table-row.tsx';

type Tab = 'config' | 'endpoints' | 'tester' | 'requests' | 'outgoing' | 'converters';

/** The selected connector is kept in the address (?connector=id), so a reload shows it again. */
function useSelection(): [string | null, (id: string | null) => void] {
  const [id, setId] = useState<string | null>(() =>
    new URLSearchParams(window.location.search).get('connector'),
  );
  const select = (next: string | null) => {
    setId(next);
    const url = new URL(window.location.href);
    if (next) url.searchParams.set('connector', next);
    else url.searchParams.delete('connector');
    window.history.replaceState(null, '', url.pathname + url.search);
  };
  return [id, select];
}

function StartStopButton({
  connector,
  startStop,
  size = 'xs',
}: {
  connector: RestConnectorSummary;
  startStop: ReturnType<typeof useStartStopRestConnector>;
  size?: 'xs' | 'sm';
}) {
  const pending = startStop.isPending && startStop.variables?.id === connector.id;
  const active = connector.state === 'running' || connector.state === 'starting';
  return active ? (
    <Button
      size={size}
      color="red"
      variant="light"
      loading={pending || connector.state === 'starting'}
      onClick={() => startStop.mutate({ id: connector.id, start: false })}
      data-testid="stop-connector"
    >
      Stop
    </Button>
  ) : (
    <Button
      size={size}
      loading={pending}
      onClick={() => startStop.mutate({ id: connector.id, start: true })}
      data-testid="start-connector"
    >
      Start
    </Button>
  );
}

function ConnectorRow({
  c,
  selected,
  onSelect,
  startStop,
  autostart,
  onDelete,
}: {
  c: RestConnectorSummary;
  selected: boolean;
  onSelect: () => void;
  startStop: ReturnType<typeof useStartStopRestConnector>;
  autostart: ReturnType<typeof useSetAutostart>;
  onDelete: () => void;
}) {
  const failed = c.counters.failedRequests;
  return (
    <Table.Tr
      data-testid="connector-row"
      data-name={c.name}
      data-state={c.state}
      aria-selected={selected}
      bg={selected ? 'var(--mantine-primary-color-light)' : undefined}
      style={{ cursor: 'pointer' }}
      onClick={(e) => {
        if ((e.target as HTMLElement).closest('a, button, input, label')) return;
        onSelect();
      }}
    >
      <Table.Td>
        <Anchor component="button" type="button" fw={500} onClick={onSelect} data-testid="connector-link">
          {c.name}
        </Anchor>
        <Text size="xs" c="dimmed">
          gateway {c.gatewayName}
          {c.target.url ? ` · ${c.target.url}` : ''}
        </Text>
        {c.lastError && (
          <Text size="xs" c="red" lineClamp={2} title={c.lastError} data-testid="connector-error">
            {c.lastError}
          </Text>
        )}
      </Table.Td>
      <Table.Td miw={160}>
        <Group gap={4} wrap="nowrap">
          <ConnectorStateBadge state={c.state} testId="connector-state" />
          {c.state === 'running' && (
            <Tooltip label={c.mqttConnected ? 'Gateway MQTT session up' : 'Gateway MQTT session down'}>
              <Badge size="xs" variant="dot" color={c.mqttConnected ? 'teal' : 'red'}>
                MQTT
              </Badge>
            </Tooltip>
          )}
        </Group>
      </Table.Td>
      <Table.Td>
        <Text size="sm" ff="monospace">
          {c.baseUrl ?? '—'}
        </Text>
      </Table.Td>
      <Table.Td ta="right">{formatNumber(c.counters.requests)}</Table.Td>
      <Table.Td ta="right" c={failed ? 'red' : undefined}>
        {formatNumber(failed)}
      </Table.Td>
      <Table.Td ta="right">{formatNumber(c.counters.datapoints)}</Table.Td>
      <Table.Td ta="right">
        {formatNumber(c.counters.outgoing)}
        {c.counters.failedOutgoing > 0 && (
          <Text span c="red" size="xs">
            {' '}
            ({formatNumber(c.counters.failedOutgoing)} failed)
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Tooltip label="Start with the platform (saving restarts a running connector)" withArrow>
          <Switch
            size="xs"
            aria-label={`Autostart ${c.name}`}
            checked={c.autostart}
            disabled={autostart.isPending || c.state === 'starting'}
            onChange={(e) => autostart.mutate({ id: c.id, autostart: e.currentTarget.checked })}
          />
        </Tooltip>
      </Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap" justify="flex-end">
          <StartStopButton connector={c} startStop={startStop} />
          <Tooltip label="Delete" withArrow>
            <ActionIcon variant="subtle" color="red" aria-label={`Delete ${c.name}`} onClick={onDelete}>
              ×
            </ActionIcon>
          </Tooltip>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

function ConnectorDetail({
  summary,
  startStop,
}: {
  summary: RestConnectorSummary;
  startStop: ReturnType<typeof useStartStopRestConnector>;
}) {
  const id = summary.id;
  const details = useRestConnector(id);
  const [tab, setTab] = useState<Tab>('config');
  const [seed, setSeed] = useState<TesterSeed | null>(null);
  const [requestLimit, setRequestLimit] = useState(100);
  const [outgoingLimit, setOutgoingLimit] = useState(100);
  const endpoints = useRestEndpoints(id, `${summary.updatedTime}-${summary.state}-${summary.baseUrl ?? ''}`);
  const requests = useRestRequestLog(id, requestLimit);
  const outgoing = useRestOutgoingLog(id, outgoingLimit);
  const c = summary.counters;

  // the details follow saves made elsewhere (and the state the list polls)
  useEffect(() => {
    if (details.data && details.data.updatedTime !== summary.updatedTime) void details.refetch();
  }, [summary.updatedTime]);

  const onTry = (endpoint: RestEndpointInfo) => {
    setSeed({ endpoint, nonce: Date.now() });
    setTab('tester');
  };

  return (
    <Stack gap="md" data-testid="connector-detail" data-state={summary.state} data-id={id}>
      <Group justify="space-between" align="flex-start" wrap="wrap">
        <Stack gap={2}>
          <Group gap="sm">
            <Text fw={700} size="xl" data-testid="connector-name">
              {summary.name}
            </Text>
            <ConnectorStateBadge state={summary.state} testId="connector-detail-state" />
          </Group>
          <Text size="sm" c="dimmed">
            {summary.state === 'running' && summary.baseUrl ? (
              <>
                Listening at <code data-testid="connector-base-url">{summary.baseUrl}</code> · MQTT{' '}
                {summary.mqttConnected ? 'connected' : 'disconnected'}
              </>
            ) : (
              'Not listening'
            )}
            {summary.gatewayDeviceId && (
              <>
                {' · '}
                <Anchor component={Link} to={`/devices/${summary.gatewayDeviceId}`} size="sm">
                  gateway device {summary.gatewayName}
                </Anchor>
              </>
            )}
            {` · updated ${formatDateTime(summary.updatedTime)}`}
          </Text>
        </Stack>
        <StartStopButton connector={summary} startStop={startStop} size="sm" />
      </Group>
      {summary.state === 'failed' && summary.lastError && (
        <Alert
          color="red"
          variant="light"
          title="The connector did not start"
          data-testid="connector-last-error"
        >
          {summary.lastError}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }}>
        <StatTile
          label="Requests"
          value={formatNumber(c.requests)}
          testId="counter-requests"
          note="answered"
        />
        <StatTile
          label="Failed requests"
          value={formatNumber(c.failedRequests)}
          color={c.failedRequests ? 'red' : undefined}
          note="status other than 2xx"
        />
        <StatTile
          label="Datapoints"
          value={formatNumber(c.datapoints)}
          testId="counter-datapoints"
          note="acknowledged by the platform"
        />
        <StatTile label="Outgoing calls" value={formatNumber(c.outgoing)} note="attribute updates, RPC" />
        <StatTile
          label="Failed outgoing"
          value={formatNumber(c.failedOutgoing)}
          color={c.failedOutgoing ? 'red' : undefined}
          note="after all tries"
        />
      </SimpleGrid>

      <Tabs value={tab} onChange={(v) => v && setTab(v as Tab)} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="config" data-testid="tab-config">
            rest.json
          </Tabs.Tab>
          <Tabs.Tab value="endpoints" data-testid="tab-endpoints">
            Endpoints{endpoints.data ? ` (${endpoints.data.length})` : ''}
          </Tabs.Tab>
          <Tabs.Tab value="tester" data-testid="tab-tester">
            Tester
          </Tabs.Tab>
          <Tabs.Tab value="requests" data-testid="tab-requests">
            Request log{requests.data ? ` (${requests.data.length})` : ''}
          </Tabs.Tab>
          <Tabs.Tab value="outgoing" data-testid="tab-outgoing">
            Outgoing calls{outgoing.data ? ` (${outgoing.data.length})` : ''}
          </Tabs.Tab>
          <Tabs.Tab value="converters" data-testid="tab-converters">
            Converters
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="config" pt="md">
          <ErrorAlert error={details.error} title="Could not load the connector" />
          {details.data ? <ConfigEditor connector={details.data} /> : !details.error && <Skeleton h={400} />}
        </Tabs.Panel>
        <Tabs.Panel value="endpoints" pt="md">
          <EndpointsCard
            connector={summary}
            endpoints={endpoints.data}
            error={endpoints.error}
            onTry={onTry}
          />
        </Tabs.Panel>
        <Tabs.Panel value="tester" pt="md">
          {details.data ? (
            <Stack gap="md">
              <TesterCard
                connector={{ ...details.data, ...summary }}
                endpoints={endpoints.data}
                seed={seed}
              />
              <RequestLog
                title="Latest requests"
                entries={requests.data?.slice(0, 5)}
                error={requests.error}
                limit={requestLimit}
                onLimit={setRequestLimit}
              />
            </Stack>
          ) : (
            <Skeleton h={300} />
          )}
        </Tabs.Panel>
        <Tabs.Panel value="requests" pt="md">
          <RequestLog
            entries={requests.data}
            error={requests.error}
            limit={requestLimit}
            onLimit={setRequestLimit}
          />
        </Tabs.Panel>
        <Tabs.Panel value="outgoing" pt="md">
          <OutgoingLog
            entries={outgoing.data}
            error={outgoing.error}
            limit={outgoingLimit}
            onLimit={setOutgoingLimit}
          />
        </Tabs.Panel>
        <Tabs.Panel value="converters" pt="md">
          <ConvertersCard endpoints={endpoints.data} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

export default function RestConnectorPage() {
  const user = useCurrentUser();
  const isAdmin = user.data?.authority === 'TENANT_ADMIN';
  const connectors = useRestConnectors(isAdmin);
  const startStop = useStartStopRestConnector();
  const autostart = useSetAutostart();
  const remove = useDeleteRestConnector();
  const [selectedId, select] = useSelection();
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<RestConnectorSummary | null>(null);
  const list = connectors.data ?? [];
  const selected = list.find((c) => c.id === selectedId) ?? null;

  // the first connector when none (or a deleted one) is selected
  useEffect(() => {
    if (!connectors.data) return;
    if (!selected && connectors.data[0]) select(connectors.data[0].id);
    if (!selected && connectors.data.length === 0 && selectedId) select(null);
  }, [connectors.data, selected]);

  if (user.data && !isAdmin) {
    return (
      <AdminOnlyPage title="REST Connector">
        REST connectors belong to the tenant administrator.
      </AdminOnlyPage>
    );
  }

  return (
    <Stack gap="md">
      <PageHeader
        title="REST Connector"
        description="The gateway's HTTP endpoints that turn requests into device data, and its outgoing calls on attribute updates and RPC (a ThingsBoard IoT Gateway rest.json)."
        actions={
          <Button onClick={() => setCreating(true)} data-testid="new-connector">
            New connector
          </Button>
        }
      />
      <ErrorAlert error={connectors.error} title="Could not load the connectors" />
      <ErrorAlert error={startStop.error} title="The connector did not start" />
      <ErrorAlert error={autostart.error} title="Could not change autostart" />
      {isAdmin && !connectors.data && !connectors.error && <Skeleton h={120} />}
      {connectors.data && (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={980}>
            <Table highlightOnHover verticalSpacing="sm" data-testid="connectors-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>State</Table.Th>
                  <Table.Th>Base URL</Table.Th>
                  <Table.Th ta="right">Requests</Table.Th>
                  <Table.Th ta="right">Failed</Table.Th>
                  <Table.Th ta="right">Datapoints</Table.Th>
                  <Table.Th ta="right">Outgoing</Table.Th>
                  <Table.Th>Autostart</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((c) => (
                  <ConnectorRow
                    key={c.id}
                    c={c}
                    selected={c.id === selected?.id}
                    onSelect={() => select(c.id)}
                    startStop={startStop}
                    autostart={autostart}
                    onDelete={() => {
                      remove.reset();
                      setDeleting(c);
                    }}
                  />
                ))}
                {list.length === 0 && (
                  <EmptyTableRow columns={9} roomy>
                    No REST connectors yet. Create one from the gateway&apos;s default rest.json.
                  </EmptyTableRow>
                )}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
      {selected && <ConnectorDetail key={selected.id} summary={selected} startStop={startStop} />}
      <NewConnectorModal
        opened={creating}
        onClose={() => setCreating(false)}
        takenNames={list.map((c) => c.name)}
        onCreated={(details) => select(details.id)}
      />
      <ConfirmModal
        opened={deleting !== null}
        title="Delete the connector"
        confirmLabel="Delete"
        busy={remove.isPending}
        error={remove.error}
        onClose={() => setDeleting(null)}
        onConfirm={() =>
          deleting &&
          remove.mutate(deleting.id, {
            onSuccess: () => {
              if (deleting.id === selectedId) select(null);
              setDeleting(null);
            },
          })
        }
        testId="confirm-delete-connector"
      >
        {`Stops and deletes ${deleting?.name ?? 'the connector'} and its rest.json. Its gateway device and the devices it created stay.`}
      </ConfirmModal>
    </Stack>
  );
}
