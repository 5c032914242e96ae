// npm run bench:ui — the login page's initial JavaScript (gzipped) and the time from `sandboard serve`'s
// ready line to an interactive login page in headless Debian Chromium.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { initialJs } from '../e2e/support/initial-js.ts';
import { percentile, printBench, printFigures } from './lib/bench-output.ts';
import { startServeChild } from './lib/serve-child.ts';

const RUNS = Number(process.env.BENCH_UI_RUNS ?? 5);
const DIST = fileURLToPath(new URL('../renderer/dist/', import.meta.url));
const CHROMIUM = process.env.SANDBOARD_CHROMIUM ?? '/usr/bin/chromium';

if (!existsSync(join(DIST, 'index.html'))) {
  console.error('renderer/dist is missing: run `npm run build:ui` first');
  process.exit(1);
}
const js = initialJs(DIST);

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const runs: number[] = [];
try {
  for (let i = 0; i < RUNS; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-bench-ui-'));
    const serve = await startServeChild(dataDir);
    try {
      // A fresh context each time: nothing cached, as on a first start.
      const context = await browser.newContext();
      const page = await context.newPage();
      const readyAt = performance.now();
      await page.goto(serve.urls.http);
      await page.locator('body[data-app-ready="true"][data-page="login"]').waitFor({ state: 'attached' });
      await page.getByRole('button', { name: 'Log in' }).waitFor({ state: 'visible' });
      runs.push(performance.now() - readyAt);
      await context.close();
    } finally {
      await serve.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
} finally {
  await browser.close();
}

const loginInteractiveMs = percentile(runs, 50);
const initialJsGzKB = js.gzipBytes / 1024;
printFigures({
  [`login page initial JS, ${js.files.length} files (target <= 400)`]: [initialJsGzKB, 'KB gzipped'],
  [`ready line to interactive login page, median of ${RUNS} (target <= 1500)`]: [loginInteractiveMs, 'ms'],
  'slowest run': [Math.max(...runs), 'ms'],
});
printBench({ name: 'ui', initialJsGzKB, loginInteractiveMs });
