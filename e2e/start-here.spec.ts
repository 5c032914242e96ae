import { expect, logIn, saveScreenshot, test, waitForPage, watchConsole } from './support/fixtures.ts';

const TB101_STEPS = ['device', 'telemetry', 'attributes', 'rpc', 'rule-chain', 'alarm', 'dashboard'];

test('first run: Start here lists the shipped sandboxes; ThingsBoard 101 loads, its dashboard is live, and its tour walks to its end, skipped and resumed on the way', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const problems = watchConsole(page);
  await page.emulateMedia({ colorScheme: 'light' });
  await logIn(page);
  await expect(page.getByTestId('start-here-banner')).toBeVisible();
  await page.getByTestId('open-start-here').click();
  await waitForPage(page, 'start-here');
  const cards = page.getByTestId('sandbox-card');
  await expect(cards).toHaveCount(4);
  await expect(cards.locator('h3')).toHaveText([
    'ThingsBoard 101',
    'Factory line',
    'Fleet of trackers',
    'Smart building',
  ]);
  await saveScreenshot(page, 'start-here-light');

  const tb = page.locator('[data-testid="sandbox-card"][data-id="thingsboard-101"]');
  await tb.getByTestId('load-sandbox').click();
  await expect(tb).toHaveAttribute('data-state', 'LOADED', { timeout: 30_000 });
  await expect(tb.getByTestId('sandbox-created')).toContainText('Created');
  await expect(tb.getByTestId('sandbox-created')).toContainText('1 dashboard');

  // its dashboard shows the thermometer's temperature, changing as the simulation runs
  await tb.getByTestId('open-dashboard').click();
  await waitForPage(page, 'dashboard');
  await expect(page.getByTestId('dashboard-title')).toHaveText('ThingsBoard 101');
  const temperature = page
    .getByTestId('widget')
    .filter({ hasText: /^Temperature/ })
    .first()
    .getByTestId('value-card-value');
  await expect(temperature).toHaveText(/\d/, { timeout: 20_000 });
  const first = await temperature.textContent();
  await expect(temperature).not.toHaveText(first!, { timeout: 20_000 });

  // the tour: one concept per step, each on its page, its element outlined
  await page.getByTestId('nav-start-here').click();
  await waitForPage(page, 'start-here');
  await tb.getByTestId('start-tour').click();
  const card = page.getByTestId('tour-card');
  for (const [i, id] of TB101_STEPS.entries()) {
    await expect(card).toHaveAttribute('data-step', id);
    await expect(card).toHaveAttribute('data-target-found', 'true', { timeout: 30_000 });
    await expect(page.getByTestId('tour-highlight')).toBeVisible();
    if (i === 2) {
      // Esc leaves the tour; Start here offers to resume it at the same step
      await page.keyboard.press('Escape');
      await expect(card).toHaveCount(0);
      await page.getByTestId('nav-start-here').click();
      await waitForPage(page, 'start-here');
      await expect(tb.getByTestId('start-tour')).toHaveText('Resume tour (step 3 / 7)');
      await tb.getByTestId('start-tour').click();
      await expect(card).toHaveAttribute('data-step', 'attributes');
      // the arrow keys move it too
      await page.keyboard.press('ArrowRight');
      await expect(card).toHaveAttribute('data-step', 'rpc');
      await page.keyboard.press('ArrowLeft');
      await expect(card).toHaveAttribute('data-step', 'attributes');
    }
    await card.getByTestId('tour-next').click();
  }
  await expect(card).toHaveCount(0);
  await waitForPage(page, 'dashboard');
  await page.getByTestId('nav-start-here').click();
  await waitForPage(page, 'start-here');
  await expect(tb.getByTestId('start-tour')).toHaveText('Start tour');
  expect(problems).toEqual([]);
});

test('the fleet of trackers: its map draws the depot geofence and the vans move on it, in the dark theme', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const problems = watchConsole(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  await logIn(page);
  await page.getByTestId('nav-start-here').click();
  await waitForPage(page, 'start-here');
  const fleet = page.locator('[data-testid="sandbox-card"][data-id="fleet-trackers"]');
  await fleet.getByTestId('load-sandbox').click();
  await expect(fleet).toHaveAttribute('data-state', 'LOADED', { timeout: 30_000 });
  await fleet.getByTestId('open-dashboard').click();
  await waitForPage(page, 'dashboard');
  const map = page.getByTestId('map-widget');
  await expect(map.getByTestId('map-polygon')).toHaveAttribute('data-entity', 'Depot zone');
  const van = map.locator('[data-entity="Van 1"]');
  await expect(van).toBeVisible({ timeout: 20_000 });
  const where = await van.getAttribute('transform');
  await expect(van).not.toHaveAttribute('transform', where!, { timeout: 20_000 });
  await saveScreenshot(page, 'start-here-fleet-dark');

  // the tour starts on the map
  await page.getByTestId('nav-start-here').click();
  await waitForPage(page, 'start-here');
  await fleet.getByTestId('start-tour').click();
  const card = page.getByTestId('tour-card');
  await expect(card).toHaveAttribute('data-step', 'map');
  await expect(card).toHaveAttribute('data-target-found', 'true', { timeout: 30_000 });
  await card.getByTestId('tour-skip').click();
  await expect(card).toHaveCount(0);
  expect(problems).toEqual([]);
});
