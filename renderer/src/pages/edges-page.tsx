import {
  Alert,
  Anchor,
  Badge,
  Button,
  Grid,
  Group,
  List,
  Modal,
  Paper,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useState } from 'react';
import type { Edge, EdgeSyncDemo } from '../api/client.ts';
import {
  useCurrentUser,
  useDeleteEdge,
  useEdgeSimulators,
  useEdges,
  useRunEdgeSyncDemo,
  useSimulations,
} from '../api/hooks.ts';
import sampleScenario from '../../../shared/scenarios/smart-building-gateway.json';
import { ConfirmModal } from '../components/confirm-modal.tsx';
import { CopyValueButton } from '../components/copy-value.tsx';
import { ErrorAlert } from '../components/error-alert.tsx';
import { formatDateTime } from '../components/format.ts';
import { AdminOnlyPage } from '../components/admin-only-page.tsx';
import { PageHeader } from '../components/page-header.tsx';
import { Link } from '../router.tsx';
import { EdgeAssignmentsCard } from './edges/edge-assignments-card.tsx';
import { EdgeFormModal, EdgeSecretModal } from './edges/edge-form-modal.tsx';
import { EdgeQueueCard } from './edges/edge-queue-card.tsx';
import { EdgeSimulatorCard } from './edges/edge-simulator-card.tsx';

function EdgesTable({
  edges,
  selected,
  simulated,
  onSelect,
  onEdit,
  onDelete,
}: {
  edges: Edge[];
  selected: string | undefined;
  simulated: Set<string>;
  onSelect: (id: string) => void;
  onEdit: (edge: Edge) => void;
  onDelete: (edge: Edge) => void;
}) {
  return (
    <Paper withBorder radius="md">
      <Table.ScrollContainer minWidth={720}>
        <Table highlightOnHover verticalSpacing="sm" data-testid="edges-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Type</Table.Th>
              <Table.Th>Routing key</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th style={{ width: 1 }} aria-label="Actions" />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {edges.map((e) => (
              <Table.Tr
                key={e.id.id}
                bg={e.id.id === selected ? 'var(--mantine-color-default-hover)' : undefined}
                data-testid="edge-row"
                data-name={e.name}
              >
                <Table.Td>
                  <UnstyledButton onClick={() => onSelect(e.id.id)} aria-pressed={e.id.id === selected}>
                    <Group gap="xs" wrap="nowrap">
                      <Text size="sm" fw={600}>
                        {e.name}
                      </Text>
                      {simulated.has(e.id.id) && (
                        <Badge size="xs" variant="light" color="grape">
                          simulated
                        </Badge>
                      )}
                    </Group>
                    {e.label && (
                      <Text size="xs" c="dimmed">
                        {e.label}
                      </Text>
                    )}
                  </UnstyledButton>
                </Table.Td>
                <Table.Td>{e.type}</Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    <Text size="xs" ff="monospace">
                      {e.routingKey}
                    </Text>
                    <CopyValueButton value={e.routingKey} label="Copy routing key" />
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Text size="xs" c="dimmed">
                    {formatDateTime(e.createdTime)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    <Button size="compact-sm" variant="subtle" onClick={() => onEdit(e)}>
                      Edit
                    </Button>
                    <Button size="compact-sm" variant="subtle" color="red" onClick={() => onDelete(e)}>
                      Delete
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

function DemoResult({ demo, onClose }: { demo: EdgeSyncDemo; onClose: () => void }) {
  return (
    <Alert
      color="teal"
      variant="light"
      title="Edge sync demo running"
      withCloseButton
      onClose={onClose}
      data-testid="demo-result"
    >
      <Text size="sm">
        A “push to edge” node now follows Save Timeseries in the root chain; a new edge has the devices of a
        simulated gateway assigned, and a simulated edge pulls its queue. Watch the queue below, or the{' '}
        <Anchor component={Link} to={`/gateways/${demo.simulationId}`} size="sm">
          gateway simulation
        </Anchor>{' '}
        that feeds it.
      </Text>
      {demo.simulationRestarted && (
        <Text size="sm" mt="xs" data-testid="demo-restarted">
          The gateway simulation had been stopped: the demo started it again. Stop it on its page when you are
          done.
        </Text>
      )}
    </Alert>
  );
}

/** What the demo changes, said before it does: it edits the root rule chain and may restart a simulation. */
function EdgeDemoConfirm({
  opened,
  onClose,
  onConfirm,
}: {
  opened: boolean;
  onClose: () => void;
  onConfirm: () => void;
}) {
  const simulations = useSimulations(opened);
  const existing = (simulations.data ?? []).find((s) => s.name === sampleScenario.name);
  const stopped = existing !== undefined && !['running', 'starting'].includes(existing.state);
  return (
    <Modal opened={opened} onClose={onClose} title="Run the edge sync demo?" size="lg">
      <Stack gap="sm" data-testid="edge-demo-confirm">
        <Text size="sm">The demo changes this platform:</Text>
        <List size="sm" spacing={4}>
          <List.Item data-testid="edge-demo-change-chain">
            The <b>root rule chain</b> gets a <b>Push to edge</b> node after Save Timeseries (unless it has
            one): from then on every saved telemetry message is also queued for the edges its device is
            assigned to.
          </List.Item>
          <List.Item>A new edge, “Demo edge”, and a simulated edge pulling its queue are created.</List.Item>
          <List.Item data-testid="edge-demo-change-simulation">
            {existing
              ? stopped
                ? `The gateway simulation “${existing.name}” is stopped: it is started again.`
                : `The gateway simulation “${existing.name}” keeps running.`
              : `A gateway simulation “${sampleScenario.name}” is created and started.`}{' '}
            Its devices are assigned to the new edge.
          </List.Item>
        </List>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Cancel
          </Button>
          <Button onClick={onConfirm} data-testid="confirm-edge-demo">
            Run the demo
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export default function EdgesPage() {
  const user = useCurrentUser();
  const isAdmin = user.data?.authority === 'TENANT_ADMIN';
  const edges = useEdges({ page: 0, pageSize: 100, sortProperty: 'createdTime', sortOrder: 'ASC' }, isAdmin);
  const simulators = useEdgeSimulators(isAdmin);
  const remove = useDeleteEdge();
  const demo = useRunEdgeSyncDemo();
  const [chosen, setChosen] = useState<string | undefined>();
  const [editing, setEditing] = useState<Edge | 'new' | null>(null);
  const [created, setCreated] = useState<Edge | null>(null);
  const [deleting, setDeleting] = useState<Edge | null>(null);
  const [demoShown, setDemoShown] = useState(false);
  const [askingDemo, setAskingDemo] = useState(false);

  const list = edges.data?.data ?? [];
  const selectedEdge = list.find((e) => e.id.id === chosen) ?? list[0];
  const simulated = new Set((simulators.data ?? []).map((s) => s.edgeId));

  if (user.data && !isAdmin) {
    return <AdminOnlyPage title="Edges">Edges belong to the tenant administrator.</AdminOnlyPage>;
  }

  return (
    <Stack gap="md">
      <PageHeader
        title="Edges"
        description="Edge instances that receive selected devices' data from this platform through a durable queue."
        actions={
          <>
            <Button
              variant="default"
              loading={demo.isPending}
              onClick={() => setAskingDemo(true)}
              data-testid="run-edge-demo"
            >
              Run the edge sync demo
            </Button>
            <Button onClick={() => setEditing('new')} data-testid="add-edge">
              Add edge
            </Button>
          </>
        }
      />
      <Alert variant="light" color="blue" data-testid="edge-success-note">
        <Text size="sm">
          Success means the event is stored in the edge queue, not that the edge received it.
        </Text>
        <Text size="xs" c="dimmed" mt={4}>
          A “push to edge” node answers Success once the event is on disk; the edge gets it when it pulls
          (Pending → Retrieved) and acknowledges it (Delivered).
        </Text>
      </Alert>
      <EdgeDemoConfirm
        opened={askingDemo}
        onClose={() => setAskingDemo(false)}
        onConfirm={() => {
          setAskingDemo(false);
          demo.mutate(undefined, {
            onSuccess: (result) => {
              setChosen(result.edgeId);
              setDemoShown(true);
            },
          });
        }}
      />
      <ErrorAlert error={demo.error} title="The edge sync demo failed" />
      {demo.data && demoShown && <DemoResult demo={demo.data} onClose={() => setDemoShown(false)} />}
      <ErrorAlert error={edges.error} title="Could not load the edges" />
      {isAdmin && !edges.data && !edges.error && <Skeleton h={120} />}
      {edges.data && list.length === 0 && (
        <Paper withBorder radius="md" p="lg">
          <Text c="dimmed" ta="center" size="sm">
            No edges yet. Add one, or run the edge sync demo to see the whole path working.
          </Text>
        </Paper>
      )}
      {list.length > 0 && (
        <EdgesTable
          edges={list}
          selected={selectedEdge?.id.id}
          simulated={simulated}
          onSelect={setChosen}
          onEdit={setEditing}
          onDelete={setDeleting}
        />
      )}
      {selectedEdge && (
        <Stack gap="sm" data-testid="edge-detail" data-edge={selectedEdge.name}>
          <Title order={4}>{selectedEdge.name}</Title>
          <Grid>
            <Grid.Col span={{ base: 12, lg: 5 }}>
              <EdgeAssignmentsCard key={selectedEdge.id.id} edge={selectedEdge} />
            </Grid.Col>
            <Grid.Col span={{ base: 12, lg: 7 }}>
              <EdgeSimulatorCard key={selectedEdge.id.id} edge={selectedEdge} />
            </Grid.Col>
            <Grid.Col span={12}>
              <EdgeQueueCard key={selectedEdge.id.id} edge={selectedEdge} />
            </Grid.Col>
          </Grid>
        </Stack>
      )}
      <EdgeFormModal
        edge={editing === 'new' ? null : editing}
        opened={editing !== null}
        onClose={() => setEditing(null)}
        onCreated={(edge) => {
          setChosen(edge.id.id);
          setCreated(edge);
        }}
      />
      <EdgeSecretModal edge={created} onClose={() => setCreated(null)} />
      <ConfirmModal
        opened={deleting !== null}
        title="Delete this edge?"
        confirmLabel="Delete"
        busy={remove.isPending}
        error={remove.error}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting.id.id, { onSuccess: () => setDeleting(null) })}
        testId="confirm-delete-edge"
      >
        {deleting ? `“${deleting.name}” is deleted with its queue and assignments.` : ''}
      </ConfirmModal>
    </Stack>
  );
}
