import { Alert, Anchor, Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { Area, AreaChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { PlatformStats } from '../api/client.ts';
import { useStats } from '../api/hooks.ts';
import { useChartColors } from '../components/charts/chart-colors.ts';
import { windowUntilNow } from '../components/charts/time-axis.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { formatNumber, formatTime } from '../components/format.ts';
import { PageHeader } from '../components/page-header.tsx';
import { StatTile } from '../components/stat-tile.tsx';
import { useStatsHistory } from '../live/live-provider.tsx';
import { Link } from '../router.tsx';

function Counters({ stats }: { stats: PlatformStats | undefined }) {
  const n = (v: number | undefined) => (v === undefined ? undefined : formatNumber(v));
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 3, lg: 5 }}>
      <StatTile size="lg" label="Devices" value={n(stats?.devices)} testId="stat-devices" />
      <StatTile
        size="lg"
        label="Gateways"
        value={n(stats?.gateways)}
        testId="stat-gateways"
        note="Devices marked as gateways: they connect other devices"
      />
      <StatTile
        size="lg"
        label="Connected sessions"
        value={n(stats?.connectedSessions)}
        testId="stat-sessions"
        note={
          stats && !stats.mqttBroker ? (
            'Always 0 for now: the MQTT broker arrives in step 3'
          ) : (
            <Anchor component={Link} to="/mqtt?tab=sessions" size="xs" data-testid="sessions-link">
              MQTT clients: see them
            </Anchor>
          )
        }
      />
      <StatTile
        size="lg"
        label="Messages / s"
        value={stats ? stats.messagesPerSecond.toFixed(1) : undefined}
        testId="stat-rate"
        note="Telemetry and attribute writes, last 5 s"
      />
      <StatTile size="lg" label="Stored datapoints" value={n(stats?.datapoints)} testId="stat-datapoints" />
    </SimpleGrid>
  );
}

/** Messages per second as pushed since this app opened: there is no stored history of the rate. */
function MessageRateChart() {
  const samples = useStatsHistory();
  const colors = useChartColors();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 2_000);
    return () => clearInterval(t);
  }, []);
  const last = samples[samples.length - 1];
  const end = Math.max(now, last?.ts ?? now);
  const [from, to] = windowUntilNow(samples[0]?.ts, end);
  const data = last ? [...samples, { ...last, ts: end }] : [];
  return (
    <Card withBorder radius="md" p="md">
      <Group justify="space-between" mb="sm">
        <Title order={4}>Message rate</Title>
        <Text size="xs" c="dimmed">
          since this window opened
        </Text>
      </Group>
      {!last ? (
        <Text size="sm" c="dimmed">
          Waiting for live counters…
        </Text>
      ) : (
        <div style={{ width: '100%', height: 180 }} data-testid="rate-chart" data-window={`${from},${to}`}>
          <ResponsiveContainer>
            <AreaChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
              <CartesianGrid stroke={colors.grid} strokeDasharray="3 3" />
              <XAxis {...colors.timeAxis(from, to)} />
              <YAxis allowDecimals fontSize={colors.fontSize} stroke={colors.axis} />
              <Tooltip labelFormatter={(ts) => formatTime(Number(ts))} contentStyle={colors.tooltipStyle} />
              <Area
                type="stepAfter"
                dataKey="messagesPerSecond"
                name="messages/s"
                stroke={colors.series[0]}
                fill={colors.series[0]}
                fillOpacity={colors.fillOpacity}
                isAnimationActive={false}
              />
            </AreaChart>
          </ResponsiveContainer>
        </div>
      )}
    </Card>
  );
}

const mib = (bytes: number) => {
  const n = bytes / 1024 / 1024;
  return `${n < 10 ? n.toFixed(1) : formatNumber(Math.round(n))} MiB`;
};

/** The store's size against its budget, from 80% on (and after size-based retention dropped data). */
function StoreWarning({ store }: { store: PlatformStats['store'] }) {
  if (!store || store.budgetBytes <= 0 || (!store.warning && store.prunedDatapoints === 0)) return null;
  const percent = Math.round((store.usedBytes / store.budgetBytes) * 100);
  return (
    <Alert
      variant="light"
      color={store.full ? 'red' : 'yellow'}
      title={store.full ? 'The store is full' : `The store is ${percent}% full`}
      data-testid="store-warning"
    >
      <Text size="sm">
        {mib(store.usedBytes)} of the {mib(store.budgetBytes)} budget (SANDBOARD_STORE_BUDGET_MB) is used.{' '}
        {store.full
          ? 'Telemetry, attributes and new devices are refused (HTTP 507, MQTT 0x97) until devices or attributes are deleted or the budget is raised.'
          : 'From 90% the oldest telemetry history is dropped to make room; attributes and devices are kept.'}
        {store.prunedDatapoints > 0 &&
          ` Size-based retention has dropped ${formatNumber(store.prunedDatapoints)} of the oldest datapoints${
            store.lastPrunedAt ? `, last at ${formatTime(store.lastPrunedAt)}` : ''
          }.`}
      </Text>
    </Alert>
  );
}

export default function OverviewPage() {
  const stats = useStats();
  return (
    <Stack gap="lg">
      <PageHeader title="Overview" description="The platform at a glance. Counters update live." />
      <ErrorAlert error={stats.error} title="Could not load the counters" />
      <StoreWarning store={stats.data?.store} />
      {stats.data && stats.data.devices === 0 && (
        <Alert variant="light" title="Start here" data-testid="start-here-banner">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">
              New to Sandboard? Load a ready-made sandbox (ThingsBoard 101, a smart building, a fleet of
              trackers, a factory line) with its dashboard, a running simulation and a guided tour. Or{' '}
              <Anchor component={Link} to="/devices">
                create a device
              </Anchor>
              , then send it telemetry with the <code>curl</code> or <code>mosquitto_pub</code> command on its
              page, or try the REST API in the{' '}
              <Anchor component={Link} to="/api-explorer">
                API Explorer
              </Anchor>
              .
            </Text>
            <Button component={Link} to="/start-here" size="xs" data-testid="open-start-here">
              Open Start here
            </Button>
          </Stack>
        </Alert>
      )}
      <Counters stats={stats.data} />
      <MessageRateChart />
    </Stack>
  );
}
