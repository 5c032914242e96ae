import { useComputedColorScheme, useMantineTheme } from '@mantine/core';
import { formatTime } from '../format.ts';

/** Colors for recharts (SVG attributes want real colors, not CSS variables) in the current theme. */
export function useChartColors() {
  const theme = useMantineTheme();
  const dark = useComputedColorScheme('light') === 'dark';
  const shade = dark ? 4 : 6;
  const series = ['blue', 'teal', 'orange', 'grape', 'red', 'yellow', 'cyan', 'lime'].map(
    (c) => theme.colors[c]![shade]!,
  );
  const axis = dark ? theme.colors.dark[1]! : theme.colors.gray[7]!;
  return {
    series,
    grid: dark ? theme.colors.dark[4]! : theme.colors.gray[3]!,
    axis,
    /** a Tooltip's contentStyle */
    tooltipStyle: {
      background: dark ? theme.colors.dark[7]! : theme.white,
      borderColor: dark ? theme.colors.dark[4]! : theme.colors.gray[3]!,
    },
    /** an XAxis over the rows' `ts` (ms) in clock time; the chart gives the domain */
    timeAxis: {
      dataKey: 'ts',
      type: 'number' as const,
      scale: 'time' as const,
      tickFormatter: formatTime,
      fontSize: 12,
      stroke: axis,
    },
    fillOpacity: dark ? 0.25 : 0.15,
  };
}
