import { useComputedColorScheme, useMantineTheme } from '@mantine/core';
import { useUiScale } from '../../shell/ui-scale.ts';
import { formatDayTime, formatTime } from '../format.ts';
import { seriesHue } from './series-color.ts';
import { timeTicks } from './time-axis.ts';

/** Colors for recharts (SVG attributes want real colors, not CSS variables) in the current theme. */
export function useChartColors() {
  const theme = useMantineTheme();
  const dark = useComputedColorScheme('light') === 'dark';
  // SVG text is sized in px: it grows with the UI scale as the rest of the page does
  const fontSize = Math.round(12 * useUiScale());
  const shade = dark ? 4 : 6;
  const series = ['blue', 'teal', 'orange', 'grape', 'red', 'yellow', 'cyan', 'lime'].map(
    (c) => theme.colors[c]![shade]!,
  );
  const axis = dark ? theme.colors.dark[1]! : theme.colors.gray[7]!;
  const timeAxis = {
    dataKey: 'ts',
    type: 'number' as const,
    scale: 'time' as const,
    tickFormatter: formatTime,
    fontSize,
    stroke: axis,
  };
  return {
    /** colours for fixed roles (sent, acknowledged, …), by position */
    series,
    /** a data key's colour: the same for that key on every load, in every chart */
    forKey: (key: string) => theme.colors[seriesHue(key)]![shade]!,
    grid: dark ? theme.colors.dark[4]! : theme.colors.gray[3]!,
    axis,
    /** axis and legend text, in px */
    fontSize,
    /** a Tooltip's contentStyle */
    tooltipStyle: {
      background: dark ? theme.colors.dark[7]! : theme.white,
      borderColor: dark ? theme.colors.dark[4]! : theme.colors.gray[3]!,
    },
    /** an XAxis over the rows' `ts` (ms) from `from` to `to`, labelled at several round times */
    timeAxis: (from: number, to: number) => ({
      ...timeAxis,
      domain: [from, to],
      ticks: timeTicks(from, to),
      tickFormatter: to - from > 86_400_000 ? formatDayTime : formatTime,
      allowDataOverflow: true,
      interval: 'preserveStartEnd' as const,
    }),
    fillOpacity: dark ? 0.25 : 0.15,
  };
}
