import { createTheme, localStorageColorSchemeManager } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'blue',
  defaultRadius: 'md',
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
  fontFamilyMonospace: 'ui-monospace, "SFMono-Regular", "Cascadia Code", "Roboto Mono", Menlo, monospace',
  headings: { fontWeight: '650' },
});

/** The chosen theme (light, dark or auto) is remembered in localStorage. */
export const colorSchemeManager = localStorageColorSchemeManager({ key: 'sandboard.color-scheme' });
