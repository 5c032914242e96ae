import mqtt from 'mqtt';
import { expect, logIn, openFromNav, saveScreenshot, test, waitForPage } from './support/fixtures.ts';

test('Record on the MQTT page records a device publishing, with live counters; the recording shows in the list, renamed, and downloads', async ({
  page,
  rest,
  sandboard,
}) => {
  test.setTimeout(120_000);
  const jwt = await rest.login();
  const device = await rest.newDevice(jwt, 'Recorded thermometer');
  await logIn(page);
  await openFromNav(page, 'mqtt');

  await page.getByTestId('record-button').click();
  await page.getByTestId('record-seconds').fill('600');
  await page.getByTestId('record-name').fill('E2E run');
  await page.getByTestId('record-start').click();
  await expect(page.getByTestId('record-counters')).toContainText(/record/);

  const client = await mqtt.connectAsync(sandboard.urls.mqtt, { username: device.token, reconnectPeriod: 0 });
  for (let n = 1; n <= 3; n++)
    await client.publishAsync('v1/devices/me/telemetry', JSON.stringify({ n }), { qos: 1 });
  await client.endAsync();
  // the device record, its connect, three publishes and the disconnect
  await expect(page.getByTestId('record-counters')).toContainText(/\b6 records\b/);
  await saveScreenshot(page, 'mqtt-recording');
  await page.getByTestId('record-stop').click();
  await expect(page.getByTestId('record-done')).toContainText(/Recorded \d+ records/);

  await openFromNav(page, 'recordings');
  const row = page.locator('[data-testid="recording-row"][data-name="E2E run"]');
  await expect(row.getByTestId('recording-state')).toHaveText('stopped');
  await expect(row.getByTestId('recording-counters')).toContainText(/\d+ records/);
  await expect(row.getByTestId('recording-reason')).toHaveText('stopped early');

  await row.getByRole('button', { name: 'Rename' }).click();
  await page.getByTestId('rename-recording-name').fill('E2E run, renamed');
  await page.getByTestId('rename-recording-save').click();
  const renamed = page.locator('[data-testid="recording-row"][data-name="E2E run, renamed"]');
  await expect(renamed).toBeVisible();
  await saveScreenshot(page, 'recordings');

  const download = page.waitForEvent('download');
  await renamed.getByRole('button', { name: 'Download' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/\.ndjson$/);
  await waitForPage(page, 'recordings');
});
