import mqtt from 'mqtt';
import { expect, logIn, openFromNav, test, waitForPage } from './support/fixtures.ts';

const CUSTOMER = { username: 'customer@thingsboard.org', password: 'customer' };

test('the RPC console shows a timeout plainly; a customer claims a device, the tenant reclaims it', async ({
  page,
  rest,
  sandboard,
}) => {
  test.setTimeout(90_000);
  const { id: deviceId, token } = await rest.newDevice(await rest.login(), 'claimable');

  // nobody answers: a two-way RPC times out with ThingsBoard's 504, shown with its elapsed time
  await logIn(page);
  await page.goto(`/devices/${deviceId}`);
  await waitForPage(page, 'device');
  const rpc = page.getByTestId('rpc-console');
  await rpc.getByRole('textbox', { name: 'Method' }).fill('reboot');
  await rpc.getByRole('textbox', { name: 'Timeout (ms)' }).fill('500');
  await page.getByTestId('send-rpc').click();
  const outcome = page.getByTestId('rpc-outcome');
  await expect(outcome).toHaveAttribute('data-outcome', 'timeout');
  await expect(outcome).toContainText(/Timed out after [\d,]+ ms/);
  await expect(page.getByTestId('rpc-history').locator('tbody tr')).toHaveCount(1);
  await expect(page.getByTestId('claim-state')).toHaveText('tenant’s');

  // the device allows claiming with a secret key
  const device = await mqtt.connectAsync(sandboard.urls.mqtt, { username: token, reconnectPeriod: 0 });
  try {
    await device.publishAsync(
      'v1/devices/me/claim',
      JSON.stringify({ secretKey: 's3cret', durationMs: 60_000 }),
      {
        qos: 1,
      },
    );
  } finally {
    await device.endAsync();
  }

  // a customer user claims it: a wrong key fails, the right one succeeds, then it is taken
  await page.getByTestId('user-menu').click();
  await page.getByTestId('logout').click();
  await waitForPage(page, 'login');
  await logIn(page, CUSTOMER);
  await openFromNav(page, 'devices');
  await page.getByTestId('open-claim').click();
  const form = page.getByTestId('claim-form');
  await form.getByRole('textbox', { name: 'Device name' }).fill('claimable');
  await form.getByRole('textbox', { name: 'Secret key' }).fill('wrong');
  await page.getByTestId('claim-device').click();
  const claimed = page.getByTestId('claim-outcome');
  await expect(claimed).toHaveAttribute('data-outcome', 'FAILURE');
  await form.getByRole('textbox', { name: 'Secret key' }).fill('s3cret');
  await page.getByTestId('claim-device').click();
  await expect(claimed).toHaveAttribute('data-outcome', 'SUCCESS');
  await page.getByTestId('claim-device').click();
  await expect(claimed).toHaveAttribute('data-outcome', 'CLAIMED');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('device-link')).toHaveText(['claimable']);

  // the tenant administrator sees the owner and reclaims it
  await page.getByTestId('user-menu').click();
  await page.getByTestId('logout').click();
  await waitForPage(page, 'login');
  await logIn(page);
  await page.goto(`/devices/${deviceId}`);
  await waitForPage(page, 'device');
  await expect(page.getByTestId('claim-state')).toHaveText('owned by a customer');
  await page.getByTestId('reclaim').click();
  await page.getByTestId('confirm-reclaim').click();
  await expect(page.getByTestId('claim-state')).toHaveText('tenant’s');
});
