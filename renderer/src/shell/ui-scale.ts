/**
 * The UI scale (100, 125 or 150 %) for a projector or a far screen: the root font size grows, so every
 * rem-sized thing (all of Mantine) grows with it, and the layout breakpoints grow too, so a page lays
 * itself out as on a screen that much narrower. Charts and graphs read the scale for their SVG text.
 * Kept per user in their settings (GET/PUT /api/user/settings, field `uiScale`), and in localStorage
 * so a reload starts at the right size before the settings arrive.
 */
import { useSyncExternalStore } from 'react';

export const UI_SCALES = [1, 1.25, 1.5] as const;
export type UiScale = (typeof UI_SCALES)[number];
const STORAGE_KEY = 'sandboard.ui-scale';
/** the field of the user's general settings that holds it */
export const UI_SCALE_SETTING = 'uiScale';

export function toUiScale(value: unknown): UiScale | undefined {
  return UI_SCALES.find((s) => s === Number(value));
}

/** The next scale up (+1) or down (-1), staying at the ends. */
export function stepUiScale(scale: UiScale, step: 1 | -1): UiScale {
  const i = UI_SCALES.indexOf(scale) + step;
  return UI_SCALES[Math.min(UI_SCALES.length - 1, Math.max(0, i))]!;
}

/** The scale Ctrl with this key asks for (+ or = up, - down, 0 back to 100 %), or undefined. */
export function scaleForKey(key: string, scale: UiScale): UiScale | undefined {
  if (key === '+' || key === '=') return stepUiScale(scale, 1);
  if (key === '-' || key === '_') return stepUiScale(scale, -1);
  if (key === '0') return 1;
  return undefined;
}

function stored(): UiScale {
  try {
    return toUiScale(globalThis.localStorage?.getItem(STORAGE_KEY)) ?? 1;
  } catch {
    return 1;
  }
}

let current: UiScale = stored();
const listeners = new Set<() => void>();

/** the page's root element (typed here: the unit tests of this module run without the DOM's types) */
interface RootElement {
  style: { fontSize: string };
  dataset: Record<string, string | undefined>;
}

function apply(scale: UiScale): void {
  const root = (globalThis as { document?: { documentElement: RootElement } }).document?.documentElement;
  if (!root) return;
  root.style.fontSize = scale === 1 ? '' : `${scale * 100}%`;
  root.dataset.uiScale = String(scale);
}
apply(current);

export function getUiScale(): UiScale {
  return current;
}

/** Sets the scale on this machine (the caller saves it to the user's settings). */
export function setUiScale(scale: UiScale): void {
  if (scale === current) return;
  current = scale;
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, String(scale));
  } catch {
    // private mode: the scale lasts until the tab closes
  }
  apply(scale);
  for (const l of listeners) l();
}

export function useUiScale(): UiScale {
  return useSyncExternalStore(
    (onChange) => {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
    () => current,
  );
}
