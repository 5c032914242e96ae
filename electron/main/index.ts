// Sandboard's Electron main process. It only composes: each concern lives in its own module.
import { join, resolve } from 'node:path';
import { app, shell } from 'electron';
import { setupCoreHost } from './core-host.ts';
import { broadcastCoreStatus, setupIpc } from './ipc.ts';
import { setupMenu } from './menu.ts';
import { appPaths } from './paths.ts';
import { setupSecurity } from './security.ts';
import { setupSingleInstance } from './single-instance.ts';
import { createWindowRegistry, setupWindows } from './windows.ts';

// A separate profile (tests, a second demo): must be set before anything reads userData.
if (process.env.SANDBOARD_USER_DATA_DIR)
  app.setPath('userData', resolve(process.env.SANDBOARD_USER_DATA_DIR));

// Windows shows notifications only for an app with an AppUserModelID (the installer's appId).
if (process.platform === 'win32') app.setAppUserModelId('org.sandboard.app');

const isDev = !app.isPackaged;
const userData = app.getPath('userData');
const dataDir = join(userData, 'data');
const windows = createWindowRegistry();

if (setupSingleInstance(() => windows.main())) {
  const core = setupCoreHost({ entry: appPaths.coreEntry, dataDir });
  setupSecurity({
    coreOrigin: () => core.httpOrigin(),
    allowedOrigins: () => core.origins(),
    openExternal: (url) => shell.openExternal(url),
    coreReady: () => core.isReady(),
    proofSecret: () => core.proofSecret(),
  });
  setupIpc({ windows, coreOrigin: () => core.httpOrigin(), coreStatus: () => core.status });
  core.on('status', (status) => broadcastCoreStatus(windows, status));
  setupWindows({
    core,
    windows,
    preload: appPaths.preload,
    icon: appPaths.icon,
    stateFile: join(userData, 'window-state.json'),
    isDev,
  });

  // No top-level await on whenReady in an ESM main process: 'ready' waits for this module to finish.
  void app.whenReady().then(() => {
    setupMenu({ isDev, core, dataDir });
    // A failed start is shown to the user by the core host (dialog with Try again / Quit).
    core.start().catch(() => undefined);
  });
}
