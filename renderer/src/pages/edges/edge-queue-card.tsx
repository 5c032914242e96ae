import {
  Badge,
  Card,
  Code,
  Group,
  Pagination,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Edge, EdgeEvent, EdgeEventQuery, EdgeEventStatus } from '../../api/client.ts';
import { useEdgeDevices, useEdgeEvents, useEdgeQueueCounts } from '../../api/hooks.ts';
import { useChartColors } from '../../components/charts/chart-colors.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatNumber, formatTime } from '../../components/format.ts';
import { EmptyTableRow } from '../../components/empty-table-row.tsx';

const STATUSES: EdgeEventStatus[] = ['PENDING', 'RETRIEVED', 'DELIVERED'];
export const STATUS_COLORS: Record<EdgeEventStatus, string> = {
  PENDING: 'orange',
  RETRIEVED: 'blue',
  DELIVERED: 'teal',
};
const PAGE_SIZE = 10;

function QueueChart({ counts }: { counts: Record<EdgeEventStatus, number> | undefined }) {
  const colors = useChartColors();
  const palette = { PENDING: colors.series[2]!, RETRIEVED: colors.series[0]!, DELIVERED: colors.series[1]! };
  const data = STATUSES.map((s) => ({ status: s, count: counts?.[s] ?? 0 }));
  return (
    <div style={{ width: '100%', height: 150 }} data-testid="queue-chart">
      <ResponsiveContainer>
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 16, bottom: 0, left: 8 }}>
          <CartesianGrid stroke={colors.grid} strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" allowDecimals={false} fontSize={colors.fontSize} stroke={colors.axis} />
          <YAxis
            type="category"
            dataKey="status"
            width={(82 * colors.fontSize) / 12}
            fontSize={colors.fontSize}
            stroke={colors.axis}
          />
          <Tooltip cursor={{ fillOpacity: 0.1 }} contentStyle={colors.tooltipStyle} />
          <Bar dataKey="count" name="events" isAnimationActive={false}>
            {data.map((d) => (
              <Cell key={d.status} fill={palette[d.status]} />
            ))}
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

function EventRow({ e, deviceName }: { e: EdgeEvent; deviceName: string | undefined }) {
  const [open, setOpen] = useState(false);
  const body = JSON.stringify(e.body);
  return (
    <Table.Tr data-testid="edge-event" data-status={e.status} data-action={e.action}>
      <Table.Td>
        <Text size="xs" ff="monospace">
          #{e.edgeSeq}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="xs" ff="monospace">
          {e.seqId}
        </Text>
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        <Text size="xs" fw={500}>
          {e.action}
        </Text>
        <Text size="xs" c="dimmed" title={e.entityId}>
          {e.type} {deviceName ?? `${e.entityId.slice(0, 8)}…`} · {formatTime(e.createdTime)}
        </Text>
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        <Badge size="xs" variant="light" color={STATUS_COLORS[e.status]}>
          {e.status}
        </Badge>
      </Table.Td>
      <Table.Td style={{ width: '60%' }}>
        <UnstyledButton
          onClick={() => setOpen((o) => !o)}
          aria-expanded={open}
          title={open ? 'Collapse' : 'Show the whole body'}
          style={{ width: '100%' }}
        >
          {open ? (
            <Code block style={{ fontSize: 11, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
              {JSON.stringify(e.body, null, 2)}
            </Code>
          ) : (
            <Text
              size="xs"
              ff="monospace"
              lineClamp={2}
              style={{ wordBreak: 'break-all' }}
              data-testid="edge-event-body"
            >
              {body}
            </Text>
          )}
        </UnstyledButton>
      </Table.Td>
    </Table.Tr>
  );
}

/** The edge's queue: counts by status as bars, and the events with their bodies, filtered and paged. */
export function EdgeQueueCard({ edge }: { edge: Edge }) {
  const edgeId = edge.id.id;
  const counts = useEdgeQueueCounts(edgeId);
  const devices = useEdgeDevices(edgeId);
  const [status, setStatus] = useState<'ALL' | EdgeEventStatus>('ALL');
  const [sortOrder, setSortOrder] = useState<'DESC' | 'ASC'>('DESC');
  const [page, setPage] = useState(0);
  const query: EdgeEventQuery = {
    page,
    pageSize: PAGE_SIZE,
    sortOrder,
    ...(status === 'ALL' ? {} : { status }),
  };
  const events = useEdgeEvents(edgeId, query);
  const names = new Map((devices.data?.data ?? []).map((d) => [d.id.id, d.name]));
  const c = counts.data;
  const total = c ? c.PENDING + c.RETRIEVED + c.DELIVERED : undefined;

  return (
    <Card withBorder radius="md" p="md" data-testid="edge-queue">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={5}>Queue</Title>
          <Text size="xs" c="dimmed">
            {total === undefined ? '…' : `${formatNumber(total)} events`} · refreshed every 2 s
          </Text>
        </Group>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Stack gap={4}>
            {STATUSES.map((s) => (
              <Group key={s} justify="space-between">
                <Badge variant="light" color={STATUS_COLORS[s]}>
                  {s}
                </Badge>
                <Text fw={700} data-testid={`queue-${s}`}>
                  {c ? formatNumber(c[s]) : '…'}
                </Text>
              </Group>
            ))}
            <Text size="xs" c="dimmed" mt={4}>
              Pending: waiting for the edge. Retrieved: pulled, not yet acknowledged. Delivered: acknowledged.
            </Text>
          </Stack>
          <QueueChart counts={c} />
        </SimpleGrid>
        <ErrorAlert error={counts.error ?? events.error} title="Could not load the queue" />
        <Group justify="space-between" wrap="wrap">
          <SegmentedControl
            size="xs"
            aria-label="Events with status"
            value={status}
            onChange={(v) => {
              setStatus(v as 'ALL' | EdgeEventStatus);
              setPage(0);
            }}
            data={[
              { value: 'ALL', label: 'All' },
              ...STATUSES.map((s) => ({ value: s, label: s.toLowerCase() })),
            ]}
            data-testid="event-status-filter"
          />
          <Select
            size="xs"
            aria-label="Order"
            data={[
              { value: 'DESC', label: 'Newest first' },
              { value: 'ASC', label: 'Oldest first' },
            ]}
            value={sortOrder}
            onChange={(v) => {
              setSortOrder((v as 'ASC' | 'DESC') ?? 'DESC');
              setPage(0);
            }}
            allowDeselect={false}
            w={140}
          />
        </Group>
        <Table.ScrollContainer minWidth={600}>
          <Table
            verticalSpacing={4}
            data-testid="edge-events"
            style={{ opacity: events.isPlaceholderData ? 0.6 : 1 }}
          >
            <Table.Thead>
              <Table.Tr>
                <Table.Th
                  title="This edge's own event number (the simulated edge's verdict names these)"
                  style={{ whiteSpace: 'nowrap' }}
                >
                  Edge #
                </Table.Th>
                <Table.Th title="One sequence shared by every edge">seqId</Table.Th>
                <Table.Th>Event</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Body</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(events.data?.data ?? []).map((e) => (
                <EventRow key={e.id.id} e={e} deviceName={names.get(e.entityId)} />
              ))}
              {events.data && events.data.data.length === 0 && (
                <EmptyTableRow columns={5}>
                  {status === 'ALL'
                    ? 'No events yet. Telemetry of an assigned device reaches the queue through a “push to edge” node of the root chain.'
                    : `No ${status.toLowerCase()} events.`}
                </EmptyTableRow>
              )}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {events.data && events.data.totalPages > 1 && (
          <Group justify="flex-end">
            <Pagination
              size="sm"
              total={events.data.totalPages}
              value={page + 1}
              onChange={(p) => setPage(p - 1)}
              aria-label="Event pages"
            />
          </Group>
        )}
      </Stack>
    </Card>
  );
}
