import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test as base, expect, type Page } from '@playwright/test';
import { startSandboard, type SandboardServer } from './sandboard-server.ts';

export const TENANT = { username: 'tenant@thingsboard.org', password: 'tenant' };

export const SCREENSHOT_DIR = fileURLToPath(new URL('../../artifacts/screenshots/', import.meta.url));
/** The README's screenshots: refreshed from a run with SANDBOARD_DOCS_SCREENSHOTS=1 (those it shows only). */
const DOCS_SCREENSHOT_DIR = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));

/** A small REST client for what a test does "from outside" (a device, a script with an API key). */
export class RestClient {
  readonly base: string;
  constructor(base: string) {
    this.base = base;
  }

  async login(username = TENANT.username, password = TENANT.password): Promise<string> {
    const res = await fetch(`${this.base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { token: string }).token;
  }

  request(path: string, init: { method?: string; json?: unknown; auth?: string } = {}): Promise<Response> {
    const headers: Record<string, string> = {};
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    if (init.auth) headers['x-authorization'] = init.auth;
    return fetch(`${this.base}${path}`, {
      method: init.method ?? 'GET',
      headers,
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
  }

  /** A new device by name: its id and access token (for MQTT or the device HTTP API). */
  async newDevice(jwt: string, name: string): Promise<{ id: string; token: string }> {
    const auth = `Bearer ${jwt}`;
    const res = await this.request('/api/device', { method: 'POST', json: { name }, auth });
    expect(res.status, await res.clone().text()).toBe(200);
    const id = ((await res.json()) as { id: { id: string } }).id.id;
    const credentials = await this.request(`/api/device/${id}/credentials`, { auth });
    return { id, token: ((await credentials.json()) as { credentialsId: string }).credentialsId };
  }

  async postTelemetry(jwt: string, deviceId: string, body: unknown): Promise<void> {
    const res = await this.request(`/api/plugins/telemetry/DEVICE/${deviceId}/timeseries/ANY`, {
      method: 'POST',
      json: body,
      auth: `Bearer ${jwt}`,
    });
    expect(res.status, await res.clone().text()).toBe(200);
  }
}

interface Fixtures {
  /** extra environment for `sandboard serve`, e.g. a short JWT_TOKEN_EXPIRATION_TIME */
  sandboardEnv: Record<string, string>;
  sandboard: SandboardServer;
  rest: RestClient;
}

/** Every test gets its own `sandboard serve` (fresh data dir, free ports); the page's baseURL is it. */
export const test = base.extend<Fixtures>({
  sandboardEnv: [{}, { option: true }],
  sandboard: async ({ sandboardEnv }, use, testInfo) => {
    const server = await startSandboard(sandboardEnv);
    try {
      await use(server);
    } finally {
      if (testInfo.status !== testInfo.expectedStatus)
        await testInfo.attach('sandboard stderr', { body: server.stderr(), contentType: 'text/plain' });
      await server.stop();
    }
  },
  baseURL: async ({ sandboard }, use) => use(sandboard.urls.http),
  rest: async ({ sandboard }, use) => use(new RestClient(sandboard.urls.http)),
});

export { expect };

/** Waits until the app has rendered the named page (see PageReady in the renderer). */
export async function waitForPage(page: Page, id: string): Promise<void> {
  await expect(page.locator(`body[data-app-ready="true"][data-page="${id}"]`)).toBeAttached({
    timeout: 20_000,
  });
}

/** Opens the app and logs in through the login form. */
export async function logIn(page: Page, user = TENANT): Promise<void> {
  await page.goto('/');
  await waitForPage(page, 'login');
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(user.username);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await waitForPage(page, 'overview');
}

/** Goes to a page through the navigation, as a user would. */
export async function openFromNav(page: Page, id: string): Promise<void> {
  await page.getByTestId(`nav-${id}`).click();
  await waitForPage(page, id);
}

/**
 * Saves a full-page screenshot under artifacts/screenshots/ (gitignored); with SANDBOARD_DOCS_SCREENSHOTS=1
 * it also replaces the same-named one in docs/screenshots/ when the README shows it.
 */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // from the top: a scrolled page draws its fixed header in the middle of a full-page shot
  await page.evaluate(() => window.scrollTo(0, 0));
  const path = `${SCREENSHOT_DIR}${name}.png`;
  await page.screenshot({ path, fullPage: true, animations: 'disabled' });
  const docs = `${DOCS_SCREENSHOT_DIR}${name}.png`;
  if (process.env.SANDBOARD_DOCS_SCREENSHOTS === '1' && existsSync(docs)) copyFileSync(path, docs);
}

/** Saves the page in the light and the dark theme (the app follows the system's while set to auto). */
export async function saveScreenshotsInBothThemes(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await saveScreenshot(page, `${name}-light`);
  await page.emulateMedia({ colorScheme: 'dark' });
  await saveScreenshot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Script errors and Content-Security-Policy violations (Chromium reports both on the console). */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  return problems;
}
