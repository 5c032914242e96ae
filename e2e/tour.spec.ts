import { expect, logIn, saveScreenshot, test, waitForPage } from './support/fixtures.ts';
import { seed, tourStops, visit } from './support/tour.ts';

test('every page of the catalog renders with real data, in the light and the dark theme (screenshots)', async ({
  page,
  rest,
}) => {
  test.setTimeout(480_000); // about 25 pages in two themes, each waited for
  // no script errors and no Content-Security-Policy violations on any page
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  const stops = tourStops(await seed(rest));
  for (const theme of ['light', 'dark'] as const) {
    // the app's theme is "auto" until chosen: it follows the system's
    await page.emulateMedia({ colorScheme: theme });
    await page.goto('/');
    if (theme === 'light') {
      await waitForPage(page, 'login');
      await saveScreenshot(page, `login-${theme}`);
      await logIn(page);
    }
    for (const stop of stops) {
      await visit(page, stop);
      await saveScreenshot(page, `${stop.id}-${theme}`);
    }
    const simulation = stops.find((s) => s.id === 'simulation')!;
    await visit(page, simulation);
    await page.getByTestId('tab-scenario').click();
    await expect(page.getByTestId('scenario-editor')).toBeVisible();
    await saveScreenshot(page, `simulation-scenario-${theme}`);
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
  await page.getByTestId('nav-settings').click();
  await waitForPage(page, 'settings');
  await page.getByTestId('theme-choice').getByText('Light').click();
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');
});
