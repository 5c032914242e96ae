/**
 * What part of the graph the canvas shows: the graph point at its top-left corner and the scale (screen
 * px per graph unit). Fit shows all of it; the wheel and the buttons zoom about a point; a node picked
 * elsewhere is panned into view.
 */
import type { Box } from './graph-layout.ts';

export interface View {
  scale: number;
  x: number;
  y: number;
}

export const MIN_SCALE = 0.1;
export const MAX_SCALE = 3;
/** a small chain is not blown up past this when it is fitted */
const MAX_FIT = 1.25;

/** The view that shows the whole box in the frame, centred (the frame's size in px). */
export function fitView(box: Box, frame: { w: number; h: number }): View {
  if (frame.w <= 0 || frame.h <= 0) return { scale: 1, x: box.x, y: box.y };
  const scale = Math.min(MAX_FIT, frame.w / box.w, frame.h / box.h);
  return {
    scale,
    x: box.x - (frame.w / scale - box.w) / 2,
    y: box.y - (frame.h / scale - box.h) / 2,
  };
}

/** The view zoomed by `factor` keeping the graph point under `at` (px in the frame; its centre if not given) still. */
export function zoomAt(
  view: View,
  frame: { w: number; h: number },
  factor: number,
  at: { x: number; y: number } = { x: frame.w / 2, y: frame.h / 2 },
): View {
  const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, view.scale * factor));
  const gx = view.x + at.x / view.scale;
  const gy = view.y + at.y / view.scale;
  return { scale, x: gx - at.x / scale, y: gy - at.y / scale };
}

/** The view moved as little as it takes to show the box with a margin (the same view if it already does). */
export function panToShow(view: View, frame: { w: number; h: number }, box: Box, margin = 24): View {
  const w = frame.w / view.scale;
  const h = frame.h / view.scale;
  const m = margin / view.scale;
  const shift = (from: number, size: number, start: number, length: number) => {
    if (length + 2 * m > size) return start - m - from;
    if (start - m < from) return start - m - from;
    if (start + length + m > from + size) return start + length + m - (from + size);
    return 0;
  };
  const dx = shift(view.x, w, box.x, box.w);
  const dy = shift(view.y, h, box.y, box.h);
  return dx === 0 && dy === 0 ? view : { ...view, x: view.x + dx, y: view.y + dy };
}
