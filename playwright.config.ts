import { defineConfig } from '@playwright/test';
import { findBrowser } from './e2e/support/find-browser.ts';

/** SANDBOARD_CHROMIUM, else the system's Chromium or Chrome, else Playwright's own (globalSetup stops without one). */
const browser = findBrowser();

export default defineConfig({
  testDir: 'e2e',
  globalSetup: './e2e/support/global-setup.ts',
  outputDir: 'artifacts/test-results',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  reporter: 'list',
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1360, height: 900 },
    actionTimeout: 10_000,
    navigationTimeout: 20_000,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: browser.path ?? undefined,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
