// Electron smoke test: launches the built desktop app, waits for its window, and sees the platform core
// ready: the window shows the core's http origin and the login page. Skipped, with the reason, where no
// Electron binary is installed (npm cannot download it on every machine).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron as electron, expect, test } from '@playwright/test';
import { locateElectronBinary } from '../scripts/start-plan.ts';
import type { SandboardBridge } from '../shared/desktop-bridge.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Builds the core and the shell unless they are there already (`npm start` / `npm run dist` build them too). */
function ensureBuilt(): void {
  for (const [script, output] of [
    ['build:core', 'dist/core/main/cli.js'],
    ['build:electron', 'dist/electron/main/index.js'],
  ] as const) {
    if (existsSync(join(root, output))) continue;
    const npm = process.env.npm_execpath;
    const result = npm
      ? spawnSync(process.execPath, [npm, 'run', script], { cwd: root, stdio: 'inherit' })
      : spawnSync('npm', ['run', script], {
          cwd: root,
          stdio: 'inherit',
          shell: process.platform === 'win32',
        });
    if (result.status !== 0) throw new Error(`npm run ${script} failed`);
  }
}

test('the desktop app starts its core and shows the login page', async () => {
  const lookup = locateElectronBinary(root);
  test.skip(
    lookup.path === null,
    `Electron binary not installed (cannot be downloaded on this machine): ${lookup.checked}`,
  );
  test.setTimeout(120_000);
  ensureBuilt();

  const userData = mkdtempSync(join(tmpdir(), 'sandboard-electron-'));
  const app = await electron.launch({
    executablePath: lookup.path!,
    args: [root],
    cwd: root,
    env: { ...process.env, SANDBOARD_USER_DATA_DIR: userData },
    timeout: 60_000,
  });
  try {
    const page = await app.firstWindow();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\//, { timeout: 60_000 });

    const status = await page.evaluate(() =>
      (globalThis as unknown as { sandboard: SandboardBridge }).sandboard.coreStatus(),
    );
    expect(status.state).toBe('ready');
    expect(new URL(page.url()).origin).toBe(new URL(status.urls!.http).origin);
    expect(status.urls!.dataDir).toBe(join(userData, 'data'));

    await expect(page.locator('input[type="password"]')).toBeVisible({ timeout: 30_000 });
    expect(await page.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
  } finally {
    await app.close();
    rmSync(userData, { recursive: true, force: true });
  }
});
