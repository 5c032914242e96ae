// Where the compiled pieces sit next to the main process (dist/electron/main/*.js).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export const appPaths = {
  /** the preload bundle: one CommonJS file, as sandboxed preloads require */
  preload: join(here, '..', 'preload', 'index.cjs'),
  /** what the core's utility process runs: dist/electron/core-entry.js → dist/core/main/cli.js */
  coreEntry: join(here, '..', 'core-entry.js'),
  /** the window's icon (Linux docks and the Windows title bar; macOS takes the bundle's) */
  icon: join(here, '..', '..', '..', 'build', 'icon.png'),
};
