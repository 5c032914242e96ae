import mqtt from 'mqtt';
import { expect, logIn, openFromNav, test, waitForPage } from './support/fixtures.ts';

test('a device connected over MQTT with the page’s own connection details shows up live', async ({
  page,
  rest,
  sandboard,
}) => {
  const jwt = await rest.login();
  const res = await rest.request('/api/device', {
    method: 'POST',
    json: { name: 'mqtt-meter' },
    auth: `Bearer ${jwt}`,
  });
  const device = (await res.json()) as { id: { id: string } };
  await logIn(page);
  await openFromNav(page, 'overview');
  await expect(page.getByTestId('stat-sessions')).toHaveText('0');

  // connect the way the device page says: host, port and token from its mosquitto_pub example
  await page.goto(`/devices/${device.id.id}`);
  await waitForPage(page, 'device');
  await expect(page.getByTestId('device-detail')).toHaveAttribute('data-following', 'true');
  const example = (await page.getByTestId('mqtt-example').textContent())!;
  const [, host, port, token] = /-h (\S+) -p (\d+) .* -u "(\S+)"/.exec(example)!;
  expect(`mqtt://${host}:${port}`).toBe(sandboard.urls.mqtt);

  const client = await mqtt.connectAsync(`mqtt://${host}:${port}`, { username: token, reconnectPeriod: 0 });
  try {
    await client.publishAsync('v1/devices/me/telemetry', JSON.stringify({ voltage: 229.5 }), { qos: 1 });
    await expect(page.getByTestId('latest-telemetry').locator('tr[data-key="voltage"]')).toContainText(
      '229.5',
    );
    await expect(page.getByTestId('telemetry-chart')).toHaveAttribute('data-points', '1');
    await openFromNav(page, 'overview');
    await expect(page.getByTestId('stat-sessions')).toHaveText('1');
  } finally {
    await client.endAsync();
  }
  await expect(page.getByTestId('stat-sessions')).toHaveText('0');
});
