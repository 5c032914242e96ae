import mqtt from 'mqtt';
import { expect, logIn, test, waitForPage } from './support/fixtures.ts';

const TIMEOUT_MS = 3_000;

// Chromium sends a request again when it gets 408 on a reused keep-alive connection: the UI must not
// let a timed-out RPC reach the device twice (nor make the user wait two timeouts).
test('one click sends a two-way RPC to the device once, and the UI shows one timeout', async ({
  page,
  rest,
  sandboard,
}) => {
  const { id: deviceId, token } = await rest.newDevice(await rest.login(), 'silent');

  // a device that takes RPC requests and never answers, counting what it gets
  const device = await mqtt.connectAsync(sandboard.urls.mqtt, { username: token, reconnectPeriod: 0 });
  const received: string[] = [];
  device.on('message', (topic) => received.push(topic));
  await device.subscribeAsync('v1/devices/me/rpc/request/+', { qos: 1 });
  try {
    await logIn(page);
    await page.goto(`/devices/${deviceId}`);
    await waitForPage(page, 'device');
    const rpc = page.getByTestId('rpc-console');
    await rpc.getByRole('textbox', { name: 'Method' }).fill('reboot');
    await rpc.getByRole('textbox', { name: 'Timeout (ms)' }).fill(String(TIMEOUT_MS));
    await page.getByTestId('send-rpc').click();
    const outcome = page.getByTestId('rpc-outcome');
    await expect(outcome).toHaveAttribute('data-outcome', 'timeout', { timeout: 4 * TIMEOUT_MS });
    const elapsed = Number(
      /Timed out after ([\d,]+) ms/.exec(await outcome.innerText())![1]!.replace(/,/g, ''),
    );
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(elapsed).toBeLessThan(2 * TIMEOUT_MS);
    // had the browser sent it again, the device would have had a second request before the UI's answer
    expect(received).toEqual([expect.stringMatching(/^v1\/devices\/me\/rpc\/request\/\d+$/)]);
    await expect(page.getByTestId('rpc-history').locator('tbody tr')).toHaveCount(1);
  } finally {
    await device.endAsync();
  }
});
