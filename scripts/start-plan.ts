// What `npm start` does: with an Electron binary, build the UI, the core and the shell, then launch
// Electron; without one (it cannot always be downloaded), or where Electron cannot show a window (no
// display), say so and run the core headless. An Electron that aborts at launch (Chromium's sandbox
// refused, as by Ubuntu 23.10+'s AppArmor: electron/electron#42510) is retried with --no-sandbox on
// Linux, then replaced by the headless core, each with one line saying why.
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
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  /** running as root (uid 0) */
  isRoot?: boolean;
}

/**
 * How the platform core is launched wherever we launch it (npm run serve, the bin's shebang, the headless
 * start, the desktop app's core, the benches): a young generation of 2 x 16 MiB from the start instead of
 * one sized from the machine's memory (grown from 1 MiB, it is collected three times as often while the
 * core starts); at most two malloc arenas instead of eight per core for the worker
 * threads; and blocks of 1 MiB or more always mapped on their own, so that freeing one (a snapshot's
 * export, a journal frame) returns it to the system (glibc otherwise raises that threshold to the largest
 * block freed, up to 32 MiB, and keeps such blocks). bench:ingest BENCH_ONLY=launch-flags measures them.
 */
export const CORE_NODE_FLAGS = ['--max-semi-space-size=16', '--min-semi-space-size=16'];
export const CORE_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '1048576' };

/** Electron's switch that turns Chromium's sandbox off (needed as root, or without user namespaces). */
export const NO_SANDBOX = '--no-sandbox';

function headlessPlan(input: StartPlanInput, why: string, builds: string[]): StartPlan {
  return {
    mode: 'headless',
    builds,
    command: input.nodePath,
    args: [
      ...CORE_NODE_FLAGS,
      join(input.root, 'bin', 'sandboard.js'),
      'serve',
      '--stop-with-parent',
      ...input.extraArgs,
    ],
    notice: `sandboard: ${why}; running headless instead: the platform core alone, with its UI in your browser.\n`,
  };
}

export function planStart(input: StartPlanInput): StartPlan {
  const ui = input.build && input.scripts['build:ui'] ? ['build:ui'] : [];
  const { platform = process.platform, env = process.env } = input;
  if (!input.electron.path) {
    const { reason, checked } = input.electron;
    return headlessPlan(input, `no Electron binary (${reason}; looked at ${checked})`, ui);
  }
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY)
    return headlessPlan(input, 'no display for a window (neither DISPLAY nor WAYLAND_DISPLAY is set)', ui);
  const asRoot = platform === 'linux' && input.isRoot === true;
  return {
    mode: 'electron',
    builds: input.build ? [...ui, 'build:core', 'build:electron'] : [],
    command: input.electron.path,
    args: [input.root, ...(asRoot ? [NO_SANDBOX] : []), ...input.extraArgs],
    notice: asRoot
      ? `sandboard: running as root, where Chromium's sandbox cannot run; starting Electron with ${NO_SANDBOX}.\n`
      : null,
  };
}

/** What Chromium prints when its sandbox cannot start, or Electron when it cannot open a window. */
const ABORT_LINES: [RegExp, string][] = [
  [/FATAL:[^\n]*setuid_sandbox_host/, "Chromium's sandbox helper (chrome-sandbox) is not set up"],
  [/FATAL:[^\n]*(zygote|namespace|sandbox)/i, "Chromium's sandbox could not start"],
  [/No usable sandbox/, "Chromium's sandbox could not start"],
  [/Running as root without --no-sandbox/, 'running as root needs --no-sandbox'],
  [/Missing X server or \$DISPLAY|cannot open display/i, 'no display for a window'],
];

/** Electron ending this soon, by a signal, counts as an abort at launch. */
export const LAUNCH_ABORT_MS = 15_000;

/**
 * Why Electron aborted at launch (its stderr, how it ended, how long it ran), or null when it did not:
 * it exited normally, or ran long enough to have shown its window.
 */
export function launchAbortReason(
  stderr: string,
  exit: { code: number | null; signal: string | null },
  ranMs: number,
): string | null {
  if (exit.code === 0 && !exit.signal) return null;
  for (const [pattern, reason] of ABORT_LINES) if (pattern.test(stderr)) return reason;
  if (exit.signal && ranMs < LAUNCH_ABORT_MS) return `Electron was ended by ${exit.signal} as it started`;
  return null;
}

/** After an abort at launch: Electron again with --no-sandbox (Linux, once), else the headless core. */
export function planAfterAbort(input: StartPlanInput, plan: StartPlan, reason: string): StartPlan {
  const { platform = process.platform } = input;
  if (platform === 'linux' && plan.mode === 'electron' && !plan.args.includes(NO_SANDBOX)) {
    return {
      ...plan,
      builds: [],
      args: [plan.args[0]!, NO_SANDBOX, ...plan.args.slice(1)],
      notice: `sandboard: Electron aborted at launch (${reason}); trying again with ${NO_SANDBOX}.\n`,
    };
  }
  return headlessPlan(input, `Electron aborted at launch (${reason})`, []);
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
