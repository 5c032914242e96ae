import mqtt from 'mqtt';
import {
  expect,
  logIn,
  openFromNav,
  saveScreenshotsInBothThemes,
  test,
  waitForPage,
} from './support/fixtures.ts';

const CREATE = 'alarms[0].createRules.CRITICAL';
const CLEAR = 'alarms[0].clearRule';
const filter = (rule: string) => `${rule}.condition.condition[0]`;

test('an alarm rule added through the device profile form is saved, and raises and clears alarms from MQTT telemetry', async ({
  page,
  rest,
  sandboard,
}) => {
  const jwt = await rest.login();
  const auth = `Bearer ${jwt}`;
  const created = await rest.request('/api/device?accessToken=boiler-token', {
    method: 'POST',
    json: { name: 'Boiler' },
    auth,
  });
  expect(created.status, await created.clone().text()).toBe(200);

  await logIn(page);
  await openFromNav(page, 'device-profiles');
  await page.getByTestId('profile-link').filter({ hasText: 'default' }).click();
  await waitForPage(page, 'device-profile');
  const card = page.getByTestId('alarm-rules-card');
  await expect(card.getByTestId('no-alarm-rules')).toBeVisible();

  await card.getByTestId('add-alarm-rule').click();
  await card.locator('input[data-path="alarms[0].alarmType"]').fill('Boiler too hot');
  // create rule: temperature greater than 30, by keyboard
  const key = card.locator(`input[data-path="${filter(CREATE)}.key.key"]`);
  await key.fill('temperature');
  await key.press('Tab');
  await card.locator(`input[data-path="${filter(CREATE)}.predicate.value.defaultValue"]`).fill('30');
  await card.locator(`textarea[data-path="${CREATE}.alarmDetails"]`).fill('Temperature is ${temperature}');
  // clear rule: temperature less than 25
  await card.getByRole('button', { name: 'Add clear rule' }).click();
  await card.locator(`input[data-path="${filter(CLEAR)}.predicate.operation"]`).click();
  await page.getByRole('option', { name: 'less than', exact: true }).click();
  await card.locator(`input[data-path="${filter(CLEAR)}.predicate.value.defaultValue"]`).fill('25');

  // a bad value is named by its path and keeps Save off
  await card.locator(`input[data-path="${filter(CLEAR)}.key.key"]`).fill('');
  await expect(card.getByTestId('alarm-rules-issues')).toContainText(`${filter(CLEAR)}.key.key`);
  await expect(card.getByTestId('save-alarm-rules')).toBeDisabled();
  await card.locator(`input[data-path="${filter(CLEAR)}.key.key"]`).fill('temperature');

  await card.getByTestId('save-alarm-rules').click();
  await expect(card.getByTestId('save-alarm-rules')).toBeDisabled();
  await expect(card.getByText('Unsaved changes')).toHaveCount(0);
  await saveScreenshotsInBothThemes(page, 'device-profile-alarm-rules');

  // saved as ThingsBoard's shape
  const info = (await (await rest.request('/api/deviceProfileInfo/default', { auth })).json()) as {
    id: { id: string };
  };
  const profile = (await (await rest.request(`/api/deviceProfile/${info.id.id}`, { auth })).json()) as {
    profileData: { alarms: unknown[] };
  };
  expect(profile.profileData.alarms).toEqual([
    expect.objectContaining({
      id: expect.any(String),
      alarmType: 'Boiler too hot',
      createRules: {
        CRITICAL: expect.objectContaining({
          condition: {
            condition: [
              expect.objectContaining({
                key: { type: 'TIME_SERIES', key: 'temperature' },
                valueType: 'NUMERIC',
                predicate: expect.objectContaining({
                  type: 'NUMERIC',
                  operation: 'GREATER',
                  value: expect.objectContaining({ defaultValue: 30 }),
                }),
              }),
            ],
            spec: { type: 'SIMPLE' },
          },
          alarmDetails: 'Temperature is ${temperature}',
        }),
      },
      clearRule: expect.objectContaining({
        condition: expect.objectContaining({
          condition: [
            expect.objectContaining({
              predicate: expect.objectContaining({
                operation: 'LESS',
                value: expect.objectContaining({ defaultValue: 25 }),
              }),
            }),
          ],
        }),
      }),
    }),
  ]);

  // the page shows the saved rule after a reload, and the JSON view holds the same
  await page.reload();
  await waitForPage(page, 'device-profile');
  await expect(card.locator(`input[data-path="${filter(CREATE)}.predicate.value.defaultValue"]`)).toHaveValue(
    '30',
  );
  await card.getByTestId('alarm-rules-view').getByText('JSON').click();
  await expect(card.getByTestId('alarm-rules-json')).toHaveValue(/"alarmType": "Boiler too hot"/);

  // the rule runs: telemetry raises the alarm on the Alarms page, and clears it
  await openFromNav(page, 'alarms');
  const client = await mqtt.connectAsync(sandboard.urls.mqtt, {
    username: 'boiler-token',
    reconnectPeriod: 0,
  });
  try {
    await client.publishAsync('v1/devices/me/telemetry', '{"temperature":35}', { qos: 1 });
    const row = page.getByTestId('alarm-row').filter({ hasText: 'Boiler too hot' });
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId('alarm-severity')).toHaveText('CRITICAL');
    await client.publishAsync('v1/devices/me/telemetry', '{"temperature":20}', { qos: 1 });
    await expect(row).toHaveCount(0);
  } finally {
    await client.endAsync();
  }
});
