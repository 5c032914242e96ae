import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { setUpElectron, setupLine, type InstallerRun } from '../../scripts/electron-setup.ts';
import { fakeElectronProject } from '../helpers/electron-package.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const FAILED_FETCH: InstallerRun = {
  status: 1,
  stderr:
    'TypeError: fetch failed\n    at node:internal/deps/undici/undici:13510:13\n    at async x (y.js:1:1)\n',
  timedOut: false,
};

describe('npm install: Electron for the desktop app', () => {
  it('leaves an installed binary alone and says nothing', async () => {
    const root = fakeElectronProject({ pathTxt: 'electron', binary: true });
    const runInstaller = vi.fn();
    const result = await setUpElectron({ root, env: {}, runInstaller });
    expect(result).toEqual({
      state: 'present',
      path: join(root, 'node_modules', 'electron', 'dist', 'electron'),
    });
    expect(runInstaller).not.toHaveBeenCalled();
    expect(setupLine(result)).toBeNull();
  });

  it("downloads a missing binary with Electron's own installer, and says npm start opens the app", async () => {
    const root = fakeElectronProject({});
    const electron = join(root, 'node_modules', 'electron');
    const result = await setUpElectron({
      root,
      env: {},
      runInstaller: async (installer) => {
        expect(installer).toBe(join(electron, 'install.js'));
        writeFileSync(join(electron, 'dist', 'electron'), '');
        writeFileSync(join(electron, 'path.txt'), 'electron');
        return { status: 0, stderr: '', timedOut: false };
      },
    });
    expect(result).toEqual({ state: 'downloaded', path: join(electron, 'dist', 'electron') });
    expect(setupLine(result)).toBe(
      "sandboard: Electron's binary is installed: npm start opens the desktop app.\n",
    );
  });

  it('says in one line, with the download error and not its stack, that the app will run headless', async () => {
    const root = fakeElectronProject({});
    const line = setupLine(await setUpElectron({ root, env: {}, runInstaller: async () => FAILED_FETCH }));
    expect(line).toBe(
      'sandboard: no Electron binary (its download failed: TypeError: fetch failed): npm start will run ' +
        'Sandboard headless, with its UI in your browser (npm install tries the download again).\n',
    );
    const timedOut = await setUpElectron({
      root,
      env: {},
      runInstaller: async () => ({ status: null, stderr: '', timedOut: true }),
    });
    expect(setupLine(timedOut)).toMatch(
      /^sandboard: no Electron binary \(its download failed: no answer within 10 minutes\)/,
    );
  });

  it('does not try when ELECTRON_SKIP_BINARY_DOWNLOAD is set, or when the electron package is missing', async () => {
    const runInstaller = vi.fn();
    const skipped = await setUpElectron({
      root: fakeElectronProject({}),
      env: { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
      runInstaller,
    });
    expect(setupLine(skipped)).toMatch(
      /no Electron binary \(ELECTRON_SKIP_BINARY_DOWNLOAD is set\): npm start will run Sandboard headless/,
    );
    const bare = tempDir();
    mkdirSync(join(bare, 'node_modules'));
    writeFileSync(join(bare, 'package.json'), '{}');
    const missing = await setUpElectron({ root: bare, env: {}, runInstaller });
    expect(missing).toEqual({ state: 'headless', reason: 'the electron package is not installed' });
    expect(runInstaller).not.toHaveBeenCalled();
  });
});
