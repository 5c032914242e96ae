/** Text measured in the font the graph draws with, so SVG labels are sized to what they say. */
let context: CanvasRenderingContext2D | null | undefined;

export function textWidth(text: string, fontSize: number, fontWeight = 400): number {
  if (context === undefined) context = document.createElement('canvas').getContext('2d');
  if (!context) return text.length * fontSize * 0.6;
  context.font = `${fontWeight} ${fontSize}px ${getComputedStyle(document.body).fontFamily}`;
  return context.measureText(text).width;
}

export interface FittedText {
  lines: string[];
  fontSize: number;
}

/**
 * A name in at most two lines of `width` px, never cut: one line at the largest size from `sizes` that
 * fits, else two lines split at a space, else the smallest size (the caller squeezes it with textLength).
 */
export function fitText(text: string, width: number, sizes: number[], fontWeight = 400): FittedText {
  for (const size of sizes)
    if (textWidth(text, size, fontWeight) <= width) return { lines: [text], fontSize: size };
  const size = sizes[sizes.length - 1]!;
  const words = text.split(' ');
  for (let cut = words.length - 1; cut > 0; cut--) {
    const lines = [words.slice(0, cut).join(' '), words.slice(cut).join(' ')];
    if (lines.every((l) => textWidth(l, size, fontWeight) <= width)) return { lines, fontSize: size };
  }
  return { lines: [text], fontSize: size };
}

/** One line in `width` px: the largest size from `sizes` that fits, else the smallest, squeezed (textLength). */
export function fitLine(
  text: string,
  width: number,
  sizes: number[],
  fontWeight = 400,
): { fontSize: number; squeeze: boolean } {
  for (const size of sizes)
    if (textWidth(text, size, fontWeight) <= width) return { fontSize: size, squeeze: false };
  return { fontSize: sizes[sizes.length - 1]!, squeeze: true };
}
