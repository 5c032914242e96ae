import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  List,
  Progress,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { useCurrentUser } from '../../api/hooks.ts';
import type { LoadShippedSandboxResult, ShippedSandboxInfo } from '../../api/sandboxes-api.ts';
import { useLoadShippedSandbox, useShippedSandboxes } from '../../api/sandboxes-hooks.ts';
import { AdminOnlyPage } from '../../components/admin-only-page.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { Link } from '../../router.tsx';
import { startTour, tourProgress, useTourState } from '../../tour/tour-store.ts';

const STATE_LABEL: Record<ShippedSandboxInfo['status']['state'], string> = {
  NOT_LOADED: 'not loaded',
  LOADING: 'loading',
  LOADED: 'loaded',
  FAILED: 'failed',
};

function summary(result: LoadShippedSandboxResult): string {
  const created = result.created.length;
  const kept = result.existing.length;
  if (created === 0) return `Already loaded: nothing new created (${kept} kept), its simulation runs.`;
  const byType = new Map<string, number>();
  for (const c of result.created) byType.set(c.type, (byType.get(c.type) ?? 0) + 1);
  const parts = [...byType].map(([t, n]) => `${n} ${t.toLowerCase().replace(/_/g, ' ')}${n > 1 ? 's' : ''}`);
  return `Created ${parts.join(', ')}${kept ? `; kept ${kept} already there` : ''}.`;
}

function SandboxCard({ sandbox }: { sandbox: ShippedSandboxInfo }) {
  const load = useLoadShippedSandbox();
  useTourState(); // re-render when a tour's saved position moves
  const [result, setResult] = useState<LoadShippedSandboxResult | null>(null);
  const { status } = sandbox;
  const loading = status.state === 'LOADING' || load.isPending;
  const loaded = status.state === 'LOADED' && !load.isPending;
  const progress = tourProgress(sandbox.id);
  const resumable = progress && !progress.done && progress.index > 0;
  const tour = (restart: boolean) =>
    startTour(
      {
        sandboxId: sandbox.id,
        title: sandbox.title,
        steps: sandbox.tour,
        vars: {
          dashboardId: status.dashboardId ?? '',
          simulationId: status.simulationId ?? '',
          deviceId: status.deviceId ?? '',
        },
      },
      restart,
    );
  return (
    <Card
      withBorder
      radius="md"
      p="md"
      data-testid="sandbox-card"
      data-id={sandbox.id}
      data-state={status.state}
    >
      <Stack gap="sm" h="100%">
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <Title order={3} size="h4">
            {sandbox.title}
          </Title>
          <Badge variant="light" color={loaded ? 'teal' : status.state === 'FAILED' ? 'red' : 'gray'}>
            {STATE_LABEL[status.state]}
          </Badge>
        </Group>
        <Text size="sm">{sandbox.description}</Text>
        <div>
          <Text size="xs" fw={600} tt="uppercase" c="dimmed" mb={4}>
            What it teaches
          </Text>
          <List size="sm" spacing={2}>
            {sandbox.teaches.map((t) => (
              <List.Item key={t}>{t}</List.Item>
            ))}
          </List>
        </div>
        <Text size="xs" c="dimmed">
          {sandbox.devices} simulated device{sandbox.devices === 1 ? '' : 's'} · a tour of{' '}
          {sandbox.tour.length} steps
        </Text>
        {loading && status.total > 0 && (
          <Stack gap={2}>
            <Progress
              value={(status.done / status.total) * 100}
              animated
              aria-label={`Loading ${sandbox.title}`}
              data-testid="sandbox-progress"
            />
            <Text size="xs" c="dimmed">
              {status.done} / {status.total} · {status.step ?? 'starting'}
            </Text>
          </Stack>
        )}
        {result && (
          <Text size="xs" c="dimmed" data-testid="sandbox-created">
            {summary(result)}
          </Text>
        )}
        {status.state === 'FAILED' && status.error && (
          <Alert color="red" variant="light" title="It did not load">
            {status.error}
          </Alert>
        )}
        <ErrorAlert error={load.error} title="It did not load" />
        <Group gap="xs" mt="auto" wrap="wrap">
          <Button
            onClick={() => load.mutate(sandbox.id, { onSuccess: setResult })}
            loading={loading}
            variant={loaded ? 'default' : 'filled'}
            data-testid="load-sandbox"
          >
            {loaded ? 'Load again' : status.state === 'FAILED' ? 'Try again' : 'Load'}
          </Button>
          {loaded && status.dashboardId && (
            <Button
              component={Link}
              to={`/dashboards/${status.dashboardId}`}
              variant="light"
              data-testid="open-dashboard"
            >
              Open dashboard
            </Button>
          )}
          {loaded && (
            <Button variant="light" onClick={() => tour(false)} data-testid="start-tour">
              {resumable ? `Resume tour (step ${progress.index + 1} / ${sandbox.tour.length})` : 'Start tour'}
            </Button>
          )}
          {loaded && resumable && (
            <Button variant="subtle" onClick={() => tour(true)} data-testid="restart-tour">
              From the start
            </Button>
          )}
        </Group>
      </Stack>
    </Card>
  );
}

/** The shipped sandboxes: load one in a click, open its dashboard, take its guided tour. */
export default function StartHerePage() {
  const user = useCurrentUser();
  const isAdmin = user.data?.authority === 'TENANT_ADMIN';
  const list = useShippedSandboxes(isAdmin);
  if (user.data && !isAdmin)
    return (
      <AdminOnlyPage title="Start here">
        The shipped sandboxes are loaded by the tenant administrator.
      </AdminOnlyPage>
    );
  return (
    <Stack gap="lg">
      <PageHeader
        title="Start here"
        description="Ready-made sandboxes, each with its devices, a dashboard, a running simulation and a short guided tour. Loading one again creates nothing twice."
      />
      <ErrorAlert error={list.error} title="Could not load the sandboxes" />
      <SimpleGrid cols={{ base: 1, md: 2 }} data-testid="sandbox-list">
        {list.data?.data.map((s) => (
          <SandboxCard key={s.id} sandbox={s} />
        ))}
      </SimpleGrid>
    </Stack>
  );
}
