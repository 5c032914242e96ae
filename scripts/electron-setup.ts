// npm install's Electron step (run by scripts/postinstall.js on Node 24). Electron's npm package ships no
// binary and has no install script: it downloads the binary the first time `electron` is required. So that
// `npm start` opens the desktop app at once, this fetches it now with the package's own installer
// (node_modules/electron/install.js: the same version, mirror and cache settings, checksums). Where it
// cannot (offline, a blocked download, ELECTRON_SKIP_BINARY_DOWNLOAD), it says in one line that the app
// will run headless. It never fails the install.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { locateElectronBinary } from './start-plan.ts';

const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;
/** A download still running after this long is announced (a fast failure prints only its one line). */
const ANNOUNCE_AFTER_MS = 3_000;

export type ElectronSetup =
  | { state: 'present'; path: string }
  | { state: 'downloaded'; path: string }
  | { state: 'headless'; reason: string };

export interface ElectronSetupDeps {
  root: string;
  env: NodeJS.ProcessEnv;
  /** runs Electron's installer; resolves its exit status and what it printed on stderr */
  runInstaller: (installer: string) => Promise<InstallerRun>;
}

export interface InstallerRun {
  status: number | null;
  stderr: string;
  timedOut: boolean;
}

export async function setUpElectron({ root, env, runInstaller }: ElectronSetupDeps): Promise<ElectronSetup> {
  const before = locateElectronBinary(root, env);
  if (before.path) return { state: 'present', path: before.path };
  let installer: string;
  try {
    installer = createRequire(join(root, 'package.json')).resolve('electron/install.js');
  } catch {
    return { state: 'headless', reason: 'the electron package is not installed' };
  }
  if (env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
    return { state: 'headless', reason: 'ELECTRON_SKIP_BINARY_DOWNLOAD is set' };
  }
  const run = await runInstaller(installer);
  const after = locateElectronBinary(root, env);
  if (after.path) return { state: 'downloaded', path: after.path };
  const why = run.timedOut
    ? `no answer within ${DOWNLOAD_TIMEOUT_MS / 60_000} minutes`
    : (lastErrorLine(run.stderr) ?? after.reason ?? `its installer exited with ${run.status}`);
  return { state: 'headless', reason: `its download failed: ${why}` };
}

/** The most telling line of an installer's stack trace: the error itself, without the frames. */
function lastErrorLine(stderr: string): string | null {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('at '));
  return lines.length ? lines[lines.length - 1]! : null;
}

/** The one line npm install prints about the desktop app. */
export function setupLine(result: ElectronSetup): string | null {
  switch (result.state) {
    case 'present':
      return null;
    case 'downloaded':
      return "sandboard: Electron's binary is installed: npm start opens the desktop app.\n";
    case 'headless':
      return (
        `sandboard: no Electron binary (${result.reason}): npm start will run Sandboard headless, ` +
        'with its UI in your browser (npm install tries the download again).\n'
      );
  }
}

/** Runs Electron's installer on this Node, announcing a download that takes a while, within a deadline. */
function runInstaller(installer: string, cwd: string): Promise<InstallerRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [installer], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let timedOut = false;
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += d.toString();
    });
    const announce = setTimeout(
      () =>
        process.stderr.write(
          "sandboard: downloading Electron's binary for the desktop app (about 100 MB)...\n",
        ),
      ANNOUNCE_AFTER_MS,
    );
    const deadline = setTimeout(() => {
      timedOut = true;
      child.kill();
    }, DOWNLOAD_TIMEOUT_MS);
    const done = (status: number | null, error?: Error) => {
      clearTimeout(announce);
      clearTimeout(deadline);
      resolve({ status, stderr: error ? `${stderr}\n${error.message}` : stderr, timedOut });
    };
    child.once('error', (err) => done(null, err));
    child.once('close', (code) => done(code));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  try {
    const result = await setUpElectron({
      root,
      env: process.env,
      runInstaller: (installer) => runInstaller(installer, root),
    });
    const line = setupLine(result);
    if (line) process.stderr.write(line);
  } catch (err) {
    process.stderr.write(
      `sandboard: could not check Electron's binary (${(err as Error).message}): npm start may run headless.\n`,
    );
  }
}
