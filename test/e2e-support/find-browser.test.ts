// How the e2e stage finds a browser on a stranger's machine, and what it says when there is none.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findBrowser, systemBrowserPaths } from '../../e2e/support/find-browser.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const none = () => null;

describe('the e2e browser', () => {
  it('takes SANDBOARD_CHROMIUM first, then the system browser, then Playwright’s own', () => {
    const all = () => true;
    expect(findBrowser({ SANDBOARD_CHROMIUM: '/opt/c/chrome' }, 'linux', all, () => '/pw/chrome').path).toBe(
      '/opt/c/chrome',
    );
    expect(findBrowser({}, 'linux', all, () => '/pw/chrome').path).toBe('/usr/bin/chromium');
    const onlyChrome = (p: string) => p === '/usr/bin/google-chrome';
    expect(findBrowser({}, 'linux', onlyChrome, none).path).toBe('/usr/bin/google-chrome');
    expect(
      findBrowser(
        {},
        'linux',
        () => false,
        () => '/pw/chrome',
      ),
    ).toMatchObject({
      path: '/pw/chrome',
      detail: expect.stringContaining("Playwright's own"),
    });
  });

  it('knows where macOS and Windows keep Chrome', () => {
    expect(systemBrowserPaths('darwin', {})).toContain(
      '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    );
    const win = systemBrowserPaths('win32', { PROGRAMFILES: 'C:\\Program Files' });
    expect(win.some((p) => p.includes('Google') && p.endsWith('chrome.exe'))).toBe(true);
  });

  it('says how to get one when there is none, or when SANDBOARD_CHROMIUM points at nothing', () => {
    const missing = findBrowser({}, 'linux', () => false, none);
    expect(missing.path).toBeNull();
    expect(missing.detail).toMatch(
      /apt-get install chromium.*SANDBOARD_CHROMIUM.*npx playwright install chromium/,
    );
    const wrong = findBrowser({ SANDBOARD_CHROMIUM: '/no/such' }, 'linux', (p) => p !== '/no/such', none);
    expect(wrong.path).toBeNull();
    expect(wrong.detail).toMatch(/SANDBOARD_CHROMIUM points at \/no\/such, which does not exist/);
  });

  it('stops the e2e stage before any test with that one message', () => {
    const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
    const run = spawnSync(process.execPath, [cli, 'test', 'e2e/bundle-size.spec.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, SANDBOARD_CHROMIUM: '/no/such/chromium', CI: '' },
      timeout: 120_000,
    });
    expect(run.status).not.toBe(0);
    expect(run.stdout + run.stderr).toContain(
      'SANDBOARD_CHROMIUM points at /no/such/chromium, which does not exist',
    );
    expect(run.stdout + run.stderr).not.toMatch(/passed|✓/);
  });
});
