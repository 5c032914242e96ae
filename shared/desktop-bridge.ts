// What the desktop app's preload exposes to the UI as `window.sandboard`, and the shapes that cross it.
// It is undefined when the UI runs in a plain browser against `sandboard serve`, so read it as
// `SandboardBridge | undefined`. Types only: electron/preload/bridge.ts implements the bridge (and is
// checked against this interface), electron/main/ipc.ts answers it.

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
  /**
   * Set while the core listens on other ports than the usual ones (8080, 1883, 8888) because another
   * program held them: which ports it took instead, for a banner in the window and the menu.
   */
  portNotice?: string | null;
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

/** A demo login of this install, with its random per-install password (DATA_DIR/demo-logins.json). */
export interface DemoLogin {
  email: string;
  password: string;
  authority: 'TENANT_ADMIN' | 'CUSTOMER_USER';
}

/** `window.sandboard` in the desktop app: plain functions only (no getters, no generic invoke). */
export interface SandboardBridge {
  /** The desktop app's version, e.g. "0.1.0". */
  appVersion(): Promise<string>;
  /** Opens an http(s) link in the OS browser. Resolves false when the URL was refused (other schemes). */
  openExternal(url: string): Promise<boolean>;
  /** Asks the user for a file to import; resolves its name and text, or null when cancelled. */
  openFile(options?: OpenFileOptions): Promise<OpenedFile | null>;
  /** Asks the user where to save `contents`; resolves the chosen name, or null when cancelled. */
  saveFile(options: SaveFileOptions): Promise<SavedFile | null>;
  /** Shows the folder custom REST converters go in, in the file manager; false before the core is ready. */
  openConvertersFolder(): Promise<boolean>;
  /**
   * This install's demo logins with their random per-install passwords (empty when there are none): the
   * only way they reach the UI, since no endpoint of the core lists them.
   */
  demoLogins(): Promise<DemoLogin[]>;
  /** The platform core's current status. */
  coreStatus(): Promise<CoreStatus>;
  /**
   * Calls `listener` whenever the core's status changes (for example `restarting` after a crash, then
   * `ready`). Returns a function that unsubscribes.
   */
  onCoreStatus(listener: (status: CoreStatus) => void): () => void;
}
