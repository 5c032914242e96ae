/** Text measured in the font the graph draws with, so SVG labels are sized to what they say. */
let context: CanvasRenderingContext2D | null | undefined;

export function textWidth(text: string, fontSize: number, fontWeight = 400): number {
  if (context === undefined) context = document.createElement('canvas').getContext('2d');
  if (!context) return text.length * fontSize * 0.6;
  context.font = `${fontWeight} ${fontSize}px ${getComputedStyle(document.body).fontFamily}`;
  return context.measureText(text).width;
}

/**
 * A name in at most two lines of `width` px at one size, never squeezed: one line if it fits, else two
 * split at a space (the second ending in "…" if it is still too long), else one line ending in "…".
 */
export function fitText(text: string, width: number, fontSize: number, fontWeight = 400): string[] {
  if (textWidth(text, fontSize, fontWeight) <= width) return [text];
  const words = text.split(' ');
  for (let cut = words.length - 1; cut > 0; cut--) {
    const first = words.slice(0, cut).join(' ');
    if (textWidth(first, fontSize, fontWeight) <= width)
      return [first, ellipsize(words.slice(cut).join(' '), width, fontSize, fontWeight)];
  }
  return [ellipsize(text, width, fontSize, fontWeight)];
}

/** The text cut to `width` px with "…" at the end where it does not fit. */
export function ellipsize(text: string, width: number, fontSize: number, fontWeight = 400): string {
  if (textWidth(text, fontSize, fontWeight) <= width) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (textWidth(`${text.slice(0, mid).trimEnd()}…`, fontSize, fontWeight) <= width) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo).trimEnd()}…`;
}
