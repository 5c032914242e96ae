import { useComputedColorScheme, useMantineTheme } from '@mantine/core';

/** Colors for recharts (SVG attributes want real colors, not CSS variables) in the current theme. */
export function useChartColors() {
  const theme = useMantineTheme();
  const dark = useComputedColorScheme('light') === 'dark';
  const shade = dark ? 4 : 6;
  const series = ['blue', 'teal', 'orange', 'grape', 'red', 'yellow', 'cyan', 'lime'].map(
    (c) => theme.colors[c]![shade]!,
  );
  return {
    series,
    grid: dark ? theme.colors.dark[4]! : theme.colors.gray[3]!,
    axis: dark ? theme.colors.dark[1]! : theme.colors.gray[7]!,
    tooltipBackground: dark ? theme.colors.dark[7]! : theme.white,
    tooltipBorder: dark ? theme.colors.dark[4]! : theme.colors.gray[3]!,
    fillOpacity: dark ? 0.25 : 0.15,
  };
}
