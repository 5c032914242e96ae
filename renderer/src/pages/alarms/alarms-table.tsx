import { Anchor, Button, Group, Pagination, Paper, Select, Table, Text, Tooltip } from '@mantine/core';
import { useState } from 'react';
import type { AlarmPageQuery } from '../../api/entities-api.ts';
import { useAckAlarm, useAlarms, useClearAlarm } from '../../api/entities-hooks.ts';
import { EmptyTableRow } from '../../components/empty-table-row.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime } from '../../components/format.ts';
import { Link } from '../../router.tsx';
import { AlarmDetailsModal } from './alarm-details-modal.tsx';
import { SeverityBadge, StatusBadge, originatorPath } from './alarm-badges.tsx';

const PAGE_SIZES = ['10', '20', '50', '100'];

/**
 * A page of alarms with acknowledge and clear actions; refreshed by the WebSocket's alarm messages.
 * The caller owns the query (filters, page) and gets paging changes back.
 */
export function AlarmsTable({
  query,
  onPage,
  showOriginator = true,
  emptyText,
}: {
  query: AlarmPageQuery;
  onPage: (page: number, pageSize: number) => void;
  showOriginator?: boolean;
  emptyText: string;
}) {
  const alarms = useAlarms(query);
  const ack = useAckAlarm();
  const clear = useClearAlarm();
  const rows = alarms.data?.data ?? [];
  const columns = showOriginator ? 7 : 6;
  const [open, setOpen] = useState<(typeof rows)[number] | null>(null);
  return (
    <>
      <ErrorAlert error={alarms.error} title="Could not load the alarms" />
      <ErrorAlert error={ack.error ?? clear.error} title="The alarm could not be changed" />
      <Paper withBorder radius="md">
        <Table.ScrollContainer minWidth={showOriginator ? 860 : 660}>
          <Table verticalSpacing="xs" highlightOnHover data-testid="alarms-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Created</Table.Th>
                {showOriginator && <Table.Th>Originator</Table.Th>}
                <Table.Th>Type</Table.Th>
                <Table.Th>Severity</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Cleared</Table.Th>
                <Table.Th style={{ width: 1 }} aria-label="Actions" />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody style={{ opacity: alarms.isPlaceholderData ? 0.6 : 1 }}>
              {rows.map((alarm) => {
                const path = originatorPath(alarm);
                // the name, as every other page shows it (the display name is the label when there is one)
                const name = alarm.originatorName ?? alarm.originator.id;
                return (
                  <Table.Tr
                    key={alarm.id.id}
                    style={{ cursor: 'pointer' }}
                    onClick={(e) => {
                      if ((e.target as HTMLElement).closest('a, button')) return;
                      setOpen(alarm);
                    }}
                    data-testid="alarm-row"
                    data-alarm-id={alarm.id.id}
                    data-type={alarm.type}
                  >
                    <Table.Td>
                      <Tooltip label={`Last raised ${formatDateTime(alarm.endTs)}`} withArrow>
                        <Text size="sm">{formatDateTime(alarm.createdTime)}</Text>
                      </Tooltip>
                    </Table.Td>
                    {showOriginator && (
                      <Table.Td>
                        {path ? (
                          <Anchor component={Link} to={path} size="sm">
                            {name}
                          </Anchor>
                        ) : (
                          <Text size="sm">{name}</Text>
                        )}
                        <Text size="xs" c="dimmed">
                          {alarm.originator.entityType}
                        </Text>
                      </Table.Td>
                    )}
                    <Table.Td>
                      <Text size="sm" fw={500}>
                        {alarm.type}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <SeverityBadge severity={alarm.severity} />
                    </Table.Td>
                    <Table.Td>
                      <StatusBadge alarm={alarm} />
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" c="dimmed" data-testid="alarm-cleared-time">
                        {alarm.clearTs > 0 ? formatDateTime(alarm.clearTs) : '—'}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4} wrap="nowrap">
                        {!alarm.acknowledged && (
                          <Button
                            size="compact-sm"
                            variant="subtle"
                            loading={ack.isPending && ack.variables === alarm.id.id}
                            onClick={() => ack.mutate(alarm.id.id)}
                            aria-label={`Acknowledge ${alarm.type}`}
                            data-testid="alarm-ack"
                          >
                            Acknowledge
                          </Button>
                        )}
                        {!alarm.cleared && (
                          <Button
                            size="compact-sm"
                            variant="subtle"
                            color="red"
                            loading={clear.isPending && clear.variables === alarm.id.id}
                            onClick={() => clear.mutate(alarm.id.id)}
                            aria-label={`Clear ${alarm.type}`}
                            data-testid="alarm-clear"
                          >
                            Clear
                          </Button>
                        )}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
              {alarms.data && rows.length === 0 && (
                <EmptyTableRow columns={columns}>{emptyText}</EmptyTableRow>
              )}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
      <AlarmDetailsModal opened={open} onClose={() => setOpen(null)} />
      {alarms.data && alarms.data.totalElements > query.pageSize && (
        <Group justify="space-between">
          <Select
            aria-label="Alarms per page"
            data={PAGE_SIZES}
            value={String(query.pageSize)}
            onChange={(v) => onPage(0, Number(v ?? 20))}
            w={90}
            allowDeselect={false}
          />
          <Pagination
            total={alarms.data.totalPages}
            value={query.page + 1}
            onChange={(p) => onPage(p - 1, query.pageSize)}
          />
        </Group>
      )}
    </>
  );
}
