// Which Chromium the e2e stage drives: SANDBOARD_CHROMIUM, else the system's Chromium or Chrome (the
// well-known places on Linux, macOS and Windows), else Playwright's own browser if one was installed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export interface FoundBrowser {
  /** the executable, or null when none was found */
  path: string | null;
  /** where it came from, or (none found) the one message saying how to get one */
  detail: string;
}

/** The well-known places of Chromium and Chrome (and Edge, a Chromium) on `platform`. */
export function systemBrowserPaths(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  if (platform === 'darwin') {
    return [
      '/Applications/Chromium.app/Contents/MacOS/Chromium',
      '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
      join(env.HOME ?? '/', 'Applications/Chromium.app/Contents/MacOS/Chromium'),
      join(env.HOME ?? '/', 'Applications/Google Chrome.app/Contents/MacOS/Google Chrome'),
    ];
  }
  if (platform === 'win32') {
    const roots = [env.PROGRAMFILES, env['PROGRAMFILES(X86)'], env.LOCALAPPDATA].filter(
      (r): r is string => !!r,
    );
    return roots.flatMap((root) => [
      join(root, 'Chromium', 'Application', 'chrome.exe'),
      join(root, 'Google', 'Chrome', 'Application', 'chrome.exe'),
      join(root, 'Microsoft', 'Edge', 'Application', 'msedge.exe'),
    ]);
  }
  return [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/snap/bin/chromium',
    '/opt/google/chrome/chrome',
  ];
}

const HOW_TO_GET_ONE =
  'The e2e tests need a Chromium or Chrome and found none. Install one from your system ' +
  '(Debian/Ubuntu: sudo apt-get install chromium; macOS: brew install --cask chromium; Windows: install Chrome), ' +
  'or point SANDBOARD_CHROMIUM at a Chromium executable, or let Playwright download its own: npx playwright install chromium.';

function playwrightsOwn(): string | null {
  try {
    const path = chromium.executablePath();
    return path && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

export function findBrowser(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  exists: (path: string) => boolean = existsSync,
  own: () => string | null = playwrightsOwn,
): FoundBrowser {
  const chosen = env.SANDBOARD_CHROMIUM;
  if (chosen) {
    return exists(chosen)
      ? { path: chosen, detail: `SANDBOARD_CHROMIUM (${chosen})` }
      : {
          path: null,
          detail: `SANDBOARD_CHROMIUM points at ${chosen}, which does not exist. ${HOW_TO_GET_ONE}`,
        };
  }
  const system = systemBrowserPaths(platform, env).find((p) => exists(p));
  if (system) return { path: system, detail: `the system's browser (${system})` };
  const bundled = own();
  if (bundled) return { path: bundled, detail: `Playwright's own Chromium (${bundled})` };
  return { path: null, detail: HOW_TO_GET_ONE };
}
