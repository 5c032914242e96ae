import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { BrowserWindow as ElectronWindow } from 'electron';
import { setupSingleInstance } from '../../../electron/main/single-instance.ts';
import { app, BrowserWindow, resetFakeElectron } from '../fake-electron.ts';

vi.mock('electron', () => import('../fake-electron.ts'));

beforeEach(() => resetFakeElectron());

describe('single instance', () => {
  it('quits a second launch', () => {
    app.requestSingleInstanceLock.mockReturnValue(false);
    expect(setupSingleInstance(() => null)).toBe(false);
    expect(app.quit).toHaveBeenCalled();
  });

  it('brings the running window back when the app is launched again', () => {
    const win = new BrowserWindow();
    win.minimized = true;
    expect(setupSingleInstance(() => win as unknown as ElectronWindow)).toBe(true);
    expect(app.quit).not.toHaveBeenCalled();
    app.emit('second-instance', {}, ['sandboard'], '/');
    expect(win.calls).toEqual(['restore', 'show', 'focus']);
  });

  it('does nothing when there is no window yet', () => {
    setupSingleInstance(() => null);
    expect(() => app.emit('second-instance', {}, [], '/')).not.toThrow();
  });
});
