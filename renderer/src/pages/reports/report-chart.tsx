import { Card, Group, MultiSelect, SegmentedControl, Select, Stack, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import {
  Bar,
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { PreviewResponse, TableViewConfig } from '../../api/reports-api.ts';
import { useChartColors } from '../../components/charts/chart-colors.ts';
import { seriesDashes } from '../../components/charts/series-color.ts';
import { columnKinds, formatDateValue, formatMeasure } from './report-model.ts';

type ChartType = 'bar' | 'line' | 'stacked';
const MAX_SERIES = 24;

type ChartRow = { x: string; label: string } & Record<string, number | string | null>;

/** Sorts category values: numbers (and epoch ms) numerically, text naturally. */
function compareValues(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (a !== '' && b !== '' && Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  return a.localeCompare(b, undefined, { numeric: true });
}

/**
 * The result drawn with recharts: an X axis column, one or more measures, and a series for each value of
 * the remaining dimensions (side by side, stacked, or as lines).
 */
export function ReportChart({ result, config }: { result: PreviewResponse; config: TableViewConfig }) {
  const colors = useChartColors();
  const labels = result.columnLabels;
  const kinds = columnKinds(config, labels);
  const categories = labels.filter((_, i) => kinds[i] !== 'measure');
  const measures = labels.filter((_, i) => kinds[i] === 'measure');
  const dateLabel = labels[kinds.indexOf('date')];
  const [type, setType] = useState<ChartType>('bar');
  const [xChoice, setXChoice] = useState<string | null>(null);
  const [measureChoice, setMeasureChoice] = useState<string[] | null>(null);
  const x = xChoice && categories.includes(xChoice) ? xChoice : (dateLabel ?? categories[0] ?? null);
  const shownMeasures = (measureChoice ?? measures.slice(0, 1)).filter((m) => measures.includes(m));
  const splitBy = categories.filter((c) => c !== x);

  const { rows, series, dropped } = useMemo(() => {
    const format = (label: string, value: unknown) =>
      label === dateLabel && config.date
        ? formatDateValue(value, config.date.grouping, config.timezoneOffsetMinutes ?? 0)
        : value === null || value === undefined
          ? '—'
          : String(value);
    const byX = new Map<string, { x: string; label: string }>();
    const values = new Map<string, Map<string, number>>();
    const totals = new Map<string, number>();
    for (const row of result.dataTable) {
      const xv = x ? String(row[x] ?? '') : '';
      if (!byX.has(xv)) byX.set(xv, { x: xv, label: x ? format(x, row[x]) : '' });
      const group = splitBy.map((c) => format(c, row[c])).join(' · ');
      for (const m of shownMeasures) {
        const v = row[m];
        if (typeof v !== 'number') continue;
        const name = [group, shownMeasures.length > 1 || !group ? m : ''].filter(Boolean).join(' · ');
        const points = values.get(name) ?? new Map<string, number>();
        points.set(xv, v);
        values.set(name, points);
        totals.set(name, (totals.get(name) ?? 0) + Math.abs(v));
      }
    }
    const all = [...totals.keys()];
    const kept =
      all.length > MAX_SERIES
        ? [...all].sort((a, b) => totals.get(b)! - totals.get(a)!).slice(0, MAX_SERIES)
        : all;
    kept.sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
    // recharts reads dots in a dataKey as a path: the series are s0, s1, … named in the legend
    const chartRows = [...byX.values()]
      .sort((a, b) => compareValues(a.x, b.x))
      .map((p) => {
        const out: ChartRow = { ...p };
        kept.forEach((name, i) => {
          out[`s${i}`] = values.get(name)?.get(p.x) ?? null;
        });
        return out;
      });
    return { rows: chartRows, series: kept, dropped: all.length - kept.length };
  }, [result, x, splitBy.join('\u0000'), shownMeasures.join('\u0000'), config]);

  const axis = { stroke: colors.axis, fontSize: colors.fontSize };
  const dashes = seriesDashes(series);
  // a line through one point is a lone dot: with one point per series, bars say the same thing readably
  const lonePoints =
    type === 'line' &&
    series.every((_, i) => rows.filter((r) => r[`s${i}`] !== null && r[`s${i}`] !== undefined).length <= 1);
  const drawn: ChartType = lonePoints ? 'bar' : type;

  return (
    <Card
      withBorder
      radius="md"
      p="md"
      data-testid="report-chart"
      data-type={type}
      data-drawn={drawn}
      data-series={series.length}
      data-colors={series.map((s) => `${s}=${colors.forKey(s)}`).join(' | ')}
    >
      <Stack gap="sm">
        <Group justify="space-between" align="flex-end" wrap="wrap">
          <Title order={4}>Chart</Title>
          <Group gap="xs" align="flex-end" wrap="wrap">
            <Select
              label="X axis"
              size="xs"
              w={160}
              data={categories}
              value={x}
              onChange={setXChoice}
              allowDeselect={false}
              disabled={categories.length === 0}
            />
            <MultiSelect
              label="Measures"
              size="xs"
              miw={180}
              maw={360}
              data={measures}
              value={shownMeasures}
              onChange={(v) => setMeasureChoice(v)}
            />
            <SegmentedControl
              size="xs"
              value={type}
              onChange={(v) => setType(v as ChartType)}
              data={[
                { value: 'bar', label: 'Bar' },
                { value: 'stacked', label: 'Stacked' },
                { value: 'line', label: 'Line' },
              ]}
              aria-label="Chart type"
              data-testid="chart-type"
            />
          </Group>
        </Group>
        <Text size="xs" c="dimmed">
          {splitBy.length > 0
            ? `One series per ${splitBy.join(' · ')}${shownMeasures.length > 1 ? ' and measure' : ''}${type === 'stacked' ? ', stacked' : ''}.`
            : 'One series per measure.'}
          {dropped > 0 && ` The ${MAX_SERIES} largest series are drawn (${dropped} more left out).`}
          {lonePoints && ' Each series has one point here, so it is drawn as bars: a line needs two.'}
        </Text>
        {rows.length === 0 || series.length === 0 ? (
          <Text size="sm" c="dimmed" ta="center" py="xl">
            Nothing to draw{shownMeasures.length === 0 ? ': choose a measure' : ''}.
          </Text>
        ) : (
          <div style={{ width: '100%', height: 340 }}>
            <ResponsiveContainer>
              {/* one chart for all three types: bars side by side or stacked, or lines */}
              <ComposedChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
                <CartesianGrid stroke={colors.grid} strokeDasharray="3 3" />
                <XAxis dataKey="label" {...axis} />
                <YAxis {...axis} width={64} />
                <Tooltip contentStyle={colors.tooltipStyle} formatter={(v: unknown) => formatMeasure(v)} />
                <Legend wrapperStyle={{ fontSize: colors.fontSize }} />
                {series.map((s, i) =>
                  drawn === 'line' ? (
                    <Line
                      key={s}
                      dataKey={`s${i}`}
                      name={s}
                      stroke={colors.forKey(s)}
                      strokeDasharray={dashes.get(s)}
                      dot={rows.length <= 40}
                      strokeWidth={2}
                      isAnimationActive={false}
                      connectNulls
                    />
                  ) : (
                    <Bar
                      key={s}
                      dataKey={`s${i}`}
                      name={s}
                      fill={colors.forKey(s)}
                      stackId={drawn === 'stacked' ? 'all' : undefined}
                      isAnimationActive={false}
                    />
                  ),
                )}
              </ComposedChart>
            </ResponsiveContainer>
          </div>
        )}
      </Stack>
    </Card>
  );
}
