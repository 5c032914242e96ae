import { Badge, Card, Code, Group, Select, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { Fragment, useState } from 'react';
import type { OutgoingLogEntry, RequestLogEntry } from '../../api/rest-connector-api.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatNumber, formatTime } from '../../components/format.ts';
import { MethodBadge, StatusBadge } from './connector-ui.tsx';
import { EmptyTableRow } from '../../components/empty-table-row.tsx';

export const LOG_LIMITS = ['50', '100', '500', '1000'];

function LimitSelect({ value, onChange }: { value: number; onChange: (n: number) => void }) {
  return (
    <Select
      aria-label="Entries shown"
      size="xs"
      w={110}
      value={String(value)}
      onChange={(v) => v && onChange(Number(v))}
      data={LOG_LIMITS.map((l) => ({ value: l, label: `last ${l}` }))}
      allowDeselect={false}
    />
  );
}

const ms = (n: number) => (n < 10 ? n.toFixed(1) : formatNumber(Math.round(n)));

/** The requests the connector answered, newest first, refreshed every second. */
export function RequestLog({
  title = 'Request log',
  entries,
  error,
  limit,
  onLimit,
}: {
  /** a short excerpt (the tester's) has a title of its own and no limit choice */
  title?: string;
  entries: RequestLogEntry[] | undefined;
  error: unknown;
  limit: number;
  onLimit: (n: number) => void;
}) {
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={4}>{title}</Title>
          {title === 'Request log' && <LimitSelect value={limit} onChange={onLimit} />}
        </Group>
        <ErrorAlert error={error} title="Could not load the request log" />
        <Table.ScrollContainer minWidth={820}>
          <Table striped highlightOnHover verticalSpacing={6} data-testid="request-log">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                <Table.Th>Method</Table.Th>
                <Table.Th>Path</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Device</Table.Th>
                <Table.Th ta="right">Datapoints</Table.Th>
                <Table.Th ta="right">ms</Table.Th>
                <Table.Th>Notes</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(entries ?? []).map((r) => (
                <Table.Tr
                  key={r.id}
                  data-testid="request-log-row"
                  data-method={r.method}
                  data-path={r.path}
                  data-status={r.status}
                >
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {formatTime(r.time)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <MethodBadge method={r.method} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {r.path}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge status={r.status} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" data-testid="request-log-device">
                      {r.device ?? '—'}
                    </Text>
                  </Table.Td>
                  <Table.Td ta="right" data-testid="request-log-datapoints">
                    {formatNumber(r.datapoints)}
                  </Table.Td>
                  <Table.Td ta="right">{ms(r.durationMs)}</Table.Td>
                  <Table.Td maw={340}>
                    {r.error && (
                      <Text size="xs" c="red">
                        {r.error}
                      </Text>
                    )}
                    {r.warnings.map((w) => (
                      <Text key={w} size="xs" c="yellow.8">
                        {w}
                      </Text>
                    ))}
                  </Table.Td>
                </Table.Tr>
              ))}
              {entries && entries.length === 0 && (
                <EmptyTableRow columns={8}>
                  No requests yet. Copy an endpoint&apos;s curl command or use the tester.
                </EmptyTableRow>
              )}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Stack>
    </Card>
  );
}

const OUTGOING_STATE_COLORS = { pending: 'yellow', ok: 'teal', failed: 'red' } as const;

function replyText(reply: unknown): string {
  if (reply === null || reply === undefined) return '—';
  return typeof reply === 'string' ? reply : JSON.stringify(reply);
}

/** Outgoing calls (attribute updates and RPC), each with its tries; a row opens to show them. */
export function OutgoingLog({
  entries,
  error,
  limit,
  onLimit,
}: {
  entries: OutgoingLogEntry[] | undefined;
  error: unknown;
  limit: number;
  onLimit: (n: number) => void;
}) {
  const [open, setOpen] = useState<Set<number>>(new Set());
  const toggle = (id: number) =>
    setOpen((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={4}>Outgoing calls</Title>
          <LimitSelect value={limit} onChange={onLimit} />
        </Group>
        <Text size="xs" c="dimmed">
          Shared attribute updates and server-side RPC of devices matching requestsMapping&apos;s filters call
          out with up to <code>tries</code> attempts. Click a call to see its tries.
        </Text>
        <ErrorAlert error={error} title="Could not load the outgoing calls" />
        <Table.ScrollContainer minWidth={900}>
          <Table highlightOnHover verticalSpacing={6} data-testid="outgoing-log">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                <Table.Th>Kind</Table.Th>
                <Table.Th>Device</Table.Th>
                <Table.Th>Trigger</Table.Th>
                <Table.Th>Request</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th ta="right">Tries</Table.Th>
                <Table.Th>Reply</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(entries ?? []).map((o) => (
                <Fragment key={o.id}>
                  <Table.Tr
                    data-testid="outgoing-row"
                    data-state={o.state}
                    onClick={() => toggle(o.id)}
                    style={{ cursor: 'pointer' }}
                    aria-expanded={open.has(o.id)}
                  >
                    <Table.Td>
                      <Text size="sm" ff="monospace">
                        {formatTime(o.time)}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="light" color={o.kind === 'rpc' ? 'grape' : 'blue'} tt="none">
                        {o.kind === 'rpc'
                          ? `RPC${o.rpcId !== null ? ` #${o.rpcId}` : ''}`
                          : 'attribute update'}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{o.device}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" ff="monospace">
                        {o.trigger}
                      </Text>
                    </Table.Td>
                    <Table.Td maw={320}>
                      <Group gap={6} wrap="nowrap">
                        <MethodBadge method={o.method} />
                        <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
                          {o.url}
                        </Text>
                      </Group>
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4} wrap="nowrap">
                        <Badge variant="light" color={OUTGOING_STATE_COLORS[o.state]}>
                          {o.state}
                        </Badge>
                        {o.status !== null && <StatusBadge status={o.status} />}
                      </Group>
                      {o.error && (
                        <Text size="xs" c="red" lineClamp={2} title={o.error}>
                          {o.error}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td ta="right" data-testid="outgoing-tries">
                      {o.tries.length}
                    </Table.Td>
                    <Table.Td maw={220}>
                      <Tooltip label={replyText(o.reply)} disabled={o.reply === null} multiline maw={400}>
                        <Text size="xs" ff="monospace" lineClamp={1}>
                          {replyText(o.reply)}
                        </Text>
                      </Tooltip>
                    </Table.Td>
                  </Table.Tr>
                  {open.has(o.id) && (
                    <Table.Tr data-testid="outgoing-tries-row">
                      <Table.Td colSpan={8} bg="var(--mantine-color-default-hover)">
                        <Stack gap={2} pl="md">
                          {o.tries.length === 0 && (
                            <Text size="xs" c="dimmed">
                              No try yet.
                            </Text>
                          )}
                          {o.tries.map((t, i) => (
                            <Group key={i} gap="sm" wrap="nowrap">
                              <Text size="xs" c="dimmed" w={48}>
                                try {i + 1}
                              </Text>
                              <Text size="xs" ff="monospace" w={80}>
                                {formatTime(t.time)}
                              </Text>
                              <Text size="xs" w={70} ta="right">
                                {ms(t.durationMs)} ms
                              </Text>
                              <StatusBadge status={t.status} />
                              {t.error && (
                                <Code fz="xs" c="red">
                                  {t.error}
                                </Code>
                              )}
                            </Group>
                          ))}
                        </Stack>
                      </Table.Td>
                    </Table.Tr>
                  )}
                </Fragment>
              ))}
              {entries && entries.length === 0 && (
                <EmptyTableRow columns={8}>
                  No outgoing calls yet: they follow shared attribute updates and RPC commands of the
                  gateway&apos;s devices.
                </EmptyTableRow>
              )}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Stack>
    </Card>
  );
}
