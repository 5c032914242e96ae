import {
  Anchor,
  Badge,
  createTheme,
  localStorageColorSchemeManager,
  Pagination,
  TableScrollContainer,
  type CSSVariablesResolver,
} from '@mantine/core';

const PAGINATION_LABELS: Record<string, string> = {
  previous: 'Previous page',
  next: 'Next page',
  first: 'First page',
  last: 'Last page',
};

export const theme = createTheme({
  primaryColor: 'blue',
  // white on blue.8 reads at 4.5:1 or better (blue.6 did not), on a projector too
  primaryShade: { light: 8, dark: 8 },
  components: {
    // links in running text are told apart by more than their colour
    Anchor: Anchor.extend({ defaultProps: { underline: 'always' } }),
    // a badge is never narrower than its word ("DELIV…" in a squeezed table column)
    Badge: Badge.extend({ styles: { root: { minWidth: 'max-content' } } }),
    // a table that scrolls sideways can be scrolled from the keyboard
    TableScrollContainer: TableScrollContainer.extend({
      defaultProps: { scrollAreaProps: { viewportProps: { tabIndex: 0 } } },
    }),
    Pagination: Pagination.extend({
      defaultProps: { getControlProps: (control) => ({ 'aria-label': PAGINATION_LABELS[control] }) },
    }),
  },
  defaultRadius: 'md',
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
  fontFamilyMonospace: 'ui-monospace, "SFMono-Regular", "Cascadia Code", "Roboto Mono", Menlo, monospace',
  headings: { fontWeight: '650' },
});

const BREAKPOINTS_EM = { xs: 36, sm: 48, md: 62, lg: 75, xl: 88 };

/**
 * The theme at a UI scale: the breakpoints grow with the text, so at 125 % a 1280 px window lays the
 * pages out as a 1024 px one would at 100 % (media queries in em ignore the root font size).
 */
export function themeAtScale(scale: number): typeof theme {
  if (scale === 1) return theme;
  const breakpoints = Object.fromEntries(
    Object.entries(BREAKPOINTS_EM).map(([k, em]) => [k, `${em * scale}em`]),
  ) as typeof theme.breakpoints;
  return { ...theme, breakpoints };
}

/** The chosen theme (light, dark or auto) is remembered in localStorage. */
export const colorSchemeManager = localStorageColorSchemeManager({ key: 'sandboard.color-scheme' });

/** Text of light badges and buttons where shade 9 on shade 0 still reads below 4.5:1. */
const LIGHT_TEXT: Record<string, string> = {
  yellow: '#8a5300',
  orange: '#a33f00',
  green: '#1f6b30',
  lime: '#3d6608',
};

/**
 * Secondary ("dimmed") text, placeholders (a file input's is text, not an attribute) and light variants
 * (badges, light buttons) that read at 4.5:1 or better in both themes: light variants on the palest
 * shade, with darker text where a colour needs it.
 */
export const cssVariablesResolver: CSSVariablesResolver = (t) => {
  const light: Record<string, string> = {
    '--mantine-color-dimmed': t.colors.gray[7]!,
    '--mantine-color-placeholder': t.colors.gray[7]!,
  };
  for (const color of Object.keys(t.colors)) {
    light[`--mantine-color-${color}-light`] = `var(--mantine-color-${color}-0)`;
    const text = LIGHT_TEXT[color];
    if (text) light[`--mantine-color-${color}-light-color`] = text;
  }
  const dark = {
    '--mantine-color-dimmed': t.colors.dark[1]!,
    '--mantine-color-placeholder': t.colors.dark[1]!,
  };
  return { variables: {}, light, dark };
};
