// One Sandboard per user: a second launch focuses the running app's window instead of starting a
// second core on the same data directory.
import { app, type BrowserWindow } from 'electron';

/** Returns false (and quits) when another instance already runs. */
export function setupSingleInstance(getWindow: () => BrowserWindow | null): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', () => {
    const win = getWindow();
    if (!win || win.isDestroyed()) return;
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  });
  return true;
}
