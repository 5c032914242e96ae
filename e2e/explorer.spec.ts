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
