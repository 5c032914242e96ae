// What the main process and the preload agree on: channel names and the shapes that cross them.
// Plain data only (no Electron, no Node): the renderer's type-check reads this file too.

/** Where the preload puts the bridge: `window.sandboard` (undefined in a plain browser). */
export const BRIDGE_KEY = 'sandboard';

export const Channel = {
  appVersion: 'sandboard:app-version',
  openExternal: 'sandboard:open-external',
  openFile: 'sandboard:open-file',
  saveFile: 'sandboard:save-file',
  coreStatus: 'sandboard:core-status',
  openConvertersFolder: 'sandboard:open-converters-folder',
  /** main → renderer push; the only channel the renderer listens on */
  coreStatusChanged: 'sandboard:core-status-changed',
} as const;

/** The message the main process posts to the core's utility process to stop it gracefully. */
export const CORE_STOP_MESSAGE = 'sandboard:stop';

/** The folder of the core's data directory that holds custom REST converters (the core's convertersDirOf). */
export const CONVERTERS_FOLDER = 'converters';

/** Files a renderer may read or write through the bridge are capped at this size. */
export const MAX_FILE_BYTES = 32 * 1024 * 1024;

/** The platform core's `sandboard ready {...}` line. */
export interface CoreUrls {
  http: string;
  mqtt: string;
  analytics: string;
  dataDir: string;
}

/**
 * - `idle`: not started yet
 * - `starting`: a start is under way
 * - `ready`: the core answers at `urls` (after a restart, `message` says it was restarted)
 * - `restarting`: it stopped unexpectedly and is being started again (`message` says why)
 * - `failed`: it could not be started (or crashed too often); the user was asked what to do
 * - `stopping` / `stopped`: the app is quitting
 */
export type CoreState = 'idle' | 'starting' | 'ready' | 'restarting' | 'failed' | 'stopping' | 'stopped';

export interface CoreStatus {
  state: CoreState;
  /** the last addresses the core reported; kept while it restarts */
  urls: CoreUrls | null;
  /** how many times the core was restarted after a crash since the app started */
  restarts: number;
  /** a sentence for the user: why it restarted or failed */
  message: string | null;
  /** when this status was entered (ms since the epoch) */
  since: number;
}

export interface FileFilter {
  name: string;
  /** without the dot: ['json'] */
  extensions: string[];
}

export interface OpenFileOptions {
  title?: string;
  filters?: FileFilter[];
}

export interface OpenedFile {
  /** the file's name, without its folder */
  name: string;
  /** its contents as UTF-8 text */
  contents: string;
}

export interface SaveFileOptions {
  /** a file name (no folders) offered in the save dialog */
  suggestedName: string;
  contents: string;
  title?: string;
  filters?: FileFilter[];
}

export interface SavedFile {
  /** the name the user saved under, without its folder */
  name: string;
}
