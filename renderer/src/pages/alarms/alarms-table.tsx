import { Anchor, Badge, Button, Group, Pagination, Paper, Select, Table, Text, Tooltip } from '@mantine/core';
import type { AlarmInfo, AlarmPageQuery, AlarmSeverity } from '../../api/entities-api.ts';
import { useAckAlarm, useAlarms, useClearAlarm } from '../../api/entities-hooks.ts';
import { EmptyTableRow } from '../../components/empty-table-row.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime } from '../../components/format.ts';
import { Link } from '../../router.tsx';

export const SEVERITY_COLORS: Record<AlarmSeverity, string> = {
  CRITICAL: 'red',
  MAJOR: 'orange',
  MINOR: 'yellow',
  WARNING: 'blue',
  INDETERMINATE: 'gray',
};

const STATUS_LABELS: Record<AlarmInfo['status'], string> = {
  ACTIVE_UNACK: 'Active, unacknowledged',
  ACTIVE_ACK: 'Active, acknowledged',
  CLEARED_UNACK: 'Cleared, unacknowledged',
  CLEARED_ACK: 'Cleared, acknowledged',
};

export function SeverityBadge({ severity }: { severity: AlarmSeverity }) {
  return (
    <Badge
      color={SEVERITY_COLORS[severity]}
      // only red reads at 4.5:1 as white on its filled shade: the others are light badges (dark text)
      variant={severity === 'CRITICAL' ? 'filled' : 'light'}
      size="sm"
      data-testid="alarm-severity"
    >
      {severity}
    </Badge>
  );
}

function StatusBadge({ alarm }: { alarm: AlarmInfo }) {
  return (
    <Badge
      color={alarm.cleared ? 'gray' : 'red'}
      variant={alarm.acknowledged ? 'outline' : 'light'}
      size="sm"
      data-testid="alarm-status"
      data-status={alarm.status}
    >
      {STATUS_LABELS[alarm.status]}
    </Badge>
  );
}

/** Where an originator's page is, when it has one in the app. */
function originatorPath(alarm: AlarmInfo): string | null {
  if (alarm.originator.entityType === 'DEVICE') return `/devices/${alarm.originator.id}`;
  if (alarm.originator.entityType === 'ASSET') return `/assets/${alarm.originator.id}`;
  return null;
}

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
  const columns = showOriginator ? 6 : 5;
  return (
    <>
      <ErrorAlert error={alarms.error} title="Could not load the alarms" />
      <ErrorAlert error={ack.error ?? clear.error} title="The alarm could not be changed" />
      <Paper withBorder radius="md">
        <Table.ScrollContainer minWidth={showOriginator ? 760 : 560}>
          <Table verticalSpacing="xs" highlightOnHover data-testid="alarms-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Created</Table.Th>
                {showOriginator && <Table.Th>Originator</Table.Th>}
                <Table.Th>Type</Table.Th>
                <Table.Th>Severity</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th style={{ width: 1 }} aria-label="Actions" />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody style={{ opacity: alarms.isPlaceholderData ? 0.6 : 1 }}>
              {rows.map((alarm) => {
                const path = originatorPath(alarm);
                const name = alarm.originatorDisplayName ?? alarm.originator.id;
                return (
                  <Table.Tr
                    key={alarm.id.id}
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
