// The functions the preload exposes to the renderer as `window.sandboard`: the implementation of
// shared/desktop-bridge.ts's SandboardBridge (documented there). Plain functions only: no generic
// invoke(channel), no getters or Proxies across the context bridge.
import type {
  CoreStatus,
  DemoLogin,
  OpenedFile,
  OpenFileOptions,
  SandboardBridge,
  SavedFile,
  SaveFileOptions,
} from '../../shared/desktop-bridge.ts';
import { Channel } from '../ipc-contract.ts';

type Listener = (event: unknown, ...args: unknown[]) => void;

/** The part of Electron's ipcRenderer the bridge uses (kept structural so this file needs no Electron types). */
export interface PreloadIpc {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: Listener): unknown;
  removeListener(channel: string, listener: Listener): unknown;
}

export function createBridge(ipc: PreloadIpc) {
  return {
    appVersion: (): Promise<string> => ipc.invoke(Channel.appVersion) as Promise<string>,

    openExternal: (url: string): Promise<boolean> =>
      ipc.invoke(Channel.openExternal, String(url)) as Promise<boolean>,

    openFile: (options: OpenFileOptions = {}): Promise<OpenedFile | null> =>
      ipc.invoke(Channel.openFile, options) as Promise<OpenedFile | null>,

    saveFile: (options: SaveFileOptions): Promise<SavedFile | null> =>
      ipc.invoke(Channel.saveFile, options) as Promise<SavedFile | null>,

    openConvertersFolder: (): Promise<boolean> =>
      ipc.invoke(Channel.openConvertersFolder) as Promise<boolean>,

    demoLogins: (): Promise<DemoLogin[]> => ipc.invoke(Channel.demoLogins) as Promise<DemoLogin[]>,

    coreStatus: (): Promise<CoreStatus> => ipc.invoke(Channel.coreStatus) as Promise<CoreStatus>,

    onCoreStatus: (listener: (status: CoreStatus) => void): (() => void) => {
      const handler: Listener = (_event, status) => listener(status as CoreStatus);
      ipc.on(Channel.coreStatusChanged, handler);
      return () => {
        ipc.removeListener(Channel.coreStatusChanged, handler);
      };
    },
  } satisfies SandboardBridge;
}
