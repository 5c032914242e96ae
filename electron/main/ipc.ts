// The main-process side of the preload bridge. Every handler first checks that the message comes from
// the top frame of one of the app's own windows showing the core's origin; anything else is refused.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  shell,
  type FileFilter as ElectronFileFilter,
  type IpcMainInvokeEvent,
} from 'electron';
import type {
  CoreStatus,
  DemoLogin,
  FileFilter,
  OpenedFile,
  SavedFile,
} from '../../shared/desktop-bridge.ts';
import { Channel, CONVERTERS_FOLDER, DEMO_LOGINS_FILE, MAX_FILE_BYTES } from '../ipc-contract.ts';
import { toExternalHttpUrl } from './security.ts';
import type { WindowRegistry } from './windows.ts';

export interface IpcDeps {
  windows: WindowRegistry;
  coreOrigin: () => string | null;
  coreStatus: () => CoreStatus;
}

/** Sender check: our own BrowserWindow, its top frame, on the core's origin. */
export function isTrustedSender(
  event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>,
  deps: Pick<IpcDeps, 'windows' | 'coreOrigin'>,
): boolean {
  const frame = event.senderFrame;
  const origin = deps.coreOrigin();
  if (!frame || frame.parent !== null || origin === null) return false;
  if (!URL.canParse(frame.url) || new URL(frame.url).origin !== origin) return false;
  const win = BrowserWindow.fromWebContents(event.sender);
  return win !== null && deps.windows.has(win);
}

class BadRequest extends Error {}

function optionalText(value: unknown, name: string, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > max)
    throw new BadRequest(`${name} must be text of at most ${max} characters`);
  return value;
}

function asFilters(value: unknown): ElectronFileFilter[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > 20)
    throw new BadRequest('filters must be a list of at most 20 filters');
  return value.map((item: unknown): FileFilter => {
    const { name, extensions } = (item ?? {}) as Partial<FileFilter>;
    if (typeof name !== 'string' || name.length > 100) throw new BadRequest('a filter needs a name');
    if (
      !Array.isArray(extensions) ||
      !extensions.every((e) => typeof e === 'string' && /^(\*|[\w-]{1,16})$/.test(e))
    )
      throw new BadRequest(`filter '${name}' needs extensions like ['json'] (no dots)`);
    return { name, extensions: [...extensions] };
  });
}

function asObject(value: unknown, name: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new BadRequest(`${name} must be an object`);
  return value as Record<string, unknown>;
}

/** Opens an http(s) URL in the OS browser; false for anything else. */
export async function openExternalUrl(raw: unknown): Promise<boolean> {
  const url = toExternalHttpUrl(raw);
  if (!url) return false;
  await shell.openExternal(url);
  return true;
}

/** Lets the user pick a file and returns its name and text (never its path). */
export async function openFile(win: BrowserWindow, rawOptions: unknown): Promise<OpenedFile | null> {
  const options = asObject(rawOptions, 'options');
  const title = optionalText(options.title, 'title', 200);
  const filters = asFilters(options.filters);
  const result = await dialog.showOpenDialog(win, {
    properties: ['openFile'],
    ...(title ? { title } : {}),
    ...(filters ? { filters } : {}),
  });
  const path = result.filePaths[0];
  if (result.canceled || !path) return null;
  const { size } = await stat(path);
  if (size > MAX_FILE_BYTES)
    throw new Error(
      `${basename(path)} is ${size} bytes; files up to ${MAX_FILE_BYTES} bytes can be imported`,
    );
  return { name: basename(path), contents: await readFile(path, 'utf8') };
}

/** Lets the user choose where to save `contents` and writes it there. */
export async function saveFile(win: BrowserWindow, rawOptions: unknown): Promise<SavedFile | null> {
  const options = asObject(rawOptions, 'options');
  const title = optionalText(options.title, 'title', 200);
  const filters = asFilters(options.filters);
  const contents = options.contents;
  if (typeof contents !== 'string') throw new BadRequest('contents must be text');
  if (Buffer.byteLength(contents) > MAX_FILE_BYTES)
    throw new BadRequest(`contents exceed ${MAX_FILE_BYTES} bytes`);
  const suggested = basename(optionalText(options.suggestedName, 'suggestedName', 255) ?? 'export.json');
  const result = await dialog.showSaveDialog(win, {
    defaultPath: join(app.getPath('downloads'), suggested || 'export.json'),
    ...(title ? { title } : {}),
    ...(filters ? { filters } : {}),
  });
  if (result.canceled || !result.filePath) return null;
  await writeFile(result.filePath, contents, 'utf8');
  return { name: basename(result.filePath) };
}

/**
 * Shows the core's custom converters folder in the file manager, made first if missing: the folder is
 * the core's to say (no path comes from the renderer). False while the core has not reported it.
 */
export async function openConvertersFolder(status: CoreStatus): Promise<boolean> {
  const dataDir = status.urls?.dataDir;
  if (!dataDir) return false;
  const dir = join(dataDir, CONVERTERS_FOLDER);
  await mkdir(dir, { recursive: true });
  const error = await shell.openPath(dir);
  if (error) throw new Error(`Could not open ${dir}: ${error}`);
  return true;
}

/**
 * This install's demo logins with their random passwords, from the core's owner-only file: the only way
 * they reach the UI (the core's /api/noauth/demoLogins does not list them). Empty until the core has
 * written the file, or when it is not there.
 */
export async function readDemoLogins(status: CoreStatus): Promise<DemoLogin[]> {
  const dataDir = status.urls?.dataDir;
  if (!dataDir) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(join(dataDir, DEMO_LOGINS_FILE), 'utf8'));
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((item: unknown): DemoLogin[] => {
    const { email, password, authority } = (item ?? {}) as Record<string, unknown>;
    if (typeof email !== 'string' || typeof password !== 'string') return [];
    if (authority !== 'TENANT_ADMIN' && authority !== 'CUSTOMER_USER') return [];
    return [{ email, password, authority }];
  });
}

/** Registers the bridge's handlers; returns a function that removes them. */
export function setupIpc(deps: IpcDeps): () => void {
  const channels: string[] = [];
  const handle = (channel: string, fn: (win: BrowserWindow, ...args: unknown[]) => unknown) => {
    channels.push(channel);
    ipcMain.handle(channel, (event, ...args: unknown[]) => {
      if (!isTrustedSender(event, deps)) {
        throw new Error(`Refused '${channel}' from ${event.senderFrame?.url ?? 'a destroyed frame'}`);
      }
      return fn(BrowserWindow.fromWebContents(event.sender)!, ...args);
    });
  };
  handle(Channel.appVersion, () => app.getVersion());
  handle(Channel.openExternal, (_win, url) => openExternalUrl(url));
  handle(Channel.openFile, (win, options) => openFile(win, options));
  handle(Channel.saveFile, (win, options) => saveFile(win, options));
  handle(Channel.coreStatus, () => deps.coreStatus());
  handle(Channel.openConvertersFolder, () => openConvertersFolder(deps.coreStatus()));
  handle(Channel.demoLogins, () => readDemoLogins(deps.coreStatus()));
  return () => {
    for (const channel of channels) ipcMain.removeHandler(channel);
  };
}

/** Pushes the core's status to every window (the preload's onCoreStatus subscribers). */
export function broadcastCoreStatus(windows: WindowRegistry, status: CoreStatus): void {
  for (const win of windows.all()) {
    if (!win.isDestroyed()) win.webContents.send(Channel.coreStatusChanged, status);
  }
}
