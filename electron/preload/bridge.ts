// The functions the preload exposes to the renderer as `window.sandboard`. Plain functions only: no
// generic invoke(channel), no getters or Proxies across the context bridge. The type the renderer uses
// is derived from this implementation (`SandboardBridge`, re-exported by shared/desktop-bridge.ts).
import {
  Channel,
  type CoreStatus,
  type OpenedFile,
  type OpenFileOptions,
  type SavedFile,
  type SaveFileOptions,
} from '../ipc-contract.ts';

type Listener = (event: unknown, ...args: unknown[]) => void;

/** The part of Electron's ipcRenderer the bridge uses (kept structural so this file needs no Electron types). */
export interface PreloadIpc {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: Listener): unknown;
  removeListener(channel: string, listener: Listener): unknown;
}

export function createBridge(ipc: PreloadIpc) {
  return {
    /** The desktop app's version, e.g. "0.1.0". */
    appVersion: (): Promise<string> => ipc.invoke(Channel.appVersion) as Promise<string>,

    /** Opens an http(s) link in the OS browser. Resolves false when the URL was refused (other schemes). */
    openExternal: (url: string): Promise<boolean> =>
      ipc.invoke(Channel.openExternal, String(url)) as Promise<boolean>,

    /** Asks the user for a file to import; resolves its name and text, or null when cancelled. */
    openFile: (options: OpenFileOptions = {}): Promise<OpenedFile | null> =>
      ipc.invoke(Channel.openFile, options) as Promise<OpenedFile | null>,

    /** Asks the user where to save `contents`; resolves the chosen name, or null when cancelled. */
    saveFile: (options: SaveFileOptions): Promise<SavedFile | null> =>
      ipc.invoke(Channel.saveFile, options) as Promise<SavedFile | null>,

    /** Shows the folder custom REST converters go in, in the file manager; false before the core is ready. */
    openConvertersFolder: (): Promise<boolean> =>
      ipc.invoke(Channel.openConvertersFolder) as Promise<boolean>,

    /** The platform core's current status. */
    coreStatus: (): Promise<CoreStatus> => ipc.invoke(Channel.coreStatus) as Promise<CoreStatus>,

    /**
     * Calls `listener` whenever the core's status changes (for example `restarting` after a crash, then
     * `ready`). Returns a function that unsubscribes.
     */
    onCoreStatus: (listener: (status: CoreStatus) => void): (() => void) => {
      const handler: Listener = (_event, status) => listener(status as CoreStatus);
      ipc.on(Channel.coreStatusChanged, handler);
      return () => {
        ipc.removeListener(Channel.coreStatusChanged, handler);
      };
    },
  };
}

export type SandboardBridge = ReturnType<typeof createBridge>;
