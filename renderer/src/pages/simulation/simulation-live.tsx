import {
  Anchor,
  Badge,
  Card,
  Code,
  Group,
  ScrollArea,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useState, type ReactNode } from 'react';
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import {
  FAILURE_REASONS,
  ZERO_COUNTERS,
  deviceNames,
  type GatewayStatus,
  type Scenario,
  type SimulationState,
} from '../../../../shared/schemas/simulation.ts';
import type { SimulationStatus } from '../../api/client.ts';
import { useChartColors } from '../../components/charts/chart-colors.ts';
import { growingWindow } from '../../components/charts/time-axis.ts';
import { formatDuration, formatNumber, formatTime } from '../../components/format.ts';
import { StatTile } from '../../components/stat-tile.tsx';
import { Link } from '../../router.tsx';
import { stopRequestedAt } from '../../api/hooks.ts';
import { DeviceNameLink, StateBadge, chartedHistory, mqttVersion, shownRate } from './simulation-ui.tsx';

/** The rate chart's span: the server keeps the last 60 one-second samples. */
const HISTORY_MS = 60_000;

/**
 * Acknowledged first, sent drawn over it dashed: where they are equal both stay visible (sent's dashes
 * over acknowledged's line), where they differ publishes wait or fail.
 */
const RATE_LINES = [
  { key: 'acknowledged', color: 1, width: 4, dash: undefined },
  { key: 'failed', color: 4, width: 2, dash: undefined },
  { key: 'sent', color: 0, width: 2, dash: '6 4' },
] as const;

/** The run's counters: sent, acknowledged, failed, in flight, rate and datapoints. */
export function SimulationCounters({ status }: { status: SimulationStatus | undefined }) {
  const c = status?.counters;
  const n = (v: number | undefined) => (v === undefined ? undefined : formatNumber(v));
  return (
    <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} data-testid="simulation-counters">
      <StatTile label="Sent" value={n(c?.sent)} testId="sim-sent" note="MQTT publishes" />
      <StatTile
        label="Acknowledged"
        value={n(c?.acknowledged)}
        testId="sim-acknowledged"
        note="PUBACK success"
      />
      <StatTile
        label="Failed"
        value={n(c?.failed)}
        testId="sim-failed"
        color={c?.failed ? 'red' : undefined}
        note="by reason below"
      />
      <StatTile label="In flight" value={n(c?.inFlight)} testId="sim-in-flight" note="waiting for PUBACK" />
      <StatTile
        label="Msgs / s"
        value={c && status ? shownRate(status.state, c) : undefined}
        testId="sim-rate"
        note="last 5 s"
      />
      <StatTile
        label="Datapoints"
        value={n(c?.datapoints)}
        testId="sim-datapoints"
        note={
          status ? `running time ${formatDuration(status.elapsedMs).replace('expired', '0 s')}` : undefined
        }
      />
    </SimpleGrid>
  );
}

/** Failed publishes by MQTT 5 reason code (or connection loss), with the code's meaning. */
export function FailureReasons({ status }: { status: SimulationStatus }) {
  const reasons = Object.entries(status.counters.failedByReason).filter(([, n]) => n > 0);
  return (
    <Card withBorder radius="md" p="md">
      <Title order={5} mb="xs">
        Failures by reason
      </Title>
      {reasons.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="no-failures">
          No failed publishes.
        </Text>
      ) : (
        <Table verticalSpacing={4} data-testid="failure-reasons">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Code</Table.Th>
              <Table.Th>Meaning</Table.Th>
              <Table.Th ta="right">Count</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {reasons.map(([code, count]) => (
              <Table.Tr key={code}>
                <Table.Td>
                  <Code>{code}</Code>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{FAILURE_REASONS[code] ?? 'Other reason'}</Text>
                </Table.Td>
                <Table.Td ta="right">{formatNumber(count)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {status.counters.skipped > 0 && (
        <Text size="xs" c="dimmed" mt="xs">
          {formatNumber(status.counters.skipped)} telemetry periods skipped (not connected, or too many
          publishes waiting for their acknowledgement).
        </Text>
      )}
    </Card>
  );
}

/** Publishes per second over the last minute: sent, acknowledged and failed. */
export function SimulationRateChart({ status }: { status: SimulationStatus }) {
  const colors = useChartColors();
  const data = chartedHistory(status.history, status.state, status.stoppedAt, stopRequestedAt(status.id));
  const first = data[0]?.ts;
  const last = data.at(-1)?.ts ?? 0;
  // where faults started, within the chart's minute
  const markers = status.faultMarkers.filter(
    (m) => m.phase === 'start' && first !== undefined && m.ts >= first && m.ts <= last + 1000,
  );
  return (
    <Card withBorder radius="md" p="md">
      <Group justify="space-between" mb="sm">
        <Title order={5}>Messages per second</Title>
        <Text size="xs" c="dimmed">
          last 60 s
        </Text>
      </Group>
      <div
        style={{ width: '100%', height: 220 }}
        data-testid="simulation-chart"
        data-samples={data.length}
        data-sent={data.reduce((sum, s) => sum + s.sent, 0)}
        data-series={data.map((s) => s.sent).join(',')}
        data-fault-markers={markers.map((m) => m.kind).join(',')}
      >
        {data.length === 0 ? (
          <Text size="sm" c="dimmed" pt="xl" ta="center">
            Nothing sent yet. Start the simulation to see its rate.
          </Text>
        ) : (
          <ResponsiveContainer>
            <LineChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: -8 }}>
              <CartesianGrid stroke={colors.grid} strokeDasharray="3 3" />
              <XAxis {...colors.timeAxis(...growingWindow(first, last, last, HISTORY_MS))} />
              <YAxis allowDecimals={false} fontSize={colors.fontSize} stroke={colors.axis} />
              <Tooltip labelFormatter={(ts) => formatTime(Number(ts))} contentStyle={colors.tooltipStyle} />
              <Legend />
              {markers.map((m) => (
                <ReferenceLine
                  key={m.seq}
                  x={m.ts}
                  stroke={colors.series[4]}
                  strokeDasharray="2 3"
                  label={{ value: m.kind, position: 'insideTopLeft', fontSize: 11, fill: colors.axis }}
                />
              ))}
              {RATE_LINES.map((l) => (
                <Line
                  key={l.key}
                  type="monotone"
                  dataKey={l.key}
                  name={l.key}
                  stroke={colors.series[l.color]}
                  strokeWidth={l.width}
                  strokeDasharray={l.dash}
                  dot={false}
                  isAnimationActive={false}
                />
              ))}
            </LineChart>
          </ResponsiveContainer>
        )}
      </div>
    </Card>
  );
}

function GatewayRow({ g, runState }: { g: GatewayStatus; runState: SimulationState }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Table.Tr data-testid="gateway-status-row" data-gateway={g.name}>
        <Table.Td>
          <UnstyledButton
            onClick={() => setOpen((o) => !o)}
            aria-expanded={open}
            aria-label={`${open ? 'Hide' : 'Show'} the devices of ${g.name}`}
          >
            <Text size="sm" fw={500}>
              {open ? '▾' : '▸'} {g.name}
            </Text>
          </UnstyledButton>
          {g.deviceId && (
            <Anchor component={Link} to={`/devices/${g.deviceId}`} size="xs" display="block">
              gateway device
            </Anchor>
          )}
        </Table.Td>
        <Table.Td>
          <StateBadge state={g.state} />
        </Table.Td>
        <Table.Td>
          <Text size="xs">
            {mqttVersion(g.protocolVersion)} · QoS {g.qos} · {formatNumber(g.periodMs)} ms
          </Text>
        </Table.Td>
        <Table.Td ta="right" data-testid="gateway-devices">
          {formatNumber(g.connectedDevices)} / {formatNumber(g.devicesCount)}
        </Table.Td>
        <Table.Td ta="right">{formatNumber(g.counters.sent)}</Table.Td>
        <Table.Td ta="right">{formatNumber(g.counters.acknowledged)}</Table.Td>
        <Table.Td ta="right" c={g.counters.failed ? 'red' : undefined}>
          {formatNumber(g.counters.failed)}
        </Table.Td>
        <Table.Td ta="right" data-testid="gateway-rate">
          {shownRate(runState, g.counters)}
        </Table.Td>
        <Table.Td>
          {g.error && (
            <Text size="xs" c="red">
              {g.error}
            </Text>
          )}
        </Table.Td>
      </Table.Tr>
      {open && (
        <Table.Tr>
          <Table.Td colSpan={9}>
            <Group gap="md" wrap="wrap" data-testid="gateway-device-names">
              {g.deviceNames.map((name) => (
                <DeviceNameLink key={name} name={name} />
              ))}
              {g.devicesCount > g.deviceNames.length && (
                <Text size="xs" c="dimmed">
                  and {formatNumber(g.devicesCount - g.deviceNames.length)} more
                </Text>
              )}
            </Group>
          </Table.Td>
        </Table.Tr>
      )}
    </>
  );
}

/** A gateway of a scenario that has not run yet, as the status table shows it. */
function notStarted(g: Scenario['gateways'][number]): GatewayStatus {
  return {
    name: g.name,
    state: 'stopped',
    error: null,
    deviceId: null,
    protocolVersion: g.protocolVersion ?? 5,
    qos: g.qos ?? 1,
    periodMs: g.periodMs ?? 1000,
    devicesCount: g.devicesCount,
    connectedDevices: 0,
    deviceNames: deviceNames({ ...g, devicesCount: Math.min(g.devicesCount, 100) }),
    scriptedDevicesStopped: 0,
    counters: ZERO_COUNTERS,
  };
}

/** Each gateway's connection, devices and counters; a row opens to its devices. */
export function GatewayStatusTable({
  gateways,
  scenario,
  runState,
}: {
  gateways: GatewayStatus[];
  scenario: Scenario;
  runState: SimulationState;
}) {
  const rows = gateways.length > 0 ? gateways : scenario.gateways.map(notStarted);
  return (
    <Card withBorder radius="md" p="md">
      <Title order={5} mb="xs">
        Gateways
      </Title>
      <Table.ScrollContainer minWidth={820}>
        <Table verticalSpacing={6} data-testid="gateway-status">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Gateway</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>Connection</Table.Th>
              <Table.Th ta="right">Devices</Table.Th>
              <Table.Th ta="right">Sent</Table.Th>
              <Table.Th ta="right">Acked</Table.Th>
              <Table.Th ta="right">Failed</Table.Th>
              <Table.Th ta="right">Msgs/s</Table.Th>
              <Table.Th>Error</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((g) => (
              <GatewayRow key={g.name} g={g} runState={runState} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Card>
  );
}

const json = (v: unknown) => (v === undefined ? '' : JSON.stringify(v));

/** A log row's time. */
function TimeCell({ ts }: { ts: number }) {
  return (
    <Table.Td>
      <Text size="xs">{formatTime(ts)}</Text>
    </Table.Td>
  );
}

/** JSON or a call in a log: monospace, wrapped anywhere. */
function MonoText({ children }: { children: ReactNode }) {
  return (
    <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
      {children}
    </Text>
  );
}

/** A card with a log the simulation keeps, newest first: "None yet." until it has rows, then a scrolling table. */
function LiveLogCard({
  title,
  hint,
  testId,
  columns,
  rows,
}: {
  title: string;
  hint: string;
  testId: string;
  columns: string[];
  rows: ReactNode[];
}) {
  return (
    <Card withBorder radius="md" p="md">
      <Title order={5} mb={4}>
        {title}
      </Title>
      <Text size="xs" c="dimmed" mb="xs">
        {hint}
      </Text>
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          None yet.
        </Text>
      ) : (
        <ScrollArea.Autosize mah={280}>
          <Table verticalSpacing={4} data-testid={testId}>
            <Table.Thead>
              <Table.Tr>
                {columns.map((c) => (
                  <Table.Th key={c}>{c}</Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>{rows}</Table.Tbody>
          </Table>
        </ScrollArea.Autosize>
      )}
    </Card>
  );
}

/** Shared attribute updates the platform pushed to the simulated devices, newest first. */
export function AttributeLog({ status }: { status: SimulationStatus }) {
  return (
    <LiveLogCard
      title="Attribute updates"
      hint="Shared attributes set on a simulated device (Devices → its page → Shared) arrive here."
      testId="attribute-log"
      columns={['Time', 'Device', 'Update']}
      rows={status.attributeLog.map((e) => (
        <Table.Tr key={e.seq}>
          <TimeCell ts={e.ts} />
          <Table.Td>
            <Text size="xs">{e.device}</Text>
            <Text size="xs" c="dimmed">
              {e.gateway}
            </Text>
          </Table.Td>
          <Table.Td>
            <MonoText>
              {json(e.data)}
              {e.deleted?.length ? ` deleted: ${e.deleted.join(', ')}` : ''}
            </MonoText>
          </Table.Td>
        </Table.Tr>
      ))}
    />
  );
}

const RPC_COLORS = { pending: 'yellow', answered: 'teal', ignored: 'gray', failed: 'red' } as const;

/** RPC requests the simulated devices received and what their responders answered, newest first. */
export function RpcLog({ status }: { status: SimulationStatus }) {
  return (
    <LiveLogCard
      title="RPC requests"
      hint="Send one from a simulated device’s page (RPC console); its responder answers here."
      testId="rpc-log"
      columns={['Time', 'Device', 'Request', 'Answer']}
      rows={status.rpcLog.map((e) => (
        <Table.Tr key={e.seq}>
          <TimeCell ts={e.ts} />
          <Table.Td>
            <Text size="xs">{e.device}</Text>
          </Table.Td>
          <Table.Td>
            <MonoText>
              #{e.id} {e.method}({json(e.params)})
            </MonoText>
          </Table.Td>
          <Table.Td>
            <Stack gap={2}>
              <Group gap={4}>
                <Badge size="xs" variant="light" color={RPC_COLORS[e.status]}>
                  {e.status}
                </Badge>
                <Text size="xs" c="dimmed">
                  {e.responder ?? 'no rule matched'}
                  {e.answeredAt !== undefined ? ` · ${e.answeredAt - e.ts} ms` : ''}
                </Text>
              </Group>
              {e.reply !== undefined && <MonoText>{json(e.reply)}</MonoText>}
            </Stack>
          </Table.Td>
        </Table.Tr>
      ))}
    />
  );
}
