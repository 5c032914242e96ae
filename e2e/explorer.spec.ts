import { TENANT, expect, logIn, openFromNav, saveScreenshot, test } from './support/fixtures.ts';

test('the API explorer runs a call with the session, without asking to log in', async ({ page }) => {
  test.setTimeout(90_000);
  await logIn(page);
  await openFromNav(page, 'api-explorer');
  const explorer = page.frameLocator('iframe[title="API explorer"]');
  await expect(explorer.locator('body[data-explorer-ready="true"]')).toBeAttached({ timeout: 30_000 });

  const operation = explorer.locator('.opblock-get').filter({
    has: explorer.locator('[data-path="/api/auth/user"]'),
  });
  await operation.locator('.opblock-summary-control').click();
  await operation.getByRole('button', { name: 'Execute' }).click();
  const response = operation.locator('.live-responses-table');
  await expect(response.locator('tbody .response-col_status')).toContainText('200');
  await expect(response).toContainText(TENANT.username);
  await response.scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'api-explorer-call');
});

test('the explorer shows the header placeholders, follows the dark theme, and its Authorize dialog opens at the top', async ({
  page,
}) => {
  test.setTimeout(90_000);
  await page.emulateMedia({ colorScheme: 'dark' });
  await logIn(page);
  await openFromNav(page, 'api-explorer');
  const explorer = page.frameLocator('iframe[title="API explorer"]');
  await expect(explorer.locator('body[data-explorer-ready="true"]')).toBeAttached({ timeout: 30_000 });
  const description = explorer.locator('.info .description');
  await expect(description).toContainText('X-Authorization: Bearer <JWT>');
  await expect(description).toContainText('X-Authorization: ApiKey <key>');
  // dark inside the dark app: what is drawn behind the operations is dark
  await expect(explorer.locator('html')).toHaveAttribute('data-theme', 'dark');
  const frame = page.frame({ url: /\/swagger-ui\// })!;
  const drawn = await frame.evaluate(() => {
    const ui = document.querySelector('#swagger-ui')!;
    return {
      filter: getComputedStyle(ui).filter,
      background: getComputedStyle(document.documentElement).backgroundColor,
    };
  });
  expect(drawn.filter).toContain('invert');
  expect(drawn.background).toBe('rgb(26, 27, 30)');
  // the app's theme toggle reaches it
  await page.getByTestId('theme-toggle').click();
  await expect(explorer.locator('html')).not.toHaveAttribute('data-theme', 'dark');

  // opened on its own (a new tab: not signed in): Authorize starts on the login form, at the top
  const standalone = await page.context().newPage();
  await standalone.goto('/swagger-ui/');
  await expect(standalone.locator('body[data-explorer-ready="true"]')).toBeAttached({ timeout: 30_000 });
  await expect(standalone.locator('.info .description')).toContainText('X-Authorization: Bearer <JWT>');
  await standalone.getByRole('button', { name: 'Authorize' }).first().click();
  await expect(standalone.locator('input[name="sandboard-username"]')).toBeFocused();
  expect(await standalone.locator('.modal-ux-content').evaluate((el) => el.scrollTop)).toBe(0);
});
