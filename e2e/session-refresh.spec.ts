import { expect, logIn, openFromNav, test, waitForPage } from './support/fixtures.ts';

const TOKEN_LIFETIME_SEC = 8;

test.use({ sandboardEnv: { JWT_TOKEN_EXPIRATION_TIME: String(TOKEN_LIFETIME_SEC) } });

test('the access token is renewed silently before it expires; pages and live data keep working', async ({
  page,
  rest,
}) => {
  await logIn(page);
  const loggedInAt = Date.now();
  const token = () =>
    page.evaluate(
      () => (JSON.parse(sessionStorage.getItem('sandboard.auth') ?? 'null') as { token: string }).token,
    );
  const first = await token();
  await expect.poll(token, { timeout: (TOKEN_LIFETIME_SEC + 4) * 1000 }).not.toBe(first);

  // past the first token's expiry: the app still works, with no login page in between
  await page.waitForTimeout(Math.max(0, loggedInAt + TOKEN_LIFETIME_SEC * 1000 + 500 - Date.now()));
  await openFromNav(page, 'devices');
  await expect(page.getByText('No devices yet')).toBeVisible();
  await expect(page.locator('body')).toHaveAttribute('data-live', 'open');

  // and the live socket, which got the new token too, still pushes counters
  await openFromNav(page, 'overview');
  const jwt = await rest.login();
  const res = await rest.request('/api/device', {
    method: 'POST',
    json: { name: 'after refresh' },
    auth: `Bearer ${jwt}`,
  });
  expect(res.status).toBe(200);
  await expect(page.getByTestId('stat-devices')).toHaveText('1');
  await expect(page.locator('body')).not.toHaveAttribute('data-page', 'login');
  await waitForPage(page, 'overview');
});
