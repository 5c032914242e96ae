// The main window's size, position and maximized state, kept in userData as JSON between runs.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { screen, type BrowserWindow, type Rectangle } from 'electron';

export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

export const DEFAULT_WINDOW_STATE: WindowState = { width: 1280, height: 820, maximized: false };
const MIN_WIDTH = 640;
const MIN_HEIGHT = 420;
/** at least this much of a saved window must be on a display for its position to be reused */
const MIN_VISIBLE = 80;

function overlap(a: Rectangle, b: Rectangle): { width: number; height: number } {
  return {
    width: Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x),
    height: Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y),
  };
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/**
 * Reads the saved state. A missing or damaged file gives the defaults; a size is clamped to the largest
 * display; a position is dropped (the window is centred) when the window would land off every display,
 * as after unplugging a monitor.
 */
export function loadWindowState(
  file: string,
  workAreas: Rectangle[],
  defaults: WindowState = DEFAULT_WINDOW_STATE,
): WindowState {
  let saved: Partial<WindowState>;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<WindowState>;
    if (typeof saved !== 'object' || saved === null) return { ...defaults };
  } catch {
    return { ...defaults };
  }
  const maxWidth = Math.max(MIN_WIDTH, ...workAreas.map((a) => a.width));
  const maxHeight = Math.max(MIN_HEIGHT, ...workAreas.map((a) => a.height));
  const width = isInt(saved.width) ? Math.min(Math.max(saved.width, MIN_WIDTH), maxWidth) : defaults.width;
  const height = isInt(saved.height)
    ? Math.min(Math.max(saved.height, MIN_HEIGHT), maxHeight)
    : defaults.height;
  const state: WindowState = { width, height, maximized: saved.maximized === true };
  if (isInt(saved.x) && isInt(saved.y)) {
    const bounds = { x: saved.x, y: saved.y, width, height };
    const visible = workAreas.some((area) => {
      const o = overlap(bounds, area);
      return o.width >= MIN_VISIBLE && o.height >= MIN_VISIBLE;
    });
    if (visible) Object.assign(state, { x: saved.x, y: saved.y });
  }
  return state;
}

/** Writes the state atomically (temp file + rename), so a crash never leaves half a file. */
export function saveWindowState(file: string, state: WindowState): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.tmp`;
  writeFileSync(temp, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(temp, file);
}

/** The window's restored (not maximized) bounds and whether it is maximized. */
export function captureWindowState(win: BrowserWindow): WindowState {
  const { x, y, width, height } = win.getNormalBounds();
  return { x, y, width, height, maximized: win.isMaximized() };
}

/** The work areas of the connected displays (needs the app to be ready). */
export function displayWorkAreas(): Rectangle[] {
  return screen.getAllDisplays().map((d) => d.workArea);
}

/** Saves the window's state shortly after it is moved or resized, and when it closes. */
export function setupWindowState(win: BrowserWindow, file: string, debounceMs = 400): void {
  let timer: NodeJS.Timeout | null = null;
  const save = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (win.isDestroyed()) return;
    try {
      saveWindowState(file, captureWindowState(win));
    } catch (err) {
      process.stderr.write(`could not save the window state to ${file}: ${(err as Error).message}\n`);
    }
  };
  const later = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(save, debounceMs);
  };
  for (const event of ['resize', 'move', 'maximize', 'unmaximize'] as const) win.on(event as 'resize', later);
  win.on('close', save);
}
