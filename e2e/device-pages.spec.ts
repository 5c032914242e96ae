import mqtt from 'mqtt';
import { expect, logIn, openFromNav, test, waitForPage } from './support/fixtures.ts';

const SIZES = [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
];

for (const size of SIZES) {
  test(`every part of the device page is one click away at ${size.width}x${size.height}`, async ({
    page,
    rest,
  }) => {
    await page.setViewportSize(size);
    const { id } = await rest.newDevice(await rest.login(), 'Projector thermometer');
    await logIn(page);
    await page.goto(`/devices/${id}`);
    await waitForPage(page, 'device');
    const bar = page.getByTestId('section-bar');
    await expect(bar.getByRole('link')).toHaveText([
      'Connect',
      'Telemetry',
      'Attributes',
      'Alarms',
      'Relations',
      'Calculated fields',
      'RPC',
      'Firmware',
      'Claiming',
      'HTTP API and limits',
    ]);
    // each link brings its part into view, the bar stays on screen, nothing scrolls sideways
    for (const [link, part] of [
      ['RPC', 'rpc-console'],
      ['Claiming', 'claim-state'],
      ['Relations', 'relations-card'],
      ['Alarms', 'entity-alarms'],
      ['Telemetry', 'telemetry-chart'],
      ['Connect', 'access-token'],
    ] as const) {
      await bar.getByRole('link', { name: link, exact: true }).click();
      await expect(page.getByTestId(part)).toBeInViewport();
      await expect(bar).toBeInViewport();
      await expect(bar.getByRole('link', { name: link, exact: true })).toHaveAttribute(
        'aria-current',
        'location',
      );
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
}

test('the RPC console shows a device’s error answer as its answer, and a timeout in one sentence', async ({
  page,
  rest,
  sandboard,
}) => {
  const { id, token } = await rest.newDevice(await rest.login(), 'Picky device');
  const device = await mqtt.connectAsync(sandboard.urls.mqtt, { username: token, reconnectPeriod: 0 });
  try {
    await device.subscribeAsync('v1/devices/me/rpc/request/+', { qos: 1 });
    device.on('message', (topic) => {
      const requestId = topic.split('/').pop()!;
      void device.publishAsync(
        `v1/devices/me/rpc/response/${requestId}`,
        JSON.stringify({ error: 'Unsupported method' }),
      );
    });
    await logIn(page);
    await page.goto(`/devices/${id}`);
    await waitForPage(page, 'device');
    await page.getByTestId('section-bar').getByRole('link', { name: 'RPC', exact: true }).click();
    const rpc = page.getByTestId('rpc-console');
    await expect(rpc).toBeInViewport();
    await rpc.getByRole('textbox', { name: 'Method' }).fill('selfDestruct');
    await page.getByTestId('send-rpc').click();
    const outcome = page.getByTestId('rpc-outcome');
    await expect(outcome).toHaveAttribute('data-outcome', 'device-error');
    await expect(outcome).toContainText('The device answered with an error');
    await expect(outcome).toContainText('Unsupported method');
    await expect(outcome).not.toContainText('Answered in');
    await expect(page.getByTestId('rpc-history').locator('tbody tr').first()).toContainText('error reply');
  } finally {
    await device.endAsync();
  }

  // nobody listens now: the timeout is said once
  const rpc = page.getByTestId('rpc-console');
  await rpc.getByRole('textbox', { name: 'Timeout (ms)' }).fill('500');
  await page.getByTestId('send-rpc').click();
  const outcome = page.getByTestId('rpc-outcome');
  await expect(outcome).toHaveAttribute('data-outcome', 'timeout');
  const text = await outcome.innerText();
  expect(text.match(/did not answer/g)).toHaveLength(1);
  expect(text).not.toMatch(/within 500 ms/);
});

test('the devices list shows status, last activity and type, filters by them, and follows a device going active', async ({
  page,
  rest,
  sandboard,
}) => {
  const jwt = await rest.login();
  const auth = `Bearer ${jwt}`;
  for (const [name, type] of [
    ['idle-sensor', 'thermometer'],
    ['busy-meter', 'meter'],
  ] as const) {
    const res = await rest.request('/api/device', { method: 'POST', json: { name, type }, auth });
    expect(res.status, await res.clone().text()).toBe(200);
  }
  await logIn(page);
  await openFromNav(page, 'devices');
  const names = page.getByTestId('device-link');
  await expect(names).toHaveText(['busy-meter', 'idle-sensor']);
  const row = (name: string) => page.getByRole('row').filter({ has: page.getByText(name, { exact: true }) });
  await expect(row('busy-meter').getByTestId('device-status')).toHaveText('inactive');
  await expect(row('busy-meter').getByTestId('device-last-activity')).toHaveText('never');

  // the meter connects and sends: its row turns active with a last activity, without a reload
  const meter = (await (
    await rest.request(`/api/tenant/devices?deviceName=busy-meter`, { auth })
  ).json()) as { id: { id: string } };
  const credentials = (await (
    await rest.request(`/api/device/${meter.id.id}/credentials`, { auth })
  ).json()) as {
    credentialsId: string;
  };
  const client = await mqtt.connectAsync(sandboard.urls.mqtt, {
    username: credentials.credentialsId,
    reconnectPeriod: 0,
  });
  try {
    await client.publishAsync('v1/devices/me/telemetry', JSON.stringify({ power: 12 }), { qos: 1 });
    await expect(row('busy-meter').getByTestId('device-status')).toHaveText('active', { timeout: 15_000 });
    await expect(row('busy-meter').getByTestId('device-last-activity')).not.toHaveText('never');
    await expect(row('idle-sensor').getByTestId('device-status')).toHaveText('inactive');

    // filters: by status, then by type
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Active', exact: true }).click();
    await expect(names).toHaveText(['busy-meter']);
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Inactive', exact: true }).click();
    await expect(names).toHaveText(['idle-sensor']);
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Any status' }).click();
    await page.getByRole('combobox', { name: 'Type' }).click();
    await page.getByRole('option', { name: 'meter', exact: true }).click();
    await expect(names).toHaveText(['busy-meter']);
  } finally {
    await client.endAsync();
  }
});

test('assets use the device page’s list and sections: sortable columns, same order, an empty chart that fits', async ({
  page,
  rest,
}) => {
  const auth = `Bearer ${await rest.login()}`;
  for (const [name, type] of [
    ['Wing B', 'building'],
    ['Atrium', 'room'],
    ['Cellar', 'floor'],
  ] as const) {
    const res = await rest.request('/api/asset', { method: 'POST', json: { name, type }, auth });
    expect(res.status, await res.clone().text()).toBe(200);
  }
  await logIn(page);
  await openFromNav(page, 'assets');
  const names = page.getByTestId('asset-link');
  await expect(names).toHaveText(['Cellar', 'Atrium', 'Wing B']);
  await page.getByTestId('sort-name').click();
  await expect(names).toHaveText(['Atrium', 'Cellar', 'Wing B']);
  await page.getByTestId('sort-name').click();
  await expect(names).toHaveText(['Wing B', 'Cellar', 'Atrium']);
  await page.getByTestId('sort-type').click();
  await expect(names).toHaveText(['Wing B', 'Cellar', 'Atrium']);
  await expect(page.getByTestId('sort-type').locator('xpath=..')).toHaveAttribute('aria-sort', 'ascending');

  await names.filter({ hasText: 'Atrium' }).click();
  await waitForPage(page, 'asset');
  await expect(page.getByTestId('section-bar').getByRole('link')).toHaveText([
    'Telemetry',
    'Attributes',
    'Alarms',
    'Relations',
    'Calculated fields',
  ]);
  await expect(page.getByTestId('telemetry-chart')).toContainText('for this asset');
  await expect(page.getByTestId('telemetry-chart')).not.toContainText('the device');
});
