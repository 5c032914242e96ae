import { Text } from '@mantine/core';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { useChartColors } from '../../../components/charts/chart-colors.ts';
import { formatDateTime } from '../../../components/format.ts';
import { useDashboard, useWidgetData, widgetTimewindow } from '../dashboard-context.tsx';
import type { Widget } from '../dashboard-model.ts';
import { timeRange } from '../timewindow.ts';
import { keyLabel } from './widget-format.ts';
import { WidgetMessage } from './widget-message.tsx';

/** The time series chart and the bar chart: every entity's every key over the widget's timewindow. */
export function ChartWidget({ widget, bars }: { widget: Widget; bars?: boolean }) {
  const { data, store } = useWidgetData(widget, 'timeseries');
  const ctx = useDashboard();
  const colors = useChartColors();
  const range = timeRange(widgetTimewindow(widget, ctx.timewindow));
  const byTs = new Map<number, Record<string, number>>();
  const series: { field: string; name: string; color: string }[] = [];
  const multi = data.reduce((n, d) => n + d.rows.length, 0) > 1;
  for (const ds of data)
    for (const row of ds.rows)
      for (const key of ds.keys) {
        if (key.type !== 'timeseries') continue;
        const field = `${row.entityId.id}|${key.name}`;
        const name = multi ? `${row.label || row.name} ${keyLabel(key)}` : keyLabel(key);
        series.push({ field, name, color: key.color ?? colors.forKey(name) });
        for (const p of row.series[key.name] ?? []) {
          const v = Number(store.shown(row.entityId.id, key, p));
          if (!Number.isFinite(v)) continue;
          const r = byTs.get(p.ts) ?? { ts: p.ts };
          r[field] = v;
          byTs.set(p.ts, r);
        }
      }
  const rows = [...byTs.values()].sort((a, b) => a.ts! - b.ts!);
  const error = data.find((d) => d.error)?.error;
  if (error) return <WidgetMessage text={error} tone="error" />;
  if (series.length === 0)
    return <WidgetMessage text={data.every((d) => d.loaded) ? 'No entities or keys to chart' : 'Loading…'} />;
  const to = range.realtime ? Date.now() : range.endTs;
  const from = range.realtime ? to - range.timeWindow : range.startTs;
  const Chart = bars ? BarChart : LineChart;
  return (
    <div
      style={{ width: '100%', height: '100%', minHeight: 80 }}
      data-testid="chart-widget"
      data-points={rows.length}
    >
      {rows.length === 0 && (
        <Text size="xs" c="dimmed" pos="absolute" style={{ zIndex: 1 }} pl="md">
          No data in this timewindow yet
        </Text>
      )}
      <ResponsiveContainer>
        <Chart data={rows} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={colors.grid} strokeDasharray="3 3" />
          <XAxis {...colors.timeAxis(from, to)} />
          <YAxis fontSize={colors.fontSize} stroke={colors.axis} width={48} domain={['auto', 'auto']} />
          <Tooltip labelFormatter={(ts) => formatDateTime(Number(ts))} contentStyle={colors.tooltipStyle} />
          <Legend wrapperStyle={{ fontSize: colors.fontSize }} />
          {series.map((s) =>
            bars ? (
              <Bar key={s.field} dataKey={s.field} name={s.name} fill={s.color} isAnimationActive={false} />
            ) : (
              <Line
                key={s.field}
                type="monotone"
                dataKey={s.field}
                name={s.name}
                stroke={s.color}
                strokeWidth={2}
                dot={rows.length <= 60}
                connectNulls
                isAnimationActive={false}
              />
            ),
          )}
        </Chart>
      </ResponsiveContainer>
    </div>
  );
}
