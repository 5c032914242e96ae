import { expect, logIn, openFromNav, saveScreenshotsInBothThemes, test } from './support/fixtures.ts';

test('the Alarms page shows an alarm raised over REST live; acknowledge and clear it from the UI', async ({
  page,
  rest,
}) => {
  const jwt = await rest.login();
  const auth = `Bearer ${jwt}`;
  const device = (await (
    await rest.request('/api/device', { method: 'POST', json: { name: 'Boiler' }, auth })
  ).json()) as { id: { id: string } };

  await logIn(page);
  await openFromNav(page, 'alarms');
  await expect(page.getByTestId('alarm-count')).toHaveCount(0);
  await expect(page.getByTestId('alarms-table')).toContainText('No active alarms.');

  // raised by a script: the row and the navigation's count arrive without a reload
  const raised = await rest.request('/api/alarm', {
    method: 'POST',
    auth,
    json: { type: 'Overheat', severity: 'CRITICAL', originator: { entityType: 'DEVICE', id: device.id.id } },
  });
  expect(raised.status, await raised.clone().text()).toBe(200);
  const row = page.getByTestId('alarm-row').filter({ hasText: 'Overheat' });
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('alarm-severity')).toHaveText('CRITICAL');
  await expect(row.getByTestId('alarm-status')).toHaveAttribute('data-status', 'ACTIVE_UNACK');
  await expect(row.getByRole('link', { name: 'Boiler' })).toBeVisible();
  await expect(page.getByTestId('alarm-count')).toHaveText('1');
  await saveScreenshotsInBothThemes(page, 'alarms');

  await row.getByTestId('alarm-ack').click();
  await expect(row.getByTestId('alarm-status')).toHaveAttribute('data-status', 'ACTIVE_ACK');
  await expect(row.getByTestId('alarm-ack')).toHaveCount(0);

  await row.getByTestId('alarm-clear').click();
  // the page lists active alarms: the cleared one leaves it, and the count goes
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId('alarm-count')).toHaveCount(0);

  // with every status, it is there, cleared and acknowledged, as the API says
  await page.getByTestId('alarm-cleared-filter').getByText('All', { exact: true }).click();
  await expect(row.getByTestId('alarm-status')).toHaveAttribute('data-status', 'CLEARED_ACK');
  const stored = (await (
    await rest.request(`/api/alarm/DEVICE/${device.id.id}?pageSize=10&page=0`, { auth })
  ).json()) as { data: { status: string }[] };
  expect(stored.data.map((a) => a.status)).toEqual(['CLEARED_ACK']);

  // the device's page lists its alarms too
  await row.getByRole('link', { name: 'Boiler' }).click();
  const card = page.getByTestId('entity-alarms');
  await expect(card).toContainText('No active alarms.');
  await card.getByText('All', { exact: true }).click();
  await expect(card.getByTestId('alarm-row')).toHaveCount(1);
});
