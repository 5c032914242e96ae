import { expect, logIn, openFromNav, test, waitForPage } from './support/fixtures.ts';

test('the Smart building scenario started from the UI sets up its rooms, and its alarm rule raises and clears an alarm on the Alarms page', async ({
  page,
  rest,
}) => {
  test.setTimeout(90_000);
  await logIn(page);
  await openFromNav(page, 'gateways');
  await page.getByTestId('new-simulation').click();
  const form = page.getByTestId('new-simulation-form');
  await form.getByRole('radio', { name: 'Smart building: rooms and alarms' }).check();
  await form.getByRole('textbox', { name: 'Devices per gateway' }).fill('2');
  await page.getByTestId('create-simulation').click();
  await waitForPage(page, 'simulation');
  await expect(page.getByTestId('simulation-name')).toHaveText('Smart building');

  await page.getByTestId('start-simulation').click();
  const detail = page.getByTestId('simulation-detail');
  await expect(detail).toHaveAttribute('data-state', 'running', { timeout: 20_000 });

  // each room's temperature wave crosses 28 °C and then 26 °C within its 30 s period, at its own time
  await openFromNav(page, 'alarms');
  const rows = page.getByTestId('alarm-row').filter({ hasText: 'High Temperature' });
  const room1 = rows.filter({ hasText: 'HQ Room Climate 1' });
  const room2 = rows.filter({ hasText: 'HQ Room Climate 2' });
  await Promise.all([
    expect(room1).toHaveCount(1, { timeout: 35_000 }),
    expect(room2).toHaveCount(1, { timeout: 35_000 }),
  ]);
  await expect(rows.first().getByTestId('alarm-severity')).toHaveText('CRITICAL');
  await expect(room1).toHaveCount(0, { timeout: 35_000 });

  // the room of the first sensor has the cleared alarm, propagated to it; with two devices, rooms 201 and
  // 202 hold no sensor
  const auth = `Bearer ${await rest.login()}`;
  const get = async <T>(path: string) => (await (await rest.request(path, { auth })).json()) as T;
  const assetId = async (name: string) =>
    (await get<{ id: { id: string } }>(`/api/tenant/asset?assetName=${encodeURIComponent(name)}`)).id.id;
  const alarms = await get<{ data: { type: string; status: string }[] }>(
    `/api/alarm/ASSET/${await assetId('HQ Room 101')}?pageSize=10&page=0`,
  );
  expect(alarms.data).toContainEqual(
    expect.objectContaining({ type: 'High Temperature', status: 'CLEARED_UNACK' }),
  );
  expect(await get(`/api/relations?fromId=${await assetId('HQ Room 201')}&fromType=ASSET`)).toEqual([]);
});
