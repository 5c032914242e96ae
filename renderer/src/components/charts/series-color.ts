/** The hues a chart draws series in (Mantine colour names); a key's hue depends on the key alone. */
export const SERIES_HUES = [
  'blue',
  'teal',
  'orange',
  'grape',
  'red',
  'yellow',
  'cyan',
  'lime',
  'pink',
  'indigo',
  'green',
  'violet',
] as const;

/**
 * A key's hue, the same on every load, in every chart and both themes: FNV-1a of the key picks it, so
 * it does not depend on which keys are shown or in which order they came.
 */
export function seriesHue(key: string): (typeof SERIES_HUES)[number] {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return SERIES_HUES[(h >>> 0) % SERIES_HUES.length]!;
}

/**
 * How each of a chart's keys is drawn: its own hue, dashed when a key before it (by name) in the same
 * chart has that hue too, so two keys never look alike while each keeps its colour.
 */
export function seriesDashes(keys: readonly string[]): Map<string, string | undefined> {
  const seen = new Map<string, number>();
  const out = new Map<string, string | undefined>();
  for (const key of [...keys].sort()) {
    const hue = seriesHue(key);
    const n = seen.get(hue) ?? 0;
    seen.set(hue, n + 1);
    out.set(key, DASHES[n % DASHES.length]);
  }
  return out;
}

const DASHES = [undefined, '6 3', '2 3', '8 3 2 3'];
