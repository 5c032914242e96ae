// `npm start` stops everything it started, gracefully, however it is asked to: a signal to the npm
// process (as scripts and IDEs send it), or the program that started it closing its stdin or dying.
// Real processes throughout: npm, scripts/start.js and `sandboard serve` (headless, as on a machine
// without Electron's binary), on a fresh data directory and free ports.
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readyLine, startServe, type ServeUrls } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FREE_PORTS = ['--http-port', '0', '--mqtt-port', '0', '--analytics-port', '0'];
/** util-linux's script(1), which runs a command in a terminal of its own */
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout?.includes('util-linux');

type Script = 'start' | 'serve';

/** `npm start` / `npm run serve` as a user runs it (npm_execpath is npm's own script under npm). */
function npmCommand(script: Script, dataDir: string): [string, string[]] {
  const first = script === 'start' ? ['start', '--', '--no-build'] : ['run', 'serve', '--'];
  const args = [...first, '--data-dir', dataDir, ...FREE_PORTS];
  const npm = process.env.npm_execpath;
  return npm && /npm-cli\.js$/.test(npm) ? [process.execPath, [npm, ...args]] : ['npm', args];
}

/** The environment of `npm start` here: headless even where Electron's binary is installed. */
function startEnv(): NodeJS.ProcessEnv {
  return { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: tempDir('sandboard-no-electron-') };
}

/** Every process below `pid` (ps, as POSIX has it). */
function descendants(pid: number): number[] {
  const ps = spawnSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' });
  const children = new Map<number, number[]>();
  for (const line of ps.stdout.trim().split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    children.set(parent!, [...(children.get(parent!) ?? []), child!]);
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      found.push(c);
      walk(c);
    }
  };
  walk(pid);
  return found;
}

/** The ones of `pids` that still run (an exited process no one reaped yet, a zombie, does not). */
function running(pids: number[]): number[] {
  const ps = spawnSync('ps', ['-o', 'pid=,stat=', '-p', pids.join(',')], { encoding: 'utf8' });
  return ps.stdout
    .trim()
    .split('\n')
    .filter((line) => line.trim() && !line.trim().split(/\s+/)[1]!.startsWith('Z'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** Waits until none of `pids` runs; returns the ones still running after `ms`. */
async function exitOf(pids: number[], ms = 20_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = running(pids);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = running(pids);
  }
  return left;
}

/** Whether a TCP connect to the URL's port is refused (nothing listens there any more). */
function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

async function login(http: string): Promise<string> {
  const res = await fetch(`${http}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'tenant@thingsboard.org', password: 'tenant' }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

async function createDevice(http: string, name: string): Promise<void> {
  const res = await fetch(`${http}/api/device`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-authorization': `Bearer ${await login(http)}` },
    body: JSON.stringify({ name, type: 'thermometer' }),
  });
  expect(res.status).toBe(200);
}

/** After a graceful stop the data directory holds a fresh snapshot, empty journals and no lock. */
function expectGracefullyStopped(dataDir: string): void {
  const files = readdirSync(dataDir);
  expect(files).toContain('store.sqlite');
  expect(files).not.toContain('sandboard.lock');
  const journals = files.filter((f) => /^journal-\d+\.log$/.test(f));
  expect(journals.map((f) => [f, statSync(join(dataDir, f)).size])).toEqual(journals.map((f) => [f, 0]));
}

/** The device is there when Sandboard starts again on the same data directory. */
async function expectDeviceAfterRestart(dataDir: string, name: string): Promise<void> {
  const again = await startServe(['--data-dir', dataDir, ...FREE_PORTS]);
  const res = await fetch(`${again.urls.http}/api/tenant/devices?deviceName=${encodeURIComponent(name)}`, {
    headers: { 'x-authorization': `Bearer ${await login(again.urls.http)}` },
  });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { name: string }).name).toBe(name);
  again.child.kill('SIGTERM');
  await once(again.child, 'exit');
}

interface Running {
  /** the process the test stops: npm, or the program that started npm */
  top: ChildProcess;
  /** it and everything below it */
  tree: number[];
  urls: ServeUrls;
  stderr: () => string;
}

const shellQuote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;

/**
 * Runs `npm start` (or `npm run serve`) and waits for Sandboard's ready line. `parent`: a Node program
 * that runs it; `terminal`: in a terminal of its own (util-linux's script, whose exit closes that terminal).
 */
async function start(
  dataDir: string,
  stdin: 'ignore' | 'pipe',
  via: { parent?: string; terminal?: boolean; script?: Script } = {},
): Promise<Running> {
  const [command, args] = npmCommand(via.script ?? 'start', dataDir);
  const options: SpawnOptions = { cwd: ROOT, env: startEnv(), stdio: [stdin, 'pipe', 'pipe'] };
  const top: ChildProcess = via.parent
    ? spawn(process.execPath, ['-e', via.parent, command, ...args], options)
    : via.terminal
      ? spawn('script', ['-qfec', [command, ...args].map(shellQuote).join(' '), '/dev/null'], options)
      : spawn(command, args, options);
  let tree: number[] = [];
  onTestFinished(() => {
    for (const pid of running([top.pid!, ...tree])) process.kill(pid, 'SIGKILL');
  });
  let stderr = '';
  top.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const urls = await readyLine(top, () => stderr);
  tree = [top.pid!, ...descendants(top.pid!)];
  return { top, tree, urls, stderr: () => stderr };
}

async function expectAllStopped(run: Running, dataDir: string, device: string): Promise<void> {
  expect(await exitOf(run.tree), `still running; stderr:\n${run.stderr()}`).toEqual([]);
  for (const url of [run.urls.http, run.urls.mqtt, run.urls.analytics]) expect(await refused(url)).toBe(true);
  expectGracefullyStopped(dataDir);
  await expectDeviceAfterRestart(dataDir, device);
}

describe.skipIf(process.platform === 'win32')(
  'npm start stops everything it started',
  { timeout: 120_000 },
  () => {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      it(`on ${signal} to the npm process: gracefully, nothing left running or listening, data kept`, async () => {
        const dataDir = tempDir();
        const run = await start(dataDir, 'ignore');
        // npm, start.js (npm's own child: the script runs it with exec) and sandboard serve
        expect(run.tree.length).toBeGreaterThanOrEqual(3);
        await createDevice(run.urls.http, `Thermometer ${signal}`);

        run.top.kill(signal);
        const [code, killedBy] = (await once(run.top, 'exit')) as [number | null, string | null];
        // npm passes SIGINT and SIGTERM on and ends with its script (0); SIGHUP ends npm itself
        if (signal === 'SIGHUP') expect(killedBy).toBe('SIGHUP');
        else expect(code).toBe(0);
        await expectAllStopped(run, dataDir, `Thermometer ${signal}`);
        if (signal === 'SIGHUP')
          expect(run.stderr()).toMatch(/the process that started it \(pid \d+\) exited; stopping/);
        expect(run.stderr()).toMatch(/stopping \(flushing and writing a snapshot\)/);
      });
    }

    it('when the program that started it closes its stdin pipe', async () => {
      const dataDir = tempDir();
      const run = await start(dataDir, 'pipe');
      await createDevice(run.urls.http, 'Thermometer stdin');
      run.top.stdin!.end();
      const [code] = (await once(run.top, 'exit')) as [number | null];
      expect(code).toBe(0);
      await expectAllStopped(run, dataDir, 'Thermometer stdin');
      expect(run.stderr()).toMatch(/its standard input closed; stopping/);
    });

    it('when the program that started it dies (kill -9), leaving npm behind', async () => {
      const dataDir = tempDir();
      // an IDE, say: runs npm start with pipes and passes its output on
      const parent = `
      const { spawn } = require('node:child_process');
      const [command, ...args] = process.argv.slice(1);
      const npm = spawn(command, args, { stdio: ['pipe', 'inherit', 'inherit'] });
      setInterval(() => {}, 1000);`;
      const run = await start(dataDir, 'ignore', { parent });
      await createDevice(run.urls.http, 'Thermometer orphan');
      run.top.kill('SIGKILL');
      await once(run.top, 'exit');
      await expectAllStopped(run, dataDir, 'Thermometer orphan');
    });

    it.skipIf(!hasScript)('when its terminal closes (SIGHUP to all of it at once)', async () => {
      const dataDir = tempDir();
      const run = await start(dataDir, 'pipe', { terminal: true });
      await createDevice(run.urls.http, 'Thermometer terminal');
      run.top.kill('SIGKILL');
      await once(run.top, 'exit');
      await expectAllStopped(run, dataDir, 'Thermometer terminal');
    });
  },
);

describe.skipIf(process.platform === 'win32')(
  'npm run serve stops as npm start does',
  { timeout: 120_000 },
  () => {
    it('on SIGHUP to the npm process (npm dies of it without passing it on)', async () => {
      const dataDir = tempDir();
      const run = await start(dataDir, 'ignore', { script: 'serve' });
      await createDevice(run.urls.http, 'Thermometer serve SIGHUP');
      run.top.kill('SIGHUP');
      const [, killedBy] = (await once(run.top, 'exit')) as [number | null, string | null];
      expect(killedBy).toBe('SIGHUP');
      await expectAllStopped(run, dataDir, 'Thermometer serve SIGHUP');
      expect(run.stderr()).toMatch(/the process that started it \(pid \d+\) exited: stopping/);
    });

    it('when the program that started it closes its stdin pipe', async () => {
      const dataDir = tempDir();
      const run = await start(dataDir, 'pipe', { script: 'serve' });
      await createDevice(run.urls.http, 'Thermometer serve stdin');
      run.top.stdin!.end();
      await once(run.top, 'exit');
      await expectAllStopped(run, dataDir, 'Thermometer serve stdin');
    });
  },
);
