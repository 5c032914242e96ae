import mqtt from 'mqtt';
import { expect, logIn, openFromNav, test, waitForPage } from './support/fixtures.ts';

test('a device profile set to provision new devices hands out credentials to the HTTP example it shows', async ({
  page,
  rest,
  sandboard,
}) => {
  await logIn(page);
  await openFromNav(page, 'device-profiles');
  await page.getByTestId('add-profile').click();
  await page.getByTestId('profile-name-input').fill('thermostats');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await waitForPage(page, 'device-profile');
  await expect(page.getByTestId('profile-name')).toHaveText('thermostats');

  await page.getByTestId('provision-strategy').click();
  await page.getByRole('option', { name: 'Allow creating new devices' }).click();
  await page.getByTestId('provision-key').fill('thermo-key');
  await page.getByTestId('provision-secret').fill('thermo-secret');
  await page.getByTestId('save-provisioning').click();
  await expect(page.getByTestId('save-provisioning')).toBeDisabled();

  // The page's own curl example, sent as it is shown.
  await page.getByRole('tab', { name: 'HTTP' }).click();
  const example = (await page.getByTestId('provision-http-example').textContent())!;
  const [, url] = /-X POST (\S+)/.exec(example)!;
  const [, body] = /-d '(.+)'/.exec(example)!;
  expect(url).toBe(`${sandboard.urls.http}/api/v1/provision`);
  const res = await fetch(url!, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const answer = (await res.json()) as { status: string; credentialsType: string; credentialsValue: string };
  expect(answer).toMatchObject({ status: 'SUCCESS', credentialsType: 'ACCESS_TOKEN' });

  // The new device is of the profile and works with the token it got.
  const jwt = await rest.login();
  const device = (await (
    await rest.request('/api/tenant/devices?deviceName=my-new-device', { auth: `Bearer ${jwt}` })
  ).json()) as { type: string };
  expect(device.type).toBe('thermostats');
  await openFromNav(page, 'device-profiles');
  await expect(page.getByRole('row', { name: /thermostats/ })).toContainText('Allow creating new devices');
  expect(answer.credentialsValue).toMatch(/^\w{20}$/);
});

test('transport rate limits set on the Settings page are enforced and counted on the device page', async ({
  page,
  rest,
  sandboard,
}) => {
  const jwt = await rest.login();
  const created = await rest.request('/api/device?accessToken=limited-token', {
    method: 'POST',
    json: { name: 'limited-meter' },
    auth: `Bearer ${jwt}`,
  });
  const device = (await created.json()) as { id: { id: string } };

  await logIn(page);
  await openFromNav(page, 'settings');
  await page.getByTestId('limit-transportDeviceTelemetryMsgRateLimit').fill('1:3600');
  await page.getByTestId('save-limits').click();
  await expect(page.getByTestId('save-limits')).toBeDisabled();

  await page.goto(`/devices/${device.id.id}`);
  await waitForPage(page, 'device');
  await expect(page.getByTestId('rate-limited-count')).toHaveText('0');

  // Second telemetry message in the hour: the broker ends the session (MQTT 5: DISCONNECT 0x83).
  const client = await mqtt.connectAsync(sandboard.urls.mqtt, {
    username: 'limited-token',
    protocolVersion: 5,
    reconnectPeriod: 0,
  });
  const disconnected = new Promise<number | undefined>((resolve) =>
    client.once('disconnect', (packet) => resolve(packet.reasonCode)),
  );
  client.on('error', () => undefined);
  await client.publishAsync('v1/devices/me/telemetry', '{"n":1}', { qos: 1 });
  client.publish('v1/devices/me/telemetry', '{"n":2}', { qos: 1 });
  expect(await disconnected).toBe(0x83);
  client.end(true);

  await expect(page.getByTestId('rate-limited-count')).toHaveText('1');
  await expect(page.getByTestId('rate-limited-last')).toContainText('device telemetry messages 1:3600');
});
