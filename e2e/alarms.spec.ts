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

test('an alarm opens on click: originator by name, details, times, duration and comments; the list shows when it cleared', async ({
  page,
  rest,
}) => {
  const auth = `Bearer ${await rest.login()}`;
  const device = (await (
    await rest.request('/api/device', {
      method: 'POST',
      json: { name: 'Thermostat 7', label: 'Classroom thermostat' },
      auth,
    })
  ).json()) as { id: { id: string } };
  const raised = await rest.request('/api/alarm', {
    method: 'POST',
    auth,
    json: {
      type: 'Too warm',
      severity: 'MAJOR',
      originator: { entityType: 'DEVICE', id: device.id.id },
      details: { temperature: 31.5, threshold: 28 },
    },
  });
  expect(raised.status, await raised.clone().text()).toBe(200);

  await logIn(page);
  await openFromNav(page, 'alarms');
  const row = page.getByTestId('alarm-row').filter({ hasText: 'Too warm' });
  // the list names the originator as every other page does: by name, not label
  await expect(row.getByRole('link', { name: 'Thermostat 7' })).toBeVisible();
  await expect(row).not.toContainText('Classroom thermostat');
  await expect(row.getByTestId('alarm-cleared-time')).toHaveText('—');

  await row.getByText('Too warm').click();
  const details = page.getByTestId('alarm-details-body');
  await expect(details.getByTestId('alarm-originator')).toHaveText('Thermostat 7');
  expect(JSON.parse((await details.getByTestId('alarm-details-json').textContent())!)).toEqual({
    temperature: 31.5,
    threshold: 28,
  });
  await expect(details.getByTestId('alarm-start')).not.toHaveText('—');
  await expect(details.getByTestId('alarm-duration')).toContainText('so far');
  await expect(details.getByTestId('alarm-ack-time')).toHaveText('—');
  await expect(details.getByTestId('alarm-comments')).toContainText('No comments yet.');

  // a comment, then acknowledge: ThingsBoard's system comment follows it
  await details.getByTestId('alarm-comment-text').fill('Window open in room 12');
  await details.getByTestId('alarm-comment-add').click();
  const comments = details.getByTestId('alarm-comment');
  await expect(comments).toHaveCount(1);
  await expect(comments.first()).toContainText('tenant@thingsboard.org');
  await expect(comments.first()).toContainText('Window open in room 12');
  await details.getByTestId('alarm-details-ack').click();
  await expect(details.getByTestId('alarm-ack-time')).not.toHaveText('—');
  await expect(comments).toHaveCount(2);
  await expect(comments.nth(1)).toHaveAttribute('data-type', 'SYSTEM');
  await expect(comments.nth(1)).toContainText('Alarm was acknowledged by user tenant@thingsboard.org');
  await details.getByTestId('alarm-details-clear').click();
  await expect(details.getByTestId('alarm-clear-time')).not.toHaveText('—');
  await expect(details.getByTestId('alarm-duration')).not.toContainText('so far');
  await expect(comments).toHaveCount(3);
  // the comments are the API's
  const api = (await (
    await rest.request(
      `/api/alarm/${(await details.getAttribute('data-alarm-id'))!}/comment?pageSize=10&page=0&sortProperty=createdTime&sortOrder=ASC`,
      { auth },
    )
  ).json()) as { data: { type: string; comment: { text: string } }[] };
  expect(api.data.map((c) => c.comment.text)).toEqual([
    'Window open in room 12',
    'Alarm was acknowledged by user tenant@thingsboard.org',
    'Alarm was cleared by user tenant@thingsboard.org',
  ]);
  await page.keyboard.press('Escape');

  await page.getByTestId('alarm-cleared-filter').getByText('All', { exact: true }).click();
  await expect(row.getByTestId('alarm-cleared-time')).not.toHaveText('—');
});
