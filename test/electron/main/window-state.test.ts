import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { BrowserWindow as ElectronWindow } from 'electron';
import {
  DEFAULT_WINDOW_STATE,
  loadWindowState,
  saveWindowState,
  setupWindowState,
} from '../../../electron/main/window-state.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { BrowserWindow, resetFakeElectron } from '../fake-electron.ts';

vi.mock('electron', () => import('../fake-electron.ts'));

const DISPLAY = [{ x: 0, y: 0, width: 1920, height: 1080 }];

beforeEach(() => resetFakeElectron());

describe('window state', () => {
  it('restores what was saved', () => {
    const file = join(tempDir(), 'window-state.json');
    saveWindowState(file, { x: 40, y: 30, width: 1400, height: 900, maximized: true });
    expect(loadWindowState(file, DISPLAY)).toEqual({
      x: 40,
      y: 30,
      width: 1400,
      height: 900,
      maximized: true,
    });
  });

  it('starts with defaults without a file or with a damaged one', () => {
    const dir = tempDir();
    expect(loadWindowState(join(dir, 'missing.json'), DISPLAY)).toEqual(DEFAULT_WINDOW_STATE);
    writeFileSync(join(dir, 'bad.json'), '{"width": 12');
    expect(loadWindowState(join(dir, 'bad.json'), DISPLAY)).toEqual(DEFAULT_WINDOW_STATE);
    writeFileSync(join(dir, 'null.json'), 'null');
    expect(loadWindowState(join(dir, 'null.json'), DISPLAY)).toEqual(DEFAULT_WINDOW_STATE);
  });

  it('centres a window that would be off every display and fits its size to the largest one', () => {
    const file = join(tempDir(), 'window-state.json');
    saveWindowState(file, { x: 3000, y: 200, width: 5000, height: 100, maximized: false });
    expect(loadWindowState(file, DISPLAY)).toEqual({ width: 1920, height: 420, maximized: false });
  });

  it('saves the restored bounds when the window closes and after it moves', async () => {
    const file = join(tempDir(), 'state', 'window-state.json');
    const win = new BrowserWindow();
    setupWindowState(win as unknown as ElectronWindow, file, 10);
    win.normalBounds = { x: 10, y: 20, width: 1000, height: 700 };
    win.emit('move');
    expect(existsSync(file)).toBe(false);
    await vi.waitFor(() => expect(existsSync(file)).toBe(true));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      x: 10,
      y: 20,
      width: 1000,
      height: 700,
      maximized: false,
    });
    win.maximized = true;
    win.close();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ maximized: true, width: 1000 });
  });
});
