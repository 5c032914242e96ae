#!/usr/bin/env node
// npm start: builds what the desktop app needs and launches it in Electron. Where the Electron binary
// is missing (it cannot be downloaded everywhere), says so on stderr and runs the platform core
// headless (`sandboard serve`), printing the UI's address.
//   npm start                      build, then launch
//   npm start -- --no-build        launch what was built last
//   npm start -- --http-port 0     (headless) arguments for `sandboard serve`
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { requireNodeRuntime } from './node-runtime.js';

// Before anything TypeScript is loaded: on an older Node, say what to do instead of a stack trace.
requireNodeRuntime('npm start');
const { locateElectronBinary, planStart, uiUrlFromReadyLine } = await import('./start-plan.ts');

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

if (plan.notice) process.stderr.write(plan.notice);

for (const script of plan.builds) {
  // Under npm, npm_execpath is npm's own script: run it with this Node, no shell needed.
  const npm = process.env.npm_execpath;
  const result = npm
    ? spawnSync(process.execPath, [npm, 'run', script], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', script], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) {
    process.stderr.write(`sandboard: npm run ${script} failed; not starting.\n`);
    process.exit(result.status ?? 1);
  }
}

const env = { ...process.env };
delete env.ELECTRON_RUN_AS_NODE; // would turn Electron into plain Node
const child = spawn(plan.command, plan.args, {
  cwd: root,
  env,
  stdio: plan.mode === 'headless' ? ['inherit', 'pipe', 'inherit'] : 'inherit',
});

if (plan.mode === 'headless') {
  createInterface({ input: child.stdout }).on('line', (line) => {
    process.stdout.write(`${line}\n`);
    const url = uiUrlFromReadyLine(line);
    if (url) process.stdout.write(`Sandboard is running headless. Open its UI in your browser: ${url}\n`);
  });
}

// Ctrl+C reaches the child too (same process group); a signal sent to this process alone is passed on.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}
child.on('error', (err) => {
  process.stderr.write(`sandboard: could not run ${plan.command}: ${err.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
