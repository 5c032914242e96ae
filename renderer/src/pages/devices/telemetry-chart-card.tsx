import { Card, Group, Loader, MultiSelect, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { TimeseriesData } from '../../api/client.ts';
import { RAW_HISTORY_MAX_RANGE_MS, useHistory, useTimeseriesKeys } from '../../api/hooks.ts';
import { KeyValue } from '../../components/key-value.tsx';
import { useChartColors } from '../../components/charts/chart-colors.ts';
import { seriesDashes } from '../../components/charts/series-color.ts';
import { splitAtGaps } from '../../components/charts/gaps.ts';
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

/** One line of the chart: a key's points between two gaps (the row field holding them is `field`). */
interface Segment {
  key: string;
  /** s0, s1, …: recharts reads a dot in a dataKey as a path, and keys may have dots */
  field: string;
  /** "1:temperature": the key's second run */
  run: string;
  /** the key's first segment: the one the legend shows */
  first: boolean;
}

/** A key whose values in the range are not numbers: listed beside the chart with its latest value. */
interface TextKey {
  key: string;
  value: unknown;
  ts: number;
}

/**
 * What recharts draws: one row per timestamp with a field per segment, each key's points cut where the
 * data has a gap much longer than the key's usual interval (so no line is drawn across it), and the keys
 * with no numeric value apart.
 */
function toChart(
  data: TimeseriesData | undefined,
  keys: string[],
): { rows: ChartRow[]; points: number; segments: Segment[]; text: TextKey[] } {
  const byTs = new Map<number, ChartRow>();
  const segments: Segment[] = [];
  const text: TextKey[] = [];
  let points = 0;
  for (const key of keys) {
    const raw = data?.[key] ?? [];
    const numeric = raw
      .map((p) => ({ ts: p.ts, n: toNumber(p.value) }))
      .filter((p): p is { ts: number; n: number } => p.n !== null)
      .sort((a, b) => a.ts - b.ts);
    if (numeric.length === 0) {
      const latest = raw.reduce<(typeof raw)[number] | undefined>(
        (l, p) => (!l || p.ts > l.ts ? p : l),
        undefined,
      );
      if (latest) text.push({ key, value: latest.value, ts: latest.ts });
      continue;
    }
    const value = new Map(numeric.map((p) => [p.ts, p.n]));
    splitAtGaps(numeric.map((p) => p.ts)).forEach((run, r) => {
      const field = `s${segments.length}`;
      segments.push({ key, field, run: `${r}:${key}`, first: r === 0 });
      for (const ts of run) {
        let row = byTs.get(ts);
        if (!row) byTs.set(ts, (row = { ts } as ChartRow));
        row[field] = value.get(ts)!;
        points++;
      }
    });
  }
  return { rows: [...byTs.values()].sort((a, b) => a.ts - b.ts), points, segments, text };
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
  const { rows, points, segments, text } = useMemo(
    () => toChart(history.data, selected),
    [history.data, selected],
  );
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
          data-segments={segments.map((g) => g.run).join(' ')}
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
                  {!selected.length
                    ? 'Choose keys to chart.'
                    : text.length
                      ? 'No numeric values in this range: the text values are listed below.'
                      : 'No numeric values in this range.'}
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
                {/* monotone: no overshoot between points; each segment connects only its own points */}
                {segments.map(({ key, field, first }) => (
                  <Line
                    key={field}
                    type="monotone"
                    dataKey={field}
                    name={key}
                    legendType={first ? undefined : 'none'}
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
        {text.length > 0 && (
          <Table verticalSpacing={4} data-testid="chart-text-keys">
            <Table.Caption style={{ captionSide: 'top', textAlign: 'left' }}>
              Keys with text values (not charted): the latest of each
            </Table.Caption>
            <Table.Tbody>
              {text.map((t) => (
                <Table.Tr key={t.key} data-key={t.key}>
                  <Table.Td ff="monospace">{t.key}</Table.Td>
                  <Table.Td ff="monospace">
                    <KeyValue name={t.key} value={t.value} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed">
                      {formatDateTime(t.ts)}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
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
