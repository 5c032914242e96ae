import { Badge, Table, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { formatDateTime } from '../../../components/format.ts';
import { useDashboard, useWidgetData, widgetTimewindow } from '../dashboard-context.tsx';
import type { Datasource, Widget } from '../dashboard-model.ts';
import { timeRange } from '../timewindow.ts';
import { datasourceFilter, MAX_ENTITIES } from '../widget-data.ts';
import { formatKeyValue, keyLabel } from './widget-format.ts';
import { WidgetMessage } from './widget-message.tsx';

function Scroll({ children, testId }: { children: React.ReactNode; testId: string }) {
  return (
    // focusable, so that a keyboard can scroll it too
    <div style={{ height: '100%', overflow: 'auto' }} data-testid={testId} tabIndex={0}>
      {children}
    </div>
  );
}

/** The entities table: a row per entity, a column per key; a row click runs the widget's rowClick action. */
export function EntitiesTable({ widget }: { widget: Widget }) {
  const { data, store } = useWidgetData(widget, 'latest');
  const ctx = useDashboard();
  const action = widget.config.actions?.rowClick?.[0];
  const error = data.find((d) => d.error)?.error;
  if (error) return <WidgetMessage text={error} tone="error" />;
  const keys = data.flatMap((d) => d.keys.filter((k) => k.name !== 'name' || k.type !== 'entityField'));
  const rows = data.flatMap((d) => d.rows.map((row) => ({ row, keys: d.keys })));
  return (
    <Scroll testId="entities-table">
      <Table striped highlightOnHover={!!action} stickyHeader fz="sm" verticalSpacing={4}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Entity</Table.Th>
            {keys.map((k) => (
              <Table.Th key={`${k.type}|${k.name}`}>{keyLabel(k)}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.length === 0 && (
            <Table.Tr>
              <Table.Td colSpan={keys.length + 1}>
                <Text size="sm" c="dimmed">
                  {data.every((d) => d.loaded) ? 'No entities' : 'Loading…'}
                </Text>
              </Table.Td>
            </Table.Tr>
          )}
          {rows.map(({ row, keys: rowKeys }) => (
            <Table.Tr
              key={row.entityId.id}
              data-entity={row.name}
              style={action ? { cursor: 'pointer' } : undefined}
              tabIndex={action ? 0 : undefined}
              onClick={() => action && runAction(ctx, action, row)}
              onKeyDown={(e) => e.key === 'Enter' && action && runAction(ctx, action, row)}
            >
              <Table.Td>{row.label || row.name}</Table.Td>
              {keys.map((k) => {
                const own = rowKeys.includes(k);
                const v = own ? store.shown(row.entityId.id, k, row.latest[k.name]) : undefined;
                return <Table.Td key={`${k.type}|${k.name}`}>{formatKeyValue(v, k, widget)}</Table.Td>;
              })}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Scroll>
  );
}

/** Opens the action's state about the clicked entity (openDashboardState / updateDashboardState). */
export function runAction(
  ctx: ReturnType<typeof useDashboard>,
  action: {
    type?: string;
    targetDashboardStateId?: string;
    setEntityId?: boolean;
    stateEntityParamName?: string | null;
  },
  row: { entityId: { entityType: string; id: string }; name: string; label: string },
): void {
  if (!action.targetDashboardStateId) return;
  if (action.type !== 'openDashboardState' && action.type !== 'updateDashboardState') return;
  const entity = { entityId: row.entityId, entityName: row.name, entityLabel: row.label };
  const params =
    action.setEntityId === false
      ? {}
      : action.stateEntityParamName
        ? { ...entity, [action.stateEntityParamName]: entity }
        : entity;
  ctx.openState(action.targetDashboardStateId, params);
}

/** The timeseries table: the first entity's values over the timewindow, newest first. */
export function TimeseriesTable({ widget }: { widget: Widget }) {
  const { data, store } = useWidgetData(widget, 'timeseries');
  const ds = data.find((d) => d.rows.length > 0) ?? data[0];
  if (ds?.error) return <WidgetMessage text={ds.error} tone="error" />;
  const row = ds?.rows[0];
  const keys = ds?.keys.filter((k) => k.type === 'timeseries') ?? [];
  const byTs = new Map<number, Map<string, unknown>>();
  if (row)
    for (const k of keys)
      for (const p of row.series[k.name] ?? []) {
        const r = byTs.get(p.ts) ?? new Map<string, unknown>();
        r.set(k.name, store.shown(row.entityId.id, k, p));
        byTs.set(p.ts, r);
      }
  const times = [...byTs.keys()].sort((a, b) => b - a).slice(0, 500);
  return (
    <Scroll testId="timeseries-table">
      <Table striped stickyHeader fz="sm" verticalSpacing={4}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Time{row ? ` · ${row.label || row.name}` : ''}</Table.Th>
            {keys.map((k) => (
              <Table.Th key={k.name}>{keyLabel(k)}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {times.length === 0 && (
            <Table.Tr>
              <Table.Td colSpan={keys.length + 1}>
                <Text size="sm" c="dimmed">
                  No values in this timewindow
                </Text>
              </Table.Td>
            </Table.Tr>
          )}
          {times.map((ts) => (
            <Table.Tr key={ts}>
              <Table.Td>{formatDateTime(ts)}</Table.Td>
              {keys.map((k) => (
                <Table.Td key={k.name}>{formatKeyValue(byTs.get(ts)!.get(k.name), k, widget)}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Scroll>
  );
}

interface AlarmRow {
  id: { id: string };
  createdTime: number;
  type: string;
  severity: string;
  status: string;
  originatorName?: string;
  entityId?: { id: string };
}

const SEVERITY_COLORS: Record<string, string> = {
  CRITICAL: 'red',
  MAJOR: 'orange',
  MINOR: 'yellow',
  WARNING: 'blue',
  INDETERMINATE: 'gray',
};

/** The alarms table: ALARM_DATA over the widget's alarm source, live. */
export function AlarmsTable({ widget }: { widget: Widget }) {
  const ctx = useDashboard();
  const [alarms, setAlarms] = useState<AlarmRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const source: Datasource | undefined = widget.config.alarmSource ?? widget.config.datasources?.[0];
  const tw = widgetTimewindow(widget, ctx.timewindow);
  const key = JSON.stringify([
    source,
    tw,
    ctx.params,
    widget.config.alarmStatusList,
    widget.config.alarmSeverityList,
  ]);
  useEffect(() => {
    const resolved = source
      ? datasourceFilter(source, ctx.dashboard.configuration.entityAliases, ctx.params)
      : null;
    if (resolved instanceof Error) {
      setError(resolved.message);
      return;
    }
    const range = timeRange(tw);
    const query = {
      entityFilter: resolved?.filter ?? null,
      pageLink: {
        page: 0,
        pageSize: MAX_ENTITIES,
        sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
        ...(range.realtime
          ? { timeWindow: range.timeWindow }
          : { startTs: range.startTs, endTs: range.endTs }),
        statusList: widget.config.alarmStatusList ?? [],
        severityList: widget.config.alarmSeverityList ?? [],
        typeList: widget.config.alarmTypeList ?? [],
        searchPropagatedAlarms: true,
      },
      alarmFields: ['createdTime', 'originator', 'type', 'severity', 'status'].map((k) => ({
        type: 'ALARM_FIELD',
        key: k,
      })),
      entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
    };
    let current = new Map<string, AlarmRow>();
    return ctx.socket.subscribe({ type: 'ALARM_DATA', query }, (u) => {
      if (u.errorCode) {
        setError(u.errorMsg ?? `Error ${u.errorCode}`);
        return;
      }
      setError(null);
      if (u.data) current = new Map((u.data.data as AlarmRow[]).map((a) => [a.id.id, a]));
      for (const a of (u.update as AlarmRow[] | null) ?? []) current.set(a.id.id, a);
      setAlarms([...current.values()].sort((a, b) => b.createdTime - a.createdTime));
    });
  }, [key, ctx.socket]);
  if (error) return <WidgetMessage text={error} tone="error" />;
  return (
    <Scroll testId="alarms-table">
      <Table striped stickyHeader fz="sm" verticalSpacing={4}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Created</Table.Th>
            <Table.Th>Originator</Table.Th>
            <Table.Th>Type</Table.Th>
            <Table.Th>Severity</Table.Th>
            <Table.Th>Status</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {alarms?.length === 0 && (
            <Table.Tr>
              <Table.Td colSpan={5}>
                <Text size="sm" c="dimmed">
                  No alarms
                </Text>
              </Table.Td>
            </Table.Tr>
          )}
          {(alarms ?? []).map((a) => (
            <Table.Tr key={a.id.id} data-alarm={a.type}>
              <Table.Td>{formatDateTime(a.createdTime)}</Table.Td>
              <Table.Td>{a.originatorName ?? ''}</Table.Td>
              <Table.Td>{a.type}</Table.Td>
              <Table.Td>
                <Badge color={SEVERITY_COLORS[a.severity] ?? 'gray'} variant="light" size="sm">
                  {a.severity}
                </Badge>
              </Table.Td>
              <Table.Td>{a.status}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Scroll>
  );
}
