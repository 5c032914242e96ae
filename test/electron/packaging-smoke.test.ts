// Packaging smoke test: the desktop app packaged as a user gets it (`electron-builder --linux dir`), with
// a stand-in Electron binary that fails loudly if anything runs it (the real one cannot be downloaded
// here). Then the packaged core is started with plain Node from the built app.asar's contents, as
// Electron's utility process would run it: it serves the UI, runs a QuickJS script and a report worker,
// and stops cleanly.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FuseState, FuseV1Options, getCurrentFuseWire } from '@electron/fuses';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { lockDataDir } from '../../main/store/data-dir-lock.ts';
import { readyLine } from '../helpers/serve-process.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);
const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';

const scratchDirs: string[] = [];
/** A fresh directory, removed after the last test of this file (tempDir is per test). */
function scratch(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}

/** Runs a Node script of the project (a build step); throws with its output when it fails. */
function runNode(args: string[]): void {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env: process.env });
  if (result.status !== 0)
    throw new Error(`node ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
}

/**
 * A folder electron-builder takes as Electron's distribution: an `electron` executable that says it
 * must never run and leaves a mark if it does, followed by a fuse wire so the afterPack hook can flip it.
 */
function standInElectronDist(mark: string): string {
  const dir = scratch('sandboard-electron-dist-');
  const script =
    '#!/bin/sh\n' +
    `echo ran > '${mark}'\n` +
    'echo "stand-in Electron binary: nothing may run it (packaging smoke test)" >&2\n' +
    'exit 99\n' +
    '# the fuse wire electron-builder flips: ';
  const wire = Buffer.from([1, 9, ...Array<number>(9).fill(FuseState.ENABLE)]);
  writeFileSync(
    join(dir, 'electron'),
    Buffer.concat([Buffer.from(script), Buffer.from(FUSE_SENTINEL), wire, Buffer.from('\n')]),
    { mode: 0o755 },
  );
  return dir;
}

interface Packaged {
  appOutDir: string;
  /** app.asar extracted */
  app: string;
  mark: string;
}

async function packageApp(): Promise<Packaged> {
  if (!existsSync(join(ROOT, 'renderer', 'dist', 'index.html')))
    runNode([
      join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '--config',
      'renderer/vite.config.ts',
    ]);
  runNode(['scripts/build-core.ts']);
  runNode(['scripts/build-electron.ts']);
  const mark = join(scratch('sandboard-mark-'), 'stand-in-ran');
  const out = scratch('sandboard-installers-');
  const electronVersion = (require('electron/package.json') as { version: string }).version;
  runNode([
    require.resolve('electron-builder/cli.js'),
    '--linux',
    'dir',
    '--config',
    'build/electron-builder.yml',
    '--publish',
    'never',
    `-c.electronDist=${standInElectronDist(mark)}`,
    `-c.electronVersion=${electronVersion}`,
    `-c.directories.output=${out}`,
  ]);
  const appOutDir = join(out, 'linux-unpacked');
  const app = scratch('sandboard-asar-');
  const asar = require('@electron/asar') as { extractAll(archive: string, dest: string): void };
  asar.extractAll(join(appOutDir, 'resources', 'app.asar'), app);
  return { appOutDir, app, mark };
}

async function json<T>(res: Response | Promise<Response>): Promise<T> {
  const r = await res;
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${r.url}: ${r.status} ${text}`);
  return JSON.parse(text) as T;
}

describe.skipIf(process.platform !== 'linux')('the packaged desktop app', { timeout: 120_000 }, () => {
  let packaged: Packaged;
  beforeAll(async () => {
    packaged = await packageApp();
  }, 600_000);
  afterAll(() => {
    for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
  });

  it('is built without running Electron, with its fuses flipped', async () => {
    expect(existsSync(packaged.mark), 'the stand-in Electron binary was run').toBe(false);
    const executable = join(packaged.appOutDir, 'sandboard');
    const run = spawnSync(executable, [], { encoding: 'utf8' });
    expect(run.status).toBe(99); // the stand-in, refusing loudly
    expect(run.stderr).toContain('nothing may run it');
    const wire = await getCurrentFuseWire(executable);
    expect(wire[FuseV1Options.RunAsNode]).toBe(FuseState.DISABLE);
    expect(wire[FuseV1Options.OnlyLoadAppFromAsar]).toBe(FuseState.ENABLE);
  });

  it('packs what runs and not the UI libraries Vite already bundled', () => {
    const { app } = packaged;
    for (const runs of ['fastify', 'aedes', 'sql.js/dist/sql-wasm.wasm', 'quickjs-emscripten-core', 'mqtt'])
      expect(existsSync(join(app, 'node_modules', runs)), runs).toBe(true);
    for (const uiOnly of ['react', 'react-dom', '@mantine', 'recharts', '@codemirror', '@tanstack'])
      expect(existsSync(join(app, 'node_modules', uiOnly)), uiOnly).toBe(false);
    expect(existsSync(join(app, 'node_modules', 'sql.js', 'dist', 'sql-asm-debug.js'))).toBe(false);
    // the window icon, where dist/electron/main/paths.js looks for it
    expect(
      statSync(join(app, 'dist', 'electron', 'main', '..', '..', '..', 'build', 'icon.png')).size,
    ).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'))).toMatchObject({
      desktopName: 'sandboard.desktop',
      main: 'dist/electron/main/index.js',
    });
  });

  it('starts the packaged core with Node: UI, a QuickJS script, a report worker, a clean stop', async () => {
    const dataDir = tempDir();
    const ports = ['--http-port', '0', '--mqtt-port', '0', '--analytics-port', '0'];
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const child = spawn(
      process.execPath,
      [join(packaged.app, 'dist', 'electron', 'core-entry.js'), 'serve', '--data-dir', dataDir, ...ports],
      { cwd: tempDir(), env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const urls = await readyLine(child, () => stderr);

    // the UI and its scripts
    const page = await fetch(urls.http);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html.slice(0, 500)).toBeDefined();
    const asset = await fetch(new URL(script!, urls.http));
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);

    const { token } = await json<{ token: string }>(
      fetch(`${urls.http}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'tenant@thingsboard.org', password: 'tenant' }),
      }),
    );
    const api = (path: string, body: unknown, base = urls.http) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-authorization': `Bearer ${token}` },
        body: JSON.stringify(body),
      });

    // a QuickJS script (the WASM loads from the packed node_modules)
    const tested = await json<{ output: string; error: string }>(
      api('/api/ruleChain/testScript?scriptLang=JS', {
        argNames: ['msg', 'metadata', 'msgType'],
        msg: '{"temperature": 25}',
        metadata: {},
        msgType: 'POST_TELEMETRY_REQUEST',
        script: 'return {msg: {f: msg.temperature * 9 / 5 + 32}, metadata: metadata, msgType: msgType};',
        scriptType: 'update',
      }),
    );
    expect(tested.error).toBe('');
    expect(JSON.parse(tested.output)).toMatchObject({ msg: { f: 77 } });

    // a report, built by a report worker
    const device = await json<{ id: { id: string } }>(
      api('/api/device', { name: 'Packaged meter', type: 'meter' }),
    );
    const t0 = Date.UTC(2024, 0, 1);
    const saved = await api(`/api/plugins/telemetry/DEVICE/${device.id.id}/timeseries/ANY`, [
      { ts: t0, values: { kwh: 1.5 } },
      { ts: t0 + 3_600_000, values: { kwh: 2 } },
    ]);
    expect(saved.status).toBe(200);
    const view = await json<{ id: { id: string } }>(
      api('/api/tableView', {
        name: 'Energy',
        config: {
          entities: { deviceIds: [device.id.id] },
          dimensions: [],
          date: { grouping: 'FULL_DATE' },
          measures: [{ key: 'kwh', aggregation: 'SUM', label: 'energy' }],
          filters: [],
          timeRange: { type: 'FIXED', startTs: t0, endTs: t0 + 86_400_000 },
        },
      }),
    );
    const report = await json<{ dataTable: Record<string, unknown>[] }>(
      fetch(`${urls.analytics}/apiAnalytics/publicApi/buildReport?jwt=${encodeURIComponent(token)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ viewConfigId: view.id.id }),
      }),
    );
    expect(report.dataTable).toEqual([{ Date: String(t0), energy: 3.5 }]);

    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('SIGTERM: stopping (flushing and writing a snapshot)');
    (await lockDataDir(dataDir)).release();
  });

  it('ends when the app quits during start-up, before and after the core has loaded', async () => {
    // What Electron's utility process adds, played by a preload: process.parentPort and its stop message
    // (sent at once with STOP_AT_ONCE, else on SIGUSR2).
    const preload = join(scratch('sandboard-preload-'), 'parent-port.mjs');
    writeFileSync(
      preload,
      `import { EventEmitter } from 'node:events';
const port = new EventEmitter();
process.parentPort = port;
const stop = () => port.emit('message', { data: { type: 'sandboard:stop' } });
if (process.env.STOP_AT_ONCE) setImmediate(stop);
process.on('SIGUSR2', stop);
`,
    );
    for (const when of ['at once', 'while starting'] as const) {
      const dataDir = tempDir();
      const ports = ['--http-port', '0', '--mqtt-port', '0', '--analytics-port', '0'];
      const env: NodeJS.ProcessEnv = { ...process.env, STOP_AT_ONCE: when === 'at once' ? '1' : '' };
      delete env.NODE_OPTIONS;
      const entry = join(packaged.app, 'dist', 'electron', 'core-entry.js');
      const child = spawn(
        process.execPath,
        ['--import', preload, entry, 'serve', '--data-dir', dataDir, ...ports],
        { env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      onTestFinished(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      });
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
      if (when === 'while starting') {
        // the store is being opened: the core is in its start-up
        await vi.waitFor(() => expect(readdirSync(dataDir)).not.toEqual([]), {
          timeout: 60_000,
          interval: 10,
        });
        child.kill('SIGUSR2');
      }
      const [code, signal] = await exited;
      expect([code, signal], `${when}: ${stderr}`).toEqual([0, null]);
      if (when === 'at once') expect(stdout, when).toBe('');
      else if (!stdout.includes('sandboard ready')) expect(stderr).toContain('stopping once started');
      (await lockDataDir(dataDir)).release();
    }
  });
});
