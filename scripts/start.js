#!/usr/bin/env node
// npm start: builds what the desktop app needs and launches it in Electron. Where the Electron binary
// is missing (it cannot be downloaded everywhere), says so on stderr and runs the platform core
// headless (`sandboard serve`), printing the UI's address.
//   npm start                      build, then launch
//   npm start -- --no-build        launch what was built last
//   npm start -- --http-port 0     (headless) arguments for `sandboard serve`
// It stops what it started, gracefully, on Ctrl+C, SIGTERM or SIGHUP (sent to it or to npm), and when
// whoever started it goes away (main/stop-triggers.ts). The app runs in a process group of its own, so
// that Ctrl+C reaches it once, from here: Electron quits gracefully on a first SIGINT and dies of a second.
// An Electron that aborts at launch is retried with --no-sandbox (Linux), else the core runs headless.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { requireNodeRuntime } from './node-runtime.js';

// Before anything TypeScript is loaded: on an older Node, say what to do instead of a stack trace.
requireNodeRuntime('npm start');
const { CORE_ENV, launchAbortReason, locateElectronBinary, planAfterAbort, planStart, uiUrlFromReadyLine } =
  await import('./start-plan.ts');
const { describeStopCause, signalForChild, watchStopTriggers } = await import('../main/stop-triggers.ts');

/** A child asked to stop that is still running after this long is killed. */
const STOP_DEADLINE_MS = 60_000;

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const planInput = {
  root,
  electron: locateElectronBinary(root),
  scripts: pkg.scripts ?? {},
  build: !argv.includes('--no-build'),
  extraArgs: argv.filter((a) => a !== '--no-build'),
  nodePath: process.execPath,
  isRoot: process.getuid?.() === 0,
};
let plan = planStart(planInput);

// A closed terminal or pipe must not crash this process before its child has stopped.
process.stdout.on('error', () => {});
process.stderr.on('error', () => {});

/** The child running now (a build, then the app), and why we are stopping, once we are. */
let current = null;
let stopCause = null;

watchStopTriggers((cause) => {
  if (stopCause) return; // asked once: a second Ctrl+C would kill Electron in the middle of its quit
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
  if (current.exitCode === null && current.signalCode === null) current.kill(signalForChild(cause));
});

/** Resolves how a child ended: its exit code (1 when a signal ended it), and the signal. */
function runChild(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, ...options });
    current = child;
    child.once('error', (err) => {
      process.stderr.write(`sandboard: could not run ${command}: ${err.message}\n`);
      resolve({ code: 1, signal: null });
    });
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), signal }));
  });
}

async function run(command, args, options) {
  return (await runChild(command, args, options)).code;
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

// the core's malloc settings (a value the user set wins), for the headless core and Electron's processes
const env = { ...CORE_ENV, ...process.env };
delete env.ELECTRON_RUN_AS_NODE; // would turn Electron into plain Node

/** How much of Electron's first stderr is kept to tell an abort at launch. */
const STDERR_KEPT = 16_000;

for (;;) {
  if (stopCause) process.exit(1);
  const startedAt = Date.now();
  const exited = runChild(plan.command, plan.args, {
    env,
    stdio: ['ignore', plan.mode === 'headless' ? 'pipe' : 'inherit', 'pipe'],
    // its own process group (POSIX): a terminal's Ctrl+C reaches this process only, which passes it on once
    detached: process.platform !== 'win32',
  });
  let stderr = '';
  current.stderr.on('data', (chunk) => {
    process.stderr.write(chunk);
    if (stderr.length < STDERR_KEPT) stderr += chunk.toString().slice(0, STDERR_KEPT);
  });
  if (plan.mode === 'headless') {
    createInterface({ input: current.stdout }).on('line', (line) => {
      process.stdout.write(`${line}\n`);
      const url = uiUrlFromReadyLine(line);
      if (url) process.stdout.write(`Sandboard is running headless. Open its UI in your browser: ${url}\n`);
    });
  }
  const ended = await exited;
  const abort =
    plan.mode === 'electron' && !stopCause ? launchAbortReason(stderr, ended, Date.now() - startedAt) : null;
  if (!abort) process.exit(ended.code);
  plan = planAfterAbort(planInput, plan, abort);
  process.stderr.write(plan.notice);
}
