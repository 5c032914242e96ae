import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  CORE_ENV,
  CORE_NODE_FLAGS,
  launchAbortReason,
  locateElectronBinary,
  planAfterAbort,
  planStart,
  uiUrlFromReadyLine,
} from '../../scripts/start-plan.ts';
import { fakeElectronProject } from '../helpers/electron-package.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('npm start: Electron binary lookup', () => {
  it('finds no binary when Electron was never downloaded', () => {
    const root = fakeElectronProject({});
    const lookup = locateElectronBinary(root, {});
    expect(lookup.path).toBeNull();
    expect(lookup.checked).toBe(join(root, 'node_modules', 'electron', 'path.txt'));
    expect(lookup.reason).toMatch(/never downloaded/);
  });

  it('finds no binary when path.txt names a missing file', () => {
    const root = fakeElectronProject({ pathTxt: 'electron' });
    const lookup = locateElectronBinary(root, {});
    expect(lookup).toMatchObject({
      path: null,
      checked: join(root, 'node_modules', 'electron', 'dist', 'electron'),
    });
  });

  it('finds the downloaded binary, or the one ELECTRON_OVERRIDE_DIST_PATH points at', () => {
    const root = fakeElectronProject({ pathTxt: 'electron', binary: true });
    expect(locateElectronBinary(root, {}).path).toBe(
      join(root, 'node_modules', 'electron', 'dist', 'electron'),
    );
    const override = tempDir();
    expect(locateElectronBinary(root, { ELECTRON_OVERRIDE_DIST_PATH: override }).path).toBeNull();
    writeFileSync(join(override, 'electron'), '');
    expect(locateElectronBinary(root, { ELECTRON_OVERRIDE_DIST_PATH: override }).path).toBe(
      join(override, 'electron'),
    );
  });

  it('reports a missing electron package', () => {
    const root = tempDir();
    writeFileSync(join(root, 'package.json'), '{}');
    expect(locateElectronBinary(root, {}).reason).toMatch(/not installed/);
  });
});

describe("the core's launch settings", () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));

  it('are the same wherever a user launches the core: npm run serve, the sandboard command, the desktop app', () => {
    const flags = CORE_NODE_FLAGS.join(' ');
    const env = Object.entries(CORE_ENV);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const defaults = env.map(([name, value]) => `${name}=\${${name}:-${value}}`).join(' ');
    expect(pkg.scripts.serve).toContain(`${defaults} exec node ${flags} bin/sandboard.js serve`);
    const shebang = readFileSync(join(root, 'bin', 'sandboard.js'), 'utf8').split('\n')[0];
    const settings = env.map(([name, value]) => `${name}=${value}`).join(' ');
    expect(shebang).toBe(`#!/usr/bin/env -S ${settings} node ${flags}`);
    // the desktop app's core: test/electron/main/core-host.test.ts
  });
});

describe('npm start: what it runs', () => {
  const base = {
    root: '/repo',
    scripts: {},
    build: true,
    extraArgs: [],
    nodePath: '/usr/bin/node',
    platform: 'linux' as const,
    env: { DISPLAY: ':0' },
    isRoot: false,
  };
  const electron = { path: '/e/electron', checked: '/e/electron', reason: null };

  it('runs headless without an Electron binary, saying why', () => {
    const plan = planStart({
      ...base,
      electron: { path: null, checked: '/x/path.txt', reason: 'no path.txt' },
    });
    expect(plan.mode).toBe('headless');
    expect(plan.command).toBe('/usr/bin/node');
    expect(plan.args).toEqual([
      ...CORE_NODE_FLAGS,
      join('/repo', 'bin', 'sandboard.js'),
      'serve',
      '--stop-with-parent',
    ]);
    expect(plan.builds).toEqual([]);
    expect(plan.notice).toMatch(/no Electron binary \(no path\.txt; looked at \/x\/path\.txt\)/);
  });

  it('launches Electron after building the UI (when it has a build), the core and the shell', () => {
    const plan = planStart({ ...base, electron, scripts: { 'build:ui': 'vite build' } });
    expect(plan).toMatchObject({
      mode: 'electron',
      command: '/e/electron',
      args: ['/repo'],
      builds: ['build:ui', 'build:core', 'build:electron'],
      notice: null,
    });
    expect(planStart({ ...base, electron, build: false }).builds).toEqual([]);
    expect(planStart({ ...base, electron }).builds).toEqual(['build:core', 'build:electron']);
  });

  it('runs headless on Linux without a display, and without the sandbox as root, saying so', () => {
    const noDisplay = planStart({ ...base, electron, env: {} });
    expect(noDisplay.mode).toBe('headless');
    expect(noDisplay.notice).toMatch(/no display for a window .*running headless instead/);
    expect(planStart({ ...base, electron, env: { WAYLAND_DISPLAY: 'wayland-0' } }).mode).toBe('electron');
    expect(planStart({ ...base, electron, env: {}, platform: 'darwin' }).mode).toBe('electron');
    const root = planStart({ ...base, electron, isRoot: true, extraArgs: ['--x'] });
    expect(root.args).toEqual(['/repo', '--no-sandbox', '--x']);
    expect(root.notice).toMatch(/running as root.*--no-sandbox/);
    expect(planStart({ ...base, electron, isRoot: true, platform: 'win32' }).args).toEqual(['/repo']);
  });

  it('tells an Electron that aborted at launch from one that ran and ended', () => {
    const fatal =
      '[9:1127/1:FATAL:setuid_sandbox_host.cc(163)] The SUID sandbox helper binary was found, but is not configured correctly.';
    expect(launchAbortReason(fatal, { code: 1, signal: 'SIGTRAP' }, 300)).toMatch(/chrome-sandbox/);
    expect(launchAbortReason('', { code: 1, signal: 'SIGTRAP' }, 300)).toMatch(/ended by SIGTRAP/);
    expect(launchAbortReason('Missing X server or $DISPLAY', { code: 1, signal: null }, 300)).toMatch(
      /no display/,
    );
    // a normal quit, a crash long after the window was up, an error of the app's own
    expect(launchAbortReason('', { code: 0, signal: null }, 300)).toBeNull();
    expect(launchAbortReason('', { code: 1, signal: 'SIGSEGV' }, 3_600_000)).toBeNull();
    expect(launchAbortReason('TypeError: x', { code: 1, signal: null }, 300)).toBeNull();
  });

  it('after an abort: Electron again with --no-sandbox on Linux, else headless', () => {
    const first = planStart({ ...base, electron });
    const retry = planAfterAbort({ ...base, electron }, first, 'why');
    expect(retry).toMatchObject({ mode: 'electron', args: ['/repo', '--no-sandbox'], builds: [] });
    expect(retry.notice).toMatch(/aborted at launch \(why\); trying again with --no-sandbox/);
    const headless = planAfterAbort({ ...base, electron }, retry, 'why');
    expect(headless.mode).toBe('headless');
    expect(headless.notice).toMatch(/aborted at launch \(why\); running headless instead/);
    expect(planAfterAbort({ ...base, electron, platform: 'darwin' }, first, 'why').mode).toBe('headless');
  });

  it('reads the UI address from the ready line', () => {
    expect(uiUrlFromReadyLine('sandboard ready {"http":"http://127.0.0.1:8080"}')).toBe(
      'http://127.0.0.1:8080/',
    );
    expect(uiUrlFromReadyLine('something else')).toBeNull();
  });

  it('really runs headless: explains on stderr, prints the UI address, and stops on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'scripts', 'start.js'),
        '--no-build',
        '--data-dir',
        tempDir(),
        '--http-port',
        '0',
        '--mqtt-port',
        '0',
        '--analytics-port',
        '0',
      ],
      { env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: tempDir() }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const m = /Open its UI in your browser: (\S+)/.exec(line);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`start.js exited (${code}): ${stderr}`)));
    });
    expect(stderr).toMatch(/no Electron binary .*ELECTRON_OVERRIDE_DIST_PATH/);
    expect(stderr).toMatch(/running headless/);
    expect((await fetch(new URL('/v3/api-docs', url))).status).toBe(200);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });
});

/**
 * A stand-in Electron binary (Node): it logs its arguments and each SIGINT; without --no-sandbox (or
 * always, with `alwaysAbort`) it aborts as Chromium does when its setuid sandbox helper is not set up;
 * else it "shows its window" and, like Electron, quits gracefully (one second) on a first SIGINT and
 * dies of a second.
 */
function standInElectron(alwaysAbort: boolean): { dir: string; log: string } {
  const dir = tempDir();
  const log = join(dir, 'log.txt');
  writeFileSync(log, '');
  const script = `#!${process.execPath}
const fs = require('node:fs');
const log = (line) => fs.appendFileSync(${JSON.stringify(log)}, line + '\\n');
log(JSON.stringify(process.argv.slice(2)));
if (${alwaysAbort} || !process.argv.includes('--no-sandbox')) {
  process.stderr.write("[4242:1127/170000.000000:FATAL:setuid_sandbox_host.cc(163)] The SUID sandbox helper binary was found, but is not configured correctly. Rather than run without sandboxing I'm aborting now.\\n");
  process.kill(process.pid, 'SIGTRAP');
}
process.once('SIGINT', () => {
  log('SIGINT');
  process.on('SIGINT', () => { log('SIGINT'); process.kill(process.pid, 'SIGKILL'); });
  setTimeout(() => { log('quit'); process.exit(0); }, 1000);
});
// only now: a Ctrl+C sent as soon as the window shows must find the handler (a loaded machine may
// deschedule this process between the two)
console.log('window shown');
setInterval(() => {}, 1000);
`;
  writeFileSync(join(dir, 'electron'), script, { mode: 0o755 });
  return { dir, log };
}

/** scripts/start.js with the stand-in, in a process group of its own (as a terminal runs a command). */
function startWith(electronDir: string): { child: ReturnType<typeof spawn>; stderr: () => string } {
  const args = ['--no-build', '--data-dir', tempDir(), '--http-port', '0', '--mqtt-port', '0'];
  const child = spawn(
    process.execPath,
    [join(ROOT, 'scripts', 'start.js'), ...args, '--analytics-port', '0'],
    {
      env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: electronDir, DISPLAY: ':0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return { child, stderr: () => stderr };
}

function firstLine(child: ReturnType<typeof spawn>, pattern: RegExp, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => pattern.test(line) && resolve(line));
    child.once('exit', (code) => reject(new Error(`start.js exited (${code}): ${stderr()}`)));
  });
}

const asRoot = process.getuid?.() === 0;

describe.skipIf(process.platform !== 'linux')('npm start with an Electron that aborts at launch', () => {
  it('retries with --no-sandbox (or starts with it as root), and Ctrl+C reaches the app once', async () => {
    const electron = standInElectron(false);
    const run = startWith(electron.dir);
    await firstLine(run.child, /^window shown$/, run.stderr);
    const launches = readFileSync(electron.log, 'utf8').trim().split('\n');
    if (asRoot) {
      expect(run.stderr()).toMatch(
        /running as root, where Chromium's sandbox cannot run; starting Electron with --no-sandbox/,
      );
      expect(launches).toHaveLength(1);
    } else {
      expect(run.stderr()).toMatch(
        /Electron aborted at launch \(Chromium's sandbox helper \(chrome-sandbox\) is not set up\); trying again with --no-sandbox/,
      );
      expect(launches).toHaveLength(2);
    }
    expect(JSON.parse(launches.at(-1)!)).toContain('--no-sandbox');

    // Ctrl+C in a terminal: SIGINT to the whole foreground process group
    process.kill(-run.child.pid!, 'SIGINT');
    const [code] = (await once(run.child, 'exit')) as [number | null];
    expect(code, run.stderr()).toBe(0);
    expect(readFileSync(electron.log, 'utf8').trim().split('\n').slice(launches.length)).toEqual([
      'SIGINT',
      'quit',
    ]);
  });

  it('runs the core headless when Electron aborts even without the sandbox, saying why', async () => {
    const electron = standInElectron(true);
    const run = startWith(electron.dir);
    const line = await firstLine(run.child, /Open its UI in your browser: /, run.stderr);
    expect(run.stderr()).toMatch(
      /Electron aborted at launch \(Chromium's sandbox helper \(chrome-sandbox\) is not set up\); running headless instead/,
    );
    const url = /browser: (\S+)/.exec(line)![1]!;
    expect((await fetch(new URL('/v3/api-docs', url))).status).toBe(200);
    process.kill(-run.child.pid!, 'SIGINT');
    const [code] = (await once(run.child, 'exit')) as [number | null];
    expect(code, run.stderr()).toBe(0);
  });
});
