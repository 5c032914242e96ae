// What the main process and the preload agree on: the channel names and constants. The shapes that
// cross them are the UI's contract too, in shared/desktop-bridge.ts. Plain data only (no Electron, no Node).

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
