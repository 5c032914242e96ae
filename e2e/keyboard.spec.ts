import type { Locator, Page } from '@playwright/test';
import { TENANT, expect, test, waitForPage } from './support/fixtures.ts';

/** Presses Tab until the target has the focus, as a keyboard user would (at most `max` times). */
async function tabTo(page: Page, target: Locator, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab did not reach ${target.toString()} in ${max} presses`);
}

test('keyboard alone: log in, open the Add device dialog, stay in it, close it with Esc, create a device with Enter', async ({
  page,
}) => {
  await page.goto('/');
  await waitForPage(page, 'login');
  await tabTo(page, page.getByRole('textbox', { name: 'Email', exact: true }));
  await page.keyboard.type(TENANT.username);
  await page.keyboard.press('Tab');
  await page.keyboard.type(TENANT.password);
  await page.keyboard.press('Enter');
  await waitForPage(page, 'overview');

  await tabTo(page, page.getByTestId('nav-devices'));
  await page.keyboard.press('Enter');
  await waitForPage(page, 'devices');
  const add = page.getByTestId('add-device');
  await tabTo(page, add);
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  // the dialog opens on its first field, with a visible focus ring
  const name = dialog.getByRole('textbox', { name: 'Name', exact: true });
  await expect(name).toBeFocused();
  // Tab never leaves the dialog
  for (let i = 0; i < 15; i++) {
    await page.keyboard.press('Tab');
    expect(await dialog.evaluate((el) => el.contains(document.activeElement))).toBe(true);
  }
  // Esc closes it and gives the focus back to what opened it
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(add).toBeFocused();

  await page.keyboard.press('Enter');
  await expect(name).toBeFocused();
  await page.keyboard.type('Keyboard sensor');
  await page.keyboard.press('Enter');
  await waitForPage(page, 'device');
  await expect(page.getByTestId('device-name')).toHaveText('Keyboard sensor');
});
