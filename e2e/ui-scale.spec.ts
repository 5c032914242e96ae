import { expect, logIn, saveScreenshot, test, waitForPage } from './support/fixtures.ts';
import { seed, tourStops, visit } from './support/tour.ts';

test('the UI scale: Ctrl + / Ctrl - / Ctrl 0 and the user menu, kept in the user settings; the tour at 1280x720 and 125 %', async ({
  page,
  rest,
  browser,
  baseURL,
}) => {
  test.setTimeout(480_000);
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  const stops = tourStops(await seed(rest));
  await page.setViewportSize({ width: 1280, height: 720 });
  await logIn(page);
  const html = page.locator('html');
  const fontSize = () => html.evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
  const base = await fontSize();

  // Ctrl + grows everything rem-sized by a quarter; the choice is the user's, saved on the server
  await page.keyboard.press('Control+=');
  await expect(html).toHaveAttribute('data-ui-scale', '1.25');
  expect(await fontSize()).toBeCloseTo(base * 1.25, 1);
  const jwt = await rest.login();
  await expect
    .poll(async () => {
      const res = await rest.request('/api/user/settings', { auth: `Bearer ${jwt}` });
      return ((await res.json()) as { uiScale?: number }).uiScale;
    })
    .toBe(1.25);

  // another browser (nothing in its storage) gets it on logging in
  const other = await browser.newContext({ baseURL, viewport: { width: 1280, height: 720 } });
  const second = await other.newPage();
  await logIn(second);
  await expect(second.locator('html')).toHaveAttribute('data-ui-scale', '1.25');
  await other.close();

  // the tour at 125 %: every page, with its data, without a script error
  for (const stop of stops) {
    await visit(page, stop);
    await saveScreenshot(page, `${stop.id}-1280x720-125`);
  }

  // the user menu shows and sets it too; Ctrl - and Ctrl 0 go back
  await page.getByTestId('user-menu').click();
  const choice = page.getByTestId('ui-scale');
  await expect(choice.locator('input:checked')).toHaveValue('1.25');
  await choice.getByText('150 %').click();
  await expect(html).toHaveAttribute('data-ui-scale', '1.5');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+-');
  await expect(html).toHaveAttribute('data-ui-scale', '1.25');
  await page.keyboard.press('Control+0');
  await expect(html).toHaveAttribute('data-ui-scale', '1');
  expect(await fontSize()).toBeCloseTo(base, 1);
  await page.reload();
  await waitForPage(page, stops.at(-1)!.id);
  await expect(html).toHaveAttribute('data-ui-scale', '1');
  expect(problems).toEqual([]);
});
