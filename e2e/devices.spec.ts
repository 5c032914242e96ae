import { expect, logIn, openFromNav, saveScreenshot, test, waitForPage } from './support/fixtures.ts';

test('log in, create a device, and see telemetry posted through REST drawn live', async ({ page, rest }) => {
  await page.goto('/');
  await waitForPage(page, 'login');
  // a fresh install shows its demo logins
  await expect(page.getByTestId('demo-logins')).toContainText('tenant@thingsboard.org');
  await logIn(page);

  await openFromNav(page, 'devices');
  await page.getByTestId('add-device').click();
  const form = page.getByTestId('device-form');
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill('Thermometer 1');
  await form.getByRole('textbox', { name: 'Label', exact: true }).fill('Lab bench');
  await form.getByRole('textbox', { name: 'Name', exact: true }).press('Enter');

  // a new device opens on its page, with its access token and the commands to feed it
  await waitForPage(page, 'device');
  await expect(page.getByTestId('device-name')).toHaveText('Thermometer 1');
  const deviceId = new URL(page.url()).pathname.split('/').pop()!;
  const token = page.getByTestId('access-token');
  await expect(token).toHaveText(/^[A-Za-z0-9]{20}$/);
  await expect(page.getByTestId('mqtt-example')).toContainText(`-u "${await token.textContent()}"`);
  await expect(page.getByTestId('device-detail')).toHaveAttribute('data-following', 'true');

  const jwt = await rest.login();
  const now = Date.now();
  await rest.postTelemetry(jwt, deviceId, [
    { ts: now - 90_000, values: { temperature: 20.5 } },
    { ts: now - 45_000, values: { temperature: 22 } },
    { ts: now - 1_000, values: { temperature: 21.25 } },
  ]);

  const chart = page.getByTestId('telemetry-chart');
  const curve = chart.locator('path.recharts-line-curve');
  await expect(curve).toHaveCount(1);
  await expect(curve).toHaveAttribute('d', /^M[\d.-]+,[\d.-]+[CL][\d.,\s-]+/);
  await expect(chart.locator('.recharts-line-dots circle')).toHaveCount(3);
  await expect(page.getByTestId('latest-telemetry').locator('tr[data-key="temperature"]')).toContainText(
    '21.25',
  );

  // one more point arrives over the WebSocket: no reload, no polling
  await rest.postTelemetry(jwt, deviceId, { temperature: 25 });
  await expect(chart).toHaveAttribute('data-points', '4');
  await expect(chart.locator('.recharts-line-dots circle')).toHaveCount(4);
  await expect(page.getByTestId('latest-telemetry').locator('tr[data-key="temperature"]')).toContainText(
    '25',
  );
  await saveScreenshot(page, 'device-detail-with-chart');

  // the overview's counters follow
  await openFromNav(page, 'overview');
  await expect(page.getByTestId('stat-devices')).toHaveText('1');
  await expect(page.getByTestId('stat-datapoints')).toHaveText('4');
  await rest.postTelemetry(jwt, deviceId, { temperature: 26, humidity: 40 });
  await expect(page.getByTestId('stat-datapoints')).toHaveText('6');
});

test('edit, search, sort and delete devices', async ({ page, rest }) => {
  const jwt = await rest.login();
  for (const name of ['alpha', 'bravo', 'charlie']) {
    const res = await rest.request('/api/device', { method: 'POST', json: { name }, auth: `Bearer ${jwt}` });
    expect(res.status).toBe(200);
  }
  await logIn(page);
  await openFromNav(page, 'devices');
  const names = page.getByTestId('device-link');
  await expect(names).toHaveText(['charlie', 'bravo', 'alpha']);
  await page.getByTestId('sort-name').click();
  await expect(names).toHaveText(['alpha', 'bravo', 'charlie']);
  await page.getByTestId('device-search').fill('rav');
  await expect(names).toHaveText(['bravo']);
  await page.getByTestId('device-search').fill('zulu');
  await expect(names).toHaveCount(0);
  await expect(page.getByRole('cell', { name: 'No device name contains “zulu”.' })).toBeVisible();

  // a device created elsewhere appears without a reload
  await page.getByTestId('device-search').fill('');
  await rest.request('/api/device', { method: 'POST', json: { name: 'delta' }, auth: `Bearer ${jwt}` });
  await expect(names).toHaveText(['alpha', 'bravo', 'charlie', 'delta']);

  const row = page.getByRole('row').filter({ has: page.getByText('bravo', { exact: true }) });
  await row.getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('Is gateway (connects other devices)').check();
  await page.getByTestId('save-device').click();
  await expect(row.getByText('gateway')).toBeVisible();

  await row.getByRole('button', { name: 'Delete' }).click();
  await page.getByTestId('confirm-delete-device').click();
  await expect(names).toHaveText(['alpha', 'charlie', 'delta']);
});

test('a customer user sees its own devices only, read-only', async ({ page, rest }) => {
  const jwt = await rest.login();
  const res = await rest.request('/api/device', {
    method: 'POST',
    json: { name: 'tenant-only' },
    auth: `Bearer ${jwt}`,
  });
  expect(res.status).toBe(200);
  await logIn(page, { username: 'customer@thingsboard.org', password: 'customer' });
  await openFromNav(page, 'devices');
  await expect(page.getByText('No devices are assigned to your customer.')).toBeVisible();
  await expect(page.getByTestId('add-device')).toHaveCount(0);
  await openFromNav(page, 'overview');
  await expect(page.getByTestId('stat-devices')).toHaveText('0');
});
