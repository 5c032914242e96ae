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
  demoLogins: 'sandboard:demo-logins',
  /** main → renderer push; the only channel the renderer listens on */
  coreStatusChanged: 'sandboard:core-status-changed',
} as const;

/** The message the main process posts to the core's utility process to stop it gracefully. */
export const CORE_STOP_MESSAGE = 'sandboard:stop';

/** The folder of the core's data directory that holds custom REST converters (the core's convertersDirOf). */
export const CONVERTERS_FOLDER = 'converters';

/** Files a renderer may read or write through the bridge are capped at this size. */
export const MAX_FILE_BYTES = 32 * 1024 * 1024;

/** The core's file of random demo logins (the core's DEMO_LOGINS_FILE), owner-only. */
export const DEMO_LOGINS_FILE = 'demo-logins.json';

/**
 * How the shell knows a response is its core's (main/api/shell-proof.ts is the core's side): it sends a
 * fresh nonce with every request and wants HMAC-SHA256(per-launch secret, nonce), base64url, back.
 */
export const SHELL_PROOF = {
  secretEnv: 'SANDBOARD_SHELL_SECRET',
  nonceHeader: 'x-sandboard-nonce',
  proofHeader: 'x-sandboard-proof',
} as const;
