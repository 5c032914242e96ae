#!/usr/bin/env node
// npm start: builds what the desktop app needs and launches it in Electron. Where the Electron binary
// is missing (it cannot be downloaded everywhere), says so on stderr and runs the platform core
// headless (`sandboard serve`), printing the UI's address.
//   npm start                      build, then launch
//   npm start -- --no-build        launch what was built last
//   npm start -- --http-port 0     (headless) arguments for `sandboard serve`
// It stops what it started, gracefully, on Ctrl+C, SIGTERM or SIGHUP (sent to it or to npm), and when
// whoever started it goes away (main/stop-triggers.ts).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { requireNodeRuntime } from './node-runtime.js';

// Before anything TypeScript is loaded: on an older Node, say what to do instead of a stack trace.
requireNodeRuntime('npm start');
const { locateElectronBinary, planStart, uiUrlFromReadyLine } = await import('./start-plan.ts');
const { describeStopCause, signalForChild, watchStopTriggers } = await import('../main/stop-triggers.ts');

/** A child asked to stop that is still running after this long is killed. */
const STOP_DEADLINE_MS = 60_000;

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const plan = planStart({
  root,
  electron: locateElectronBinary(root),
  scripts: pkg.scripts ?? {},
  build: !argv.includes('--no-build'),
  extraArgs: argv.filter((a) => a !== '--no-build'),
  nodePath: process.execPath,
});

// A closed terminal or pipe must not crash this process before its child has stopped.
process.stdout.on('error', () => {});
process.stderr.on('error', () => {});

/** The child running now (a build, then the app), and why we are stopping, once we are. */
let current = null;
let stopCause = null;

watchStopTriggers((cause) => {
  if (!stopCause) {
    stopCause = cause;
    if (cause.kind !== 'signal' || cause.signal !== 'SIGINT')
      process.stderr.write(`sandboard: ${describeStopCause(cause)}; stopping\n`);
    if (!current) process.exit(1);
    setTimeout(() => {
      process.stderr.write(
        `sandboard: still running ${STOP_DEADLINE_MS / 1000} s after being asked to stop; killing it\n`,
      );
      current?.kill('SIGKILL');
    }, STOP_DEADLINE_MS).unref();
  }
  if (current && current.exitCode === null && current.signalCode === null)
    current.kill(signalForChild(cause));
});

/** Resolves the exit code of a child (1 when a signal ended it). */
function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, ...options });
    current = child;
    child.once('error', (err) => {
      process.stderr.write(`sandboard: could not run ${command}: ${err.message}\n`);
      resolve(1);
    });
    child.once('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

if (plan.notice) process.stderr.write(plan.notice);

for (const script of plan.builds) {
  // Under npm, npm_execpath is npm's own script: run it with this Node, no shell needed.
  const npm = process.env.npm_execpath;
  const code = npm
    ? await run(process.execPath, [npm, 'run', script], { stdio: 'inherit' })
    : await run('npm', ['run', script], { stdio: 'inherit', shell: process.platform === 'win32' });
  if (stopCause) process.exit(1);
  if (code !== 0) {
    process.stderr.write(`sandboard: npm run ${script} failed; not starting.\n`);
    process.exit(code);
  }
}

const env = { ...process.env };
delete env.ELECTRON_RUN_AS_NODE; // would turn Electron into plain Node
const exited = run(plan.command, plan.args, {
  env,
  stdio: plan.mode === 'headless' ? ['ignore', 'pipe', 'inherit'] : ['ignore', 'inherit', 'inherit'],
});

if (plan.mode === 'headless') {
  createInterface({ input: current.stdout }).on('line', (line) => {
    process.stdout.write(`${line}\n`);
    const url = uiUrlFromReadyLine(line);
    if (url) process.stdout.write(`Sandboard is running headless. Open its UI in your browser: ${url}\n`);
  });
}

process.exit(await exited);
