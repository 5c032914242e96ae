import type { Page } from '@playwright/test';
import {
  expect,
  logIn,
  openFromNav,
  saveScreenshot,
  test,
  waitForPage,
  type RestClient,
} from './support/fixtures.ts';

/** Something real to show: devices, a gateway, telemetry, attributes and an API key, made through REST. */
async function seed(rest: RestClient): Promise<string> {
  const jwt = await rest.login();
  const auth = `Bearer ${jwt}`;
  const save = async (body: unknown) => {
    const res = await rest.request('/api/device', { method: 'POST', json: body, auth });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: { id: string } }).id.id;
  };
  const boiler = await save({ name: 'Boiler 7', label: 'Basement', type: 'thermal' });
  await save({ name: 'Gateway A', additionalInfo: { gateway: true, description: 'Hall 2 gateway' } });
  await save({ name: 'Door sensor', type: 'contact' });
  const now = Date.now();
  await rest.postTelemetry(
    jwt,
    boiler,
    Array.from({ length: 40 }, (_, i) => ({
      ts: now - (40 - i) * 15_000,
      values: { temperature: 60 + 8 * Math.sin(i / 5), pressure: 1.8 + 0.2 * Math.cos(i / 7) },
    })),
  );
  for (const [scope, values] of [
    ['SHARED_SCOPE', { targetTemperature: 65, mode: 'eco' }],
    ['SERVER_SCOPE', { serialNumber: 'SN-0042', installed: '2024-05-01' }],
  ] as const) {
    const res = await rest.request(`/api/plugins/telemetry/DEVICE/${boiler}/attributes/${scope}`, {
      method: 'POST',
      json: values,
      auth,
    });
    expect(res.status).toBe(200);
  }
  const key = await rest.request('/api/apiKey', {
    method: 'POST',
    json: { description: 'CI pipeline' },
    auth,
  });
  expect(key.status).toBe(200);
  return boiler;
}

/** What each page shows once it has its data (so screenshots are not of spinners). */
const SETTLED: Record<string, (page: Page) => Promise<void>> = {
  overview: (p) => expect(p.getByTestId('stat-devices')).toHaveText('3'),
  devices: (p) => expect(p.getByTestId('device-link')).toHaveCount(3),
  gateways: (p) => expect(p.getByTestId('gateway-count')).toHaveText('1'),
  'rest-connector': (p) => expect(p.getByTestId('arrives-later')).toBeVisible(),
  'rule-chains': (p) => expect(p.getByTestId('rule-chain-nodes')).toContainText('TbMsgTimeseriesNode'),
  edges: (p) => expect(p.getByTestId('arrives-later')).toBeVisible(),
  reports: (p) => expect(p.getByTestId('arrives-later')).toContainText('127.0.0.1'),
  security: (p) => expect(p.getByTestId('api-key-row')).toHaveCount(1),
  'api-explorer': (p) =>
    expect(
      p.frameLocator('iframe[title="API explorer"]').locator('body[data-explorer-ready="true"]'),
    ).toBeAttached({
      timeout: 30_000,
    }),
  settings: (p) => expect(p.getByTestId('platform-version')).toHaveText(/\d+\.\d+\.\d+/),
};

test('every page renders with real data, in the light and the dark theme (screenshots)', async ({
  page,
  rest,
}) => {
  test.setTimeout(120_000);
  // no script errors and no Content-Security-Policy violations on any page
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  const boiler = await seed(rest);
  for (const theme of ['light', 'dark'] as const) {
    // the app's theme is "auto" until chosen: it follows the system's
    await page.emulateMedia({ colorScheme: theme });
    await page.goto('/');
    if (theme === 'light') {
      await waitForPage(page, 'login');
      await saveScreenshot(page, `login-${theme}`);
      await logIn(page);
    } else {
      await waitForPage(page, 'overview');
    }
    for (const [id, settled] of Object.entries(SETTLED)) {
      await openFromNav(page, id);
      await settled(page);
      await saveScreenshot(page, `${id}-${theme}`);
    }
    await page.goto(`/devices/${boiler}`);
    await waitForPage(page, 'device');
    await expect(page.getByTestId('telemetry-chart').locator('path.recharts-line-curve')).toHaveCount(2);
    await expect(page.getByTestId('attributes-SHARED_SCOPE')).toContainText('targetTemperature');
    await saveScreenshot(page, `device-${theme}`);
  }
  // the login page in the dark theme, too
  await page.getByTestId('user-menu').click();
  await page.getByTestId('logout').click();
  await waitForPage(page, 'login');
  await saveScreenshot(page, 'login-dark');
  expect(problems).toEqual([]);
});

test('the theme toggle switches and is remembered', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await logIn(page);
  const html = page.locator('html');
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');
  await page.getByTestId('theme-toggle').click();
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');
  await page.reload();
  await waitForPage(page, 'overview');
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');
  await openFromNav(page, 'settings');
  await page.getByTestId('theme-choice').getByText('Light').click();
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');
});
