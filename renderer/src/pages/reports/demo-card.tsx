import { Alert, Button, Card, Group, Progress, Stack, Text, Title } from '@mantine/core';
import type { DemoStatus } from '../../api/reports-api.ts';
import { formatNumber } from '../../components/format.ts';

/** The smart-building demo loader: what it makes, a button, and its progress while it runs. */
export function DemoCard({
  status,
  onLoad,
  starting,
}: {
  status: DemoStatus | undefined;
  onLoad: () => void;
  starting: boolean;
}) {
  const state = status?.state ?? 'NOT_LOADED';
  const running = state === 'RUNNING' || starting;
  return (
    <Card withBorder radius="md" p="md" data-testid="demo-card" data-state={state}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="wrap">
          <Stack gap={4} maw={680}>
            <Title order={4}>Smart building demo data</Title>
            <Text size="sm" c="dimmed">
              {status?.totalDevices ?? 60} meters (an energy and a water meter in each apartment of three
              buildings) with building, floor and apartment attributes, 30 days of hourly readings (
              {formatNumber(status?.totalRows ?? 108_000)} datapoints) and three saved table views to start
              from.
            </Text>
          </Stack>
          <Button onClick={onLoad} loading={running} disabled={state === 'DONE'} data-testid="load-demo">
            {state === 'DONE' ? 'Loaded' : state === 'FAILED' ? 'Try again' : 'Load the Smart building demo'}
          </Button>
        </Group>
        {status && (state === 'RUNNING' || state === 'DONE') && (
          <Stack gap={4}>
            <Progress
              value={status.percent}
              animated={state === 'RUNNING'}
              color={state === 'DONE' ? 'teal' : 'blue'}
              aria-label="Demo data loaded"
              data-testid="demo-progress"
              data-percent={status.percent}
            />
            <Text size="xs" c="dimmed" data-testid="demo-progress-text">
              {state === 'DONE'
                ? `Done: ${formatNumber(status.devices)} devices, ${formatNumber(status.rowsWritten)} datapoints, ${status.viewIds.length} views`
                : `${status.percent}% · ${formatNumber(status.devices)} / ${formatNumber(status.totalDevices)} devices · ${formatNumber(status.rowsWritten)} / ${formatNumber(status.totalRows)} datapoints`}
            </Text>
          </Stack>
        )}
        {state === 'FAILED' && status?.error && (
          <Alert color="red" variant="light" title="The demo did not load">
            {status.error}
          </Alert>
        )}
      </Stack>
    </Card>
  );
}
