// The app's windows: hardened web preferences, the registry the IPC sender check uses, and keeping
// every window on the core's UI as the core starts and restarts.
import { app, BrowserWindow, type WebPreferences } from 'electron';
import type { CoreUrls } from '../../shared/desktop-bridge.ts';
import type { CoreHost } from './core-host.ts';
import { displayWorkAreas, loadWindowState, setupWindowState } from './window-state.ts';

export interface WindowRegistry {
  add(win: BrowserWindow): void;
  has(win: BrowserWindow): boolean;
  all(): BrowserWindow[];
  /** the first open window, if any */
  main(): BrowserWindow | null;
}

export function createWindowRegistry(): WindowRegistry {
  const windows = new Set<BrowserWindow>();
  return {
    add(win) {
      windows.add(win);
      win.once('closed', () => windows.delete(win));
    },
    has: (win) => windows.has(win),
    all: () => [...windows],
    main: () => windows.values().next().value ?? null,
  };
}

/** Renderers get no Node, run sandboxed and isolated, and keep web security on. */
export function secureWebPreferences(preload: string, isDev: boolean): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    spellcheck: false,
    devTools: isDev,
  };
}

export interface MainWindowOptions {
  preload: string;
  /** the window icon (a PNG) */
  icon?: string;
  stateFile: string;
  isDev: boolean;
  windows: WindowRegistry;
}

export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const state = loadWindowState(options.stateFile, displayWorkAreas());
  const win = new BrowserWindow({
    ...(state.x !== undefined && state.y !== undefined ? { x: state.x, y: state.y } : {}),
    width: state.width,
    height: state.height,
    minWidth: 640,
    minHeight: 420,
    title: 'Sandboard',
    icon: options.icon,
    show: false,
    backgroundColor: '#0f1a1c',
    webPreferences: secureWebPreferences(options.preload, options.isDev),
  });
  if (state.maximized) win.maximize();
  setupWindowState(win, options.stateFile);
  options.windows.add(win);
  // Shown once the UI has painted; a slow core start still gets a window after a moment.
  const show = () => {
    if (!win.isDestroyed() && !win.isVisible()) win.show();
  };
  win.once('ready-to-show', show);
  setTimeout(show, 2_500).unref();
  return win;
}

/** Loads the core's UI into `win` unless it already shows that origin. */
export function showCore(win: BrowserWindow, urls: CoreUrls): void {
  if (win.isDestroyed()) return;
  const home = new URL('/', urls.http);
  const current = win.webContents.getURL();
  if (URL.canParse(current) && new URL(current).origin === home.origin) return;
  void win.loadURL(home.href).catch((err: unknown) => {
    process.stderr.write(`could not load ${home.href}: ${(err as Error).message}\n`);
  });
}

export interface SetupWindowsOptions extends Omit<MainWindowOptions, 'windows'> {
  windows: WindowRegistry;
  core: CoreHost;
}

/**
 * Opens the main window when the app is ready (again on macOS's dock click), points windows at the
 * core whenever it becomes ready (its origin changes only if its port was taken during a restart), and
 * quits when the last window closes (except on macOS).
 */
export function setupWindows(options: SetupWindowsOptions): void {
  const { core, windows } = options;
  const open = () => {
    const win = createMainWindow(options);
    if (core.status.state === 'ready' && core.status.urls) showCore(win, core.status.urls);
  };
  core.on('status', (status) => {
    if (status.state === 'ready' && status.urls) for (const win of windows.all()) showCore(win, status.urls);
  });
  void app.whenReady().then(open);
  app.on('activate', () => {
    if (windows.all().length === 0) open();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}
