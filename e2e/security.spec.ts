import { TENANT, expect, logIn, openFromNav, test, waitForPage } from './support/fixtures.ts';

test('create an API key, use it from outside, disable it and revoke it', async ({ page, rest }) => {
  await logIn(page);
  await openFromNav(page, 'security');

  await page.getByRole('textbox', { name: 'Description', exact: true }).fill('e2e script');
  await page.getByTestId('create-api-key').click();
  const shown = page.getByTestId('new-api-key-value');
  await expect(shown).toHaveText(/^tb_[\w-]{40,}$/);
  const value = (await shown.textContent())!;
  await page.getByTestId('close-created-key').click();

  const row = page.getByTestId('api-key-row').filter({ hasText: 'e2e script' });
  await expect(row.getByTestId('api-key-status')).toHaveText('active');
  const me = await rest.request('/api/auth/user', { auth: `ApiKey ${value}` });
  expect(me.status).toBe(200);
  expect(((await me.json()) as { email: string }).email).toBe(TENANT.username);

  await row.getByRole('switch').click();
  await expect(row.getByTestId('api-key-status')).toHaveText('disabled');
  expect((await rest.request('/api/auth/user', { auth: `ApiKey ${value}` })).status).toBe(401);
  await row.getByRole('switch').click();
  await expect(row.getByTestId('api-key-status')).toHaveText('active');
  expect((await rest.request('/api/auth/user', { auth: `ApiKey ${value}` })).status).toBe(200);

  await row.getByTestId('revoke-api-key').click();
  await page.getByTestId('confirm-revoke-api-key').click();
  await expect(row).toHaveCount(0);
  const refused = await rest.request('/api/auth/user', { auth: `ApiKey ${value}` });
  expect(refused.status).toBe(401);
});

test('the session refreshes itself before the token expires, and logout ends it', async ({ page }) => {
  await logIn(page);
  await openFromNav(page, 'security');
  await expect(page.getByTestId('session-user')).toHaveText(TENANT.username);
  await expect(page.getByTestId('token-countdown')).toHaveText(/\d+ (h|min|s)/);
  const stored = () => page.evaluate(() => JSON.parse(sessionStorage.getItem('sandboard.auth') ?? 'null'));
  const first = (await stored()) as { token: string; refreshToken: string };
  expect(first.token).toMatch(/^ey/);
  expect(await page.evaluate(() => document.cookie)).toBe('');

  // the refresh button takes the same path as the silent refresh
  await page.waitForTimeout(1_100); // a new token needs a new second in its iat
  await page.getByTestId('refresh-token').click();
  await expect.poll(async () => ((await stored()) as { token: string }).token).not.toBe(first.token);
  await openFromNav(page, 'devices');
  await expect(page.getByText('No devices yet')).toBeVisible();

  await page.getByTestId('user-menu').click();
  await page.getByTestId('logout').click();
  await waitForPage(page, 'login');
  expect(await stored()).toBeNull();
  await page.reload();
  await waitForPage(page, 'login');
});

test('a wrong password is refused with a message', async ({ page }) => {
  await page.goto('/');
  await waitForPage(page, 'login');
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(TENANT.username);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill('not-it');
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByRole('alert')).toHaveText('Wrong email or password.');
});
