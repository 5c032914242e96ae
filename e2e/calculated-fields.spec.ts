import mqtt from 'mqtt';
import { expect, logIn, saveScreenshot, test, waitForPage, watchConsole } from './support/fixtures.ts';

test('a SIMPLE calculated field made on the device page: °F to °C, test-run on a sample, then computed from MQTT telemetry', async ({
  page,
  rest,
  sandboard,
}) => {
  test.setTimeout(90_000);
  const problems = watchConsole(page);
  const { id, token } = await rest.newDevice(await rest.login(), 'Boiler thermometer');
  await logIn(page);
  await page.goto(`/devices/${id}`);
  await waitForPage(page, 'device');
  await page.getByTestId('section-bar').getByRole('link', { name: 'Calculated fields', exact: true }).click();
  const card = page.getByTestId('calculated-fields');
  await expect(card).toBeInViewport();
  await expect(card).toContainText('No calculated fields');

  // a SIMPLE field: its template is ThingsBoard's °F -> °C example, output temperatureC
  await page.getByTestId('cf-add').click();
  const form = page.getByTestId('cf-form');
  await page.getByTestId('cf-name').fill('Temperature in °C');
  await expect(page.getByTestId('cf-type')).toHaveValue('SIMPLE');
  await expect(form).toContainText('(temperature - 32) / 1.8');
  await expect(page.getByTestId('cf-configuration')).toContainText('temperatureC');

  // test runs on sample arguments: boiling water, then where both scales meet
  await page
    .getByTestId('cf-samples')
    .fill(JSON.stringify({ temperature: { type: 'SINGLE_VALUE', ts: 1, value: 212 } }));
  await page.getByTestId('cf-test').click();
  await expect(page.getByTestId('cf-test-output')).toHaveText(/^100(\.0+)?$/);
  await page
    .getByTestId('cf-samples')
    .fill(JSON.stringify({ temperature: { type: 'SINGLE_VALUE', ts: 1, value: -40 } }));
  await page.getByTestId('cf-test').click();
  await expect(page.getByTestId('cf-test-output')).toHaveText(/^-40(\.0+)?$/);
  await page.getByTestId('cf-save').click();
  await expect(form).toBeHidden();
  const row = card.getByTestId('cf-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Temperature in °C');
  await expect(row).toContainText('SIMPLE');

  // the device publishes °F over MQTT; its latest telemetry shows the field's output beside it
  const device = await mqtt.connectAsync(sandboard.urls.mqtt, { username: token, reconnectPeriod: 0 });
  try {
    await device.publishAsync('v1/devices/me/telemetry', JSON.stringify({ temperature: 212 }), { qos: 1 });
    await page.getByTestId('section-bar').getByRole('link', { name: 'Telemetry', exact: true }).click();
    const latest = page.getByTestId('latest-telemetry');
    await expect(latest.locator('tr[data-key="temperature"]')).toContainText('212', { timeout: 15_000 });
    await expect(latest.locator('tr[data-key="temperatureC"]')).toContainText('100', { timeout: 15_000 });
    // the next reading moves it
    await device.publishAsync('v1/devices/me/telemetry', JSON.stringify({ temperature: 50 }), { qos: 1 });
    await expect(latest.locator('tr[data-key="temperatureC"]')).toContainText('10', { timeout: 15_000 });
    await expect(latest.locator('tr[data-key="temperatureC"]')).not.toContainText('100');
    await saveScreenshot(page, 'calculated-field-output');
  } finally {
    await device.endAsync(true);
  }
  expect(problems).toEqual([]);
});
