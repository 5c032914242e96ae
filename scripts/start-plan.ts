// What `npm start` does: with an Electron binary, build the UI, the core and the shell, then launch
// Electron; without one (it cannot always be downloaded), say so and run the core headless.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface ElectronLookup {
  /** the Electron executable, or null when there is none */
  path: string | null;
  /** the file or folder that was looked at */
  checked: string;
  /** why there is no binary (null when there is one) */
  reason: string | null;
}

/**
 * Finds the Electron executable the way node_modules/electron/index.js does (path.txt written by its
 * install script, ELECTRON_OVERRIDE_DIST_PATH), without requiring that module: in Electron 45 requiring
 * it starts a download when the binary is missing, which hangs or fails on a machine without access.
 */
export function locateElectronBinary(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
  exists: (path: string) => boolean = existsSync,
): ElectronLookup {
  let pkgDir: string;
  try {
    pkgDir = dirname(createRequire(join(root, 'package.json')).resolve('electron/package.json'));
  } catch {
    const checked = join(root, 'node_modules', 'electron');
    return { path: null, checked, reason: 'the electron package is not installed' };
  }
  const pathFile = join(pkgDir, 'path.txt');
  const relative = exists(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  if (env.ELECTRON_OVERRIDE_DIST_PATH) {
    const path = join(env.ELECTRON_OVERRIDE_DIST_PATH, relative || 'electron');
    return exists(path)
      ? { path, checked: path, reason: null }
      : { path: null, checked: path, reason: 'ELECTRON_OVERRIDE_DIST_PATH has no Electron executable' };
  }
  if (!relative) {
    return {
      path: null,
      checked: pathFile,
      reason: "Electron's binary was never downloaded (npm install tries, and says why it could not)",
    };
  }
  const path = join(pkgDir, 'dist', relative);
  return exists(path)
    ? { path, checked: path, reason: null }
    : { path: null, checked: path, reason: "Electron's binary is missing from node_modules/electron/dist" };
}

export interface StartPlan {
  mode: 'electron' | 'headless';
  /** npm scripts to run first, in order */
  builds: string[];
  command: string;
  args: string[];
  /** printed on stderr before launching (why it runs headless) */
  notice: string | null;
}

export interface StartPlanInput {
  root: string;
  electron: ElectronLookup;
  /** the package's npm scripts (build:ui is run only if it exists) */
  scripts: Record<string, string>;
  /** `npm start -- --no-build` */
  build: boolean;
  /** further arguments: given to `sandboard serve` when headless, to the app otherwise */
  extraArgs: string[];
  nodePath: string;
}

export function planStart(input: StartPlanInput): StartPlan {
  const ui = input.build && input.scripts['build:ui'] ? ['build:ui'] : [];
  if (input.electron.path) {
    return {
      mode: 'electron',
      builds: input.build ? [...ui, 'build:core', 'build:electron'] : [],
      command: input.electron.path,
      args: [input.root, ...input.extraArgs],
      notice: null,
    };
  }
  return {
    mode: 'headless',
    builds: ui,
    command: input.nodePath,
    args: [join(input.root, 'bin', 'sandboard.js'), 'serve', '--stop-with-parent', ...input.extraArgs],
    notice:
      `sandboard: no Electron binary (${input.electron.reason}; looked at ${input.electron.checked}).\n` +
      'sandboard: running headless instead: the platform core alone, with its UI in your browser.\n',
  };
}

/** The ready line's UI address (`sandboard ready {"http":...}`), or null for other lines. */
export function uiUrlFromReadyLine(line: string): string | null {
  const match = /^sandboard ready (\{.*\})\s*$/.exec(line);
  if (!match) return null;
  try {
    const { http } = JSON.parse(match[1]!) as { http?: unknown };
    return typeof http === 'string' && URL.canParse(http) ? new URL('/', http).href : null;
  } catch {
    return null;
  }
}
