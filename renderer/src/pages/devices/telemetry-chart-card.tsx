import { Card, Group, Loader, MultiSelect, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { TimeseriesData } from '../../api/client.ts';
import { RAW_HISTORY_MAX_RANGE_MS, useHistory, useTimeseriesKeys } from '../../api/hooks.ts';
import { useChartColors } from '../../components/charts/chart-colors.ts';
import { seriesDashes } from '../../components/charts/series-color.ts';
import { growingWindow } from '../../components/charts/time-axis.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime } from '../../components/format.ts';

const RANGES = [
  { value: String(5 * 60_000), label: '5 min' },
  { value: String(15 * 60_000), label: '15 min' },
  { value: String(60 * 60_000), label: '1 h' },
  { value: String(6 * 3_600_000), label: '6 h' },
  { value: String(24 * 3_600_000), label: '1 day' },
  { value: String(7 * 24 * 3_600_000), label: '7 days' },
];
const DEFAULT_KEYS = 3;

function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  return null;
}

type ChartRow = { ts: number } & Record<string, number>;

/** One row per timestamp with a column per key: what recharts draws. Non-numeric values are left out. */
function toRows(data: TimeseriesData | undefined, keys: string[]): { rows: ChartRow[]; points: number } {
  const byTs = new Map<number, ChartRow>();
  let points = 0;
  for (const key of keys) {
    for (const p of data?.[key] ?? []) {
      const n = toNumber(p.value);
      if (n === null) continue;
      let row = byTs.get(p.ts);
      if (!row) byTs.set(p.ts, (row = { ts: p.ts } as ChartRow));
      row[key] = n;
      points++;
    }
  }
  return { rows: [...byTs.values()].sort((a, b) => a.ts - b.ts), points };
}

/** Re-renders every few seconds so a live window slides with the clock. */
function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(t);
  }, [intervalMs]);
  return now;
}

/** A time series chart of chosen keys over a chosen range; new telemetry is drawn as it arrives. */
export function TelemetryChartCard({
  deviceId,
  entityType = 'DEVICE',
}: {
  deviceId: string;
  entityType?: string;
}) {
  const colors = useChartColors();
  const keys = useTimeseriesKeys(deviceId, entityType);
  const [chosen, setChosen] = useState<string[] | null>(null);
  const [range, setRange] = useState(RANGES[1]!.value);
  const rangeMs = Number(range);
  const selected = useMemo(() => chosen ?? (keys.data ?? []).slice(0, DEFAULT_KEYS), [chosen, keys.data]);
  const history = useHistory(deviceId, { keys: selected, rangeMs }, entityType);
  const now = useNow(rangeMs <= RAW_HISTORY_MAX_RANGE_MS ? 2_000 : 30_000);
  const { rows, points } = useMemo(() => toRows(history.data, selected), [history.data, selected]);
  const noKeys = keys.data !== undefined && keys.data.length === 0;
  // from the data: a new device's first minute fills the chart, and the window grows to the range
  const [from, to] = growingWindow(rows[0]?.ts, rows.at(-1)?.ts, now, rangeMs);
  const dashes = seriesDashes(selected);

  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-end" wrap="wrap">
          <Title order={4}>Telemetry chart</Title>
          <Group gap="sm" align="flex-end" wrap="wrap">
            <MultiSelect
              aria-label="Keys to chart"
              placeholder={selected.length ? undefined : 'Choose keys'}
              data={keys.data ?? []}
              value={selected}
              onChange={setChosen}
              searchable
              clearable
              w={360}
              maw="100%"
              data-testid="chart-keys"
            />
            <SegmentedControl
              aria-label="Time range"
              data={RANGES}
              value={range}
              onChange={setRange}
              size="xs"
              data-testid="chart-range"
            />
          </Group>
        </Group>
        <ErrorAlert error={keys.error ?? history.error} title="Could not load the telemetry" />
        <div
          style={{ width: '100%', height: 300, position: 'relative' }}
          data-testid="telemetry-chart"
          data-points={points}
          data-window={`${from},${to}`}
          data-colors={selected.map((k) => `${k}=${colors.forKey(k)}`).join(' ')}
        >
          {noKeys ? (
            <Text size="sm" c="dimmed" pt="xl" ta="center">
              {entityType === 'DEVICE'
                ? 'No telemetry yet. The chart draws it as soon as the device sends some.'
                : `No telemetry yet. The chart draws it as soon as some is saved for this ${entityType.toLowerCase()} (a rule chain, or POST /api/plugins/telemetry/${entityType}/…).`}
            </Text>
          ) : rows.length === 0 ? (
            <Group justify="center" pt="xl">
              {history.isFetching || keys.isLoading ? (
                <Loader size="sm" aria-label="Loading telemetry" />
              ) : (
                <Text size="sm" c="dimmed">
                  {selected.length ? 'No numeric values in this range.' : 'Choose keys to chart.'}
                </Text>
              )}
            </Group>
          ) : (
            <ResponsiveContainer>
              <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
                <CartesianGrid stroke={colors.grid} strokeDasharray="3 3" />
                <XAxis {...colors.timeAxis(from, to)} />
                <YAxis fontSize={colors.fontSize} stroke={colors.axis} width={56} domain={['auto', 'auto']} />
                <Tooltip
                  labelFormatter={(ts) => formatDateTime(Number(ts))}
                  contentStyle={colors.tooltipStyle}
                />
                <Legend />
                {selected.map((key) => (
                  <Line
                    key={key}
                    type="monotone"
                    dataKey={key}
                    name={key}
                    stroke={colors.forKey(key)}
                    strokeDasharray={dashes.get(key)}
                    strokeWidth={2}
                    dot={points <= 60}
                    connectNulls
                    isAnimationActive={false}
                  />
                ))}
              </LineChart>
            </ResponsiveContainer>
          )}
        </div>
        {rows.length > 0 && to - from < rangeMs && (
          <Text size="xs" c="dimmed" data-testid="chart-zoomed">
            Zoomed to the data since {formatDateTime(from)}: the window grows as data arrives, up to{' '}
            {RANGES.find((r) => r.value === range)?.label}.
          </Text>
        )}
        {rangeMs > RAW_HISTORY_MAX_RANGE_MS && (
          <Text size="xs" c="dimmed">
            Averages over {Math.round(rangeMs / 300 / 1000)} s intervals.
          </Text>
        )}
      </Stack>
    </Card>
  );
}
