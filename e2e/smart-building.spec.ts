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

  // the temperature wave goes above 28 °C a few seconds in and below 26 °C about 15 s in
  await openFromNav(page, 'alarms');
  const rows = page.getByTestId('alarm-row').filter({ hasText: 'High Temperature' });
  await expect(rows).toHaveCount(2, { timeout: 20_000 });
  await expect(rows.first().getByTestId('alarm-severity')).toHaveText('CRITICAL');
  await expect(rows.filter({ hasText: 'HQ Room Climate 1' })).toHaveCount(1);
  await expect(rows).toHaveCount(0, { timeout: 30_000 });

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
