// A small stand-in for the 'electron' module (its binary cannot run here). Tests use it with
//   vi.mock('electron', () => import('./fake-electron.ts'))
// and import the same module to drive events and inspect calls.
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

type Handler = (event: unknown, ...args: unknown[]) => unknown;

export class FakeWebContents extends EventEmitter {
  static nextId = 1;
  id = FakeWebContents.nextId++;
  url = '';
  windowOpenHandler: ((details: { url: string }) => { action: string }) | null = null;
  sent: { channel: string; args: unknown[] }[] = [];
  getURL(): string {
    return this.url;
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.windowOpenHandler = handler;
  }
  send(channel: string, ...args: unknown[]): void {
    this.sent.push({ channel, args });
  }
}

export class BrowserWindow extends EventEmitter {
  static instances: BrowserWindow[] = [];
  static fromWebContents(contents: unknown): BrowserWindow | null {
    return BrowserWindow.instances.find((w) => w.webContents === contents) ?? null;
  }
  webContents = new FakeWebContents();
  options: Record<string, unknown>;
  destroyed = false;
  minimized = false;
  visible = false;
  maximized = false;
  normalBounds = { x: 100, y: 80, width: 1200, height: 800 };
  calls: string[] = [];
  constructor(options: Record<string, unknown> = {}) {
    super();
    this.options = options;
    BrowserWindow.instances.push(this);
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  isVisible(): boolean {
    return this.visible;
  }
  isMaximized(): boolean {
    return this.maximized;
  }
  getNormalBounds() {
    return { ...this.normalBounds };
  }
  restore(): void {
    this.calls.push('restore');
    this.minimized = false;
  }
  show(): void {
    this.calls.push('show');
    this.visible = true;
  }
  focus(): void {
    this.calls.push('focus');
  }
  maximize(): void {
    this.maximized = true;
  }
  async loadURL(url: string): Promise<void> {
    this.calls.push(`load ${url}`);
    this.webContents.url = url;
  }
  close(): void {
    this.emit('close');
    this.destroyed = true;
    this.emit('closed');
  }
}

const paths = new Map<string, string>();

export const app = Object.assign(new EventEmitter(), {
  requestSingleInstanceLock: vi.fn(() => true),
  quit: vi.fn(),
  getVersion: vi.fn(() => '0.1.0-test'),
  getPath: vi.fn((name: string) => paths.get(name) ?? `/tmp/sandboard-fake-${name}`),
  setPath: vi.fn((name: string, path: string) => {
    paths.set(name, path);
  }),
  setAppUserModelId: vi.fn(),
  enableSandbox: vi.fn(),
  whenReady: vi.fn(() => Promise.resolve()),
  isPackaged: false,
});

export const ipcMain = {
  handlers: new Map<string, Handler>(),
  handle: vi.fn((channel: string, handler: Handler) => {
    ipcMain.handlers.set(channel, handler);
  }),
  removeHandler: vi.fn((channel: string) => {
    ipcMain.handlers.delete(channel);
  }),
};

export const dialog = {
  showOpenDialog: vi.fn(async (): Promise<{ canceled: boolean; filePaths: string[] }> => ({
    canceled: true,
    filePaths: [],
  })),
  showSaveDialog: vi.fn(async (): Promise<{ canceled: boolean; filePath?: string }> => ({ canceled: true })),
  showMessageBox: vi.fn(async () => ({ response: 1 })),
};

export const shell = {
  openExternal: vi.fn(async (_url: string) => undefined),
  openPath: vi.fn(async (_path: string) => ''),
};

export class Notification {
  static isSupported = vi.fn(() => true);
  static shown: { title: string; body: string }[] = [];
  options: { title: string; body: string };
  constructor(options: { title: string; body: string }) {
    this.options = options;
  }
  show(): void {
    Notification.shown.push(this.options);
  }
}

export const utilityProcess = { fork: vi.fn() };

export const screen = {
  getAllDisplays: vi.fn(() => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }]),
};

export class FakeSession {
  permissionRequest:
    ((contents: unknown, permission: string, callback: (ok: boolean) => void) => void) | null = null;
  permissionCheck: ((contents: unknown, permission: string, origin: string) => boolean) | null = null;
  devicePermission: (() => boolean) | null = null;
  beforeRequest: ((details: { url: string }, callback: (r: { cancel?: boolean }) => void) => void) | null =
    null;
  headersReceived:
    | ((
        details: { id?: number; url: string; responseHeaders?: Record<string, string[]> },
        callback: (r: { cancel?: boolean; responseHeaders?: Record<string, string[]> }) => void,
      ) => void)
    | null = null;
  beforeSendHeaders:
    | ((
        details: { id: number; url: string; requestHeaders: Record<string, string> },
        callback: (r: { requestHeaders?: Record<string, string> }) => void,
      ) => void)
    | null = null;
  setPermissionRequestHandler(handler: FakeSession['permissionRequest']): void {
    this.permissionRequest = handler;
  }
  setPermissionCheckHandler(handler: FakeSession['permissionCheck']): void {
    this.permissionCheck = handler;
  }
  setDevicePermissionHandler(handler: () => boolean): void {
    this.devicePermission = handler;
  }
  cacheCleared = 0;
  async clearCache(): Promise<void> {
    this.cacheCleared++;
  }
  webRequest = {
    onBeforeRequest: (handler: FakeSession['beforeRequest']) => {
      this.beforeRequest = handler;
    },
    onHeadersReceived: (handler: FakeSession['headersReceived']) => {
      this.headersReceived = handler;
    },
    onBeforeSendHeaders: (handler: FakeSession['beforeSendHeaders']) => {
      this.beforeSendHeaders = handler;
    },
  };
}

export const session = { defaultSession: new FakeSession() };

export const Menu = {
  buildFromTemplate: vi.fn((template: unknown) => template),
  setApplicationMenu: vi.fn(),
};

export const nativeTheme = { themeSource: 'system' as 'system' | 'light' | 'dark' };

/** A navigation-like event (Electron passes the URL on the event) whose preventDefault is observable. */
export function fakeEvent(url = ''): {
  url: string;
  preventDefault: ReturnType<typeof vi.fn>;
  defaultPrevented: () => boolean;
} {
  const preventDefault = vi.fn();
  return { url, preventDefault, defaultPrevented: () => preventDefault.mock.calls.length > 0 };
}

/** Clears recorded calls and state between tests. */
export function resetFakeElectron(): void {
  vi.clearAllMocks();
  app.removeAllListeners();
  app.requestSingleInstanceLock.mockImplementation(() => true);
  paths.clear();
  ipcMain.handlers.clear();
  BrowserWindow.instances = [];
  Notification.shown = [];
  Notification.isSupported.mockImplementation(() => true);
  session.defaultSession = new FakeSession();
  nativeTheme.themeSource = 'system';
}
