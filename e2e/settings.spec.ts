import { expect, logIn, openFromNav, test } from './support/fixtures.ts';

test('Settings: each transport limit says what it counts, every save is confirmed, no stale lines', async ({
  page,
}) => {
  await logIn(page);
  await openFromNav(page, 'settings');
  await expect(page.getByText('Port reserved; the report endpoints arrive')).toHaveCount(0);

  // a user who limits Device > Messages reads that telemetry is not counted there
  const columns = page.getByTestId('limit-column');
  await expect(columns.nth(0)).toContainText('not telemetry');
  await expect(columns.nth(1)).toContainText('Telemetry messages');
  await expect(columns.nth(2)).toContainText('each key of each telemetry message');
  const deviceMessages = page.getByTestId('limit-transportDeviceMsgRateLimit');
  await expect(deviceMessages).toHaveAccessibleName(/^Device: other messages \(not telemetry/);

  await deviceMessages.fill('3:10');
  await page.getByTestId('save-limits').click();
  await expect(page.getByTestId('saved-notice')).toContainText('Transport rate limits saved');
  await expect(page.getByTestId('save-limits')).toBeDisabled();

  await page.getByTestId('theme-choice').getByText('Dark').click();
  await expect(page.getByTestId('saved-notice').filter({ hasText: 'Theme dark saved' })).toBeVisible();
});
