import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BrowserWindow as ElectronWindow, IpcMainInvokeEvent } from 'electron';
import { Channel, CONVERTERS_FOLDER, DEMO_LOGINS_FILE } from '../../../electron/ipc-contract.ts';
import type { CoreStatus } from '../../../shared/desktop-bridge.ts';
import { broadcastCoreStatus, isTrustedSender, setupIpc } from '../../../electron/main/ipc.ts';
import { convertersDirOf } from '../../../main/gateway/connectors/rest/converters.ts';
import { createWindowRegistry, type WindowRegistry } from '../../../electron/main/windows.ts';
import { BrowserWindow, dialog, ipcMain, resetFakeElectron, shell } from '../fake-electron.ts';

vi.mock('electron', () => import('../fake-electron.ts'));

const CORE = 'http://127.0.0.1:8080';
const status: CoreStatus = { state: 'ready', urls: null, restarts: 0, message: null, since: 0 };
let currentStatus: CoreStatus;

let windows: WindowRegistry;
let win: BrowserWindow;
let dir: string;

function eventFrom(sender: BrowserWindow, url: string, parent: unknown = null): IpcMainInvokeEvent {
  return { sender: sender.webContents, senderFrame: { url, parent } } as unknown as IpcMainInvokeEvent;
}

function invoke(channel: string, event: IpcMainInvokeEvent, ...args: unknown[]): Promise<unknown> {
  const handler = ipcMain.handlers.get(channel);
  if (!handler) throw new Error(`no handler for ${channel}`);
  return Promise.resolve().then(() => handler(event, ...args));
}

beforeEach(() => {
  resetFakeElectron();
  windows = createWindowRegistry();
  win = new BrowserWindow();
  windows.add(win as unknown as ElectronWindow);
  currentStatus = status;
  setupIpc({ windows, coreOrigin: () => CORE, coreStatus: () => currentStatus });
  dir = mkdtempSync(join(tmpdir(), 'sandboard-ipc-'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('IPC sender check', () => {
  const deps = () => ({ windows, coreOrigin: () => CORE });

  it('accepts the top frame of our own window on the core origin', () => {
    expect(isTrustedSender(eventFrom(win, `${CORE}/devices`), deps())).toBe(true);
  });

  it('refuses other origins, subframes, foreign windows and a core that is not ready', () => {
    expect(isTrustedSender(eventFrom(win, 'https://evil.example/'), deps())).toBe(false);
    expect(isTrustedSender(eventFrom(win, 'http://127.0.0.1:9999/'), deps())).toBe(false);
    expect(isTrustedSender(eventFrom(win, 'file:///etc/passwd'), deps())).toBe(false);
    expect(isTrustedSender(eventFrom(win, `${CORE}/`, { url: CORE }), deps())).toBe(false);
    const stranger = new BrowserWindow(); // exists, but not created through the registry
    expect(isTrustedSender(eventFrom(stranger, `${CORE}/`), deps())).toBe(false);
    const noFrame = { sender: win.webContents, senderFrame: null } as unknown as IpcMainInvokeEvent;
    expect(isTrustedSender(noFrame, deps())).toBe(false);
    expect(isTrustedSender(eventFrom(win, `${CORE}/`), { windows, coreOrigin: () => null })).toBe(false);
  });

  it('makes every handler refuse a foreign sender', async () => {
    await expect(invoke(Channel.appVersion, eventFrom(win, `${CORE}/`))).resolves.toBe('0.1.0-test');
    currentStatus = { ...status, urls: { http: CORE, mqtt: CORE, analytics: CORE, dataDir: dir } };
    const channels = [
      Channel.appVersion,
      Channel.openExternal,
      Channel.openFile,
      Channel.saveFile,
      Channel.openConvertersFolder,
      Channel.demoLogins,
    ];
    for (const channel of channels) {
      await expect(invoke(channel, eventFrom(win, 'https://evil.example/'), {})).rejects.toThrow(/Refused/);
    }
    expect(shell.openExternal).not.toHaveBeenCalled();
    expect(shell.openPath).not.toHaveBeenCalled();
    expect(dialog.showOpenDialog).not.toHaveBeenCalled();
  });

  it('stops trusting a window once it is closed', async () => {
    win.close();
    await expect(invoke(Channel.coreStatus, eventFrom(win, `${CORE}/`))).rejects.toThrow(/Refused/);
  });
});

describe('bridge handlers', () => {
  const ok = () => eventFrom(win, `${CORE}/`);

  it('opens http(s) links in the OS browser and refuses other schemes', async () => {
    await expect(invoke(Channel.openExternal, ok(), 'https://thingsboard.io/docs/')).resolves.toBe(true);
    expect(shell.openExternal).toHaveBeenCalledWith('https://thingsboard.io/docs/');
    for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'not a url', 42]) {
      await expect(invoke(Channel.openExternal, ok(), bad)).resolves.toBe(false);
    }
    expect(shell.openExternal).toHaveBeenCalledTimes(1);
  });

  it('returns the picked file contents, never its path', async () => {
    const file = join(dir, 'devices.json');
    writeFileSync(file, '{"devices":[]}');
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: [file] });
    const opened = await invoke(Channel.openFile, ok(), {
      filters: [{ name: 'JSON', extensions: ['json'] }],
    });
    expect(opened).toEqual({ name: 'devices.json', contents: '{"devices":[]}' });
    dialog.showOpenDialog.mockResolvedValueOnce({ canceled: true, filePaths: [] });
    await expect(invoke(Channel.openFile, ok(), {})).resolves.toBeNull();
    await expect(
      invoke(Channel.openFile, ok(), { filters: [{ name: 'x', extensions: ['../..'] }] }),
    ).rejects.toThrow(/extensions/);
  });

  it('writes the given contents where the user chose', async () => {
    const target = join(dir, 'export.json');
    dialog.showSaveDialog.mockResolvedValueOnce({ canceled: false, filePath: target });
    const saved = await invoke(Channel.saveFile, ok(), {
      suggestedName: '../../export.json',
      contents: '[1,2]',
    });
    expect(saved).toEqual({ name: 'export.json' });
    expect(readFileSync(target, 'utf8')).toBe('[1,2]');
    const [, options] = dialog.showSaveDialog.mock.calls[0] as unknown as [unknown, { defaultPath: string }];
    expect(options.defaultPath).toBe(join('/tmp/sandboard-fake-downloads', 'export.json'));
    await expect(invoke(Channel.saveFile, ok(), { suggestedName: 'a.json', contents: 7 })).rejects.toThrow(
      /text/,
    );
  });

  it("shows the core's converters folder, made if missing, and no folder before the core is ready", async () => {
    await expect(invoke(Channel.openConvertersFolder, ok())).resolves.toBe(false);
    expect(shell.openPath).not.toHaveBeenCalled();
    currentStatus = {
      ...status,
      urls: { http: CORE, mqtt: 'mqtt://127.0.0.1:1883', analytics: CORE, dataDir: dir },
    };
    await expect(invoke(Channel.openConvertersFolder, ok(), '/etc')).resolves.toBe(true);
    const folder = join(dir, 'converters');
    expect(shell.openPath).toHaveBeenCalledWith(folder);
    expect(statSync(folder).isDirectory()).toBe(true);
    shell.openPath.mockResolvedValueOnce('No application is associated');
    await expect(invoke(Channel.openConvertersFolder, ok())).rejects.toThrow(/No application/);
  });

  it("hands this install's random demo logins from the core's file to the core's own window only", async () => {
    await expect(invoke(Channel.demoLogins, ok())).resolves.toEqual([]);
    currentStatus = { ...status, urls: { http: CORE, mqtt: CORE, analytics: CORE, dataDir: dir } };
    await expect(invoke(Channel.demoLogins, ok())).resolves.toEqual([]);
    const logins = [
      { email: 'tenant@thingsboard.org', password: 'r4nd0m-t', authority: 'TENANT_ADMIN' },
      { email: 'customer@thingsboard.org', password: 'r4nd0m-c', authority: 'CUSTOMER_USER' },
      { email: 'odd', password: 5, authority: 'TENANT_ADMIN' },
    ];
    writeFileSync(join(dir, DEMO_LOGINS_FILE), JSON.stringify(logins));
    await expect(invoke(Channel.demoLogins, ok())).resolves.toEqual(logins.slice(0, 2));
    await expect(invoke(Channel.demoLogins, eventFrom(win, 'https://evil.example/'))).rejects.toThrow(
      /Refused/,
    );
  });

  it('opens the folder the core loads converters from', () => {
    expect(convertersDirOf('/data')).toBe(join('/data', CONVERTERS_FOLDER));
  });

  it('pushes core status changes to every window', () => {
    broadcastCoreStatus(windows, { ...status, state: 'restarting' });
    expect(win.webContents.sent).toEqual([
      { channel: Channel.coreStatusChanged, args: [{ ...status, state: 'restarting' }] },
    ]);
  });
});
