import { expect, logIn, openFromNav, test } from './support/fixtures.ts';

// A 1 MiB store budget: the Overview says how full it is from 80% on.
test.use({ sandboardEnv: { SANDBOARD_STORE_BUDGET_MB: '1', SANDBOARD_TELEMETRY_RETENTION_DAYS: '0' } });

test('the Overview warns when the store reaches 80% of its budget', async ({ page, rest }) => {
  const jwt = await rest.login();
  const created = await rest.request('/api/device', {
    method: 'POST',
    json: { name: 'meter' },
    auth: `Bearer ${jwt}`,
  });
  const deviceId = ((await created.json()) as { id: { id: string } }).id.id;
  await logIn(page);
  await openFromNav(page, 'overview');
  await expect(page.getByTestId('stat-devices')).toHaveText('1');
  await expect(page.getByTestId('store-warning')).toHaveCount(0);

  const store = async () =>
    (
      (await (await rest.request('/api/sandboard/stats', { auth: `Bearer ${jwt}` })).json()) as {
        store: { warning: boolean };
      }
    ).store;
  let ts = Date.UTC(2026, 0, 1);
  while (!(await store()).warning) {
    const batch = Array.from({ length: 150 }, () => ({
      ts: ts++,
      values: { reading: `r-${ts}-${'x'.repeat(40)}` },
    }));
    await rest.postTelemetry(jwt, deviceId, batch);
  }
  const warning = page.getByTestId('store-warning');
  await expect(warning).toBeVisible();
  await expect(warning).toContainText(/The store is \d+% full/);
  await expect(warning).toContainText(/0\.[89] MiB of the 1\.0 MiB budget \(SANDBOARD_STORE_BUDGET_MB\)/);
  await expect(warning).toContainText('From 90% the oldest telemetry history is dropped');
});
