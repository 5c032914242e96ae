import { expect, logIn, openFromNav, saveScreenshotsInBothThemes, test } from './support/fixtures.ts';

test('add an asset, relate a device to it, and see the relation from both ends', async ({ page, rest }) => {
  const jwt = await rest.login();
  const auth = `Bearer ${jwt}`;
  await rest.request('/api/device', { method: 'POST', json: { name: 'Meter 1' }, auth });

  await logIn(page);
  await openFromNav(page, 'assets');
  await expect(page.getByTestId('assets-table')).toContainText('No assets yet');
  await page.getByTestId('add-asset').click();
  await page.getByTestId('asset-name').fill('Building A');
  await page.getByTestId('asset-type').fill('building');
  await page.getByTestId('asset-save').click();
  await expect(page.getByTestId('asset-name-title')).toHaveText('Building A');

  // Building A -Contains-> Meter 1
  const card = page.getByTestId('relations-card');
  const target = page.getByTestId('relation-target');
  await target.click();
  await target.fill('Meter');
  await page.getByRole('option', { name: 'Meter 1' }).click();
  await page.getByTestId('relation-add').click();
  const outgoing = card.getByTestId('relations-from').getByTestId('relation-row');
  await expect(outgoing).toHaveCount(1);
  await expect(outgoing).toContainText('Contains');
  await expect(outgoing).toContainText('Meter 1');

  // a server attribute of the asset
  await page.locator('input[name="attribute-key"]').fill('floors');
  await page.locator('input[name="attribute-value"]').fill('3');
  await page.getByTestId('save-attribute-SERVER_SCOPE').click();
  await expect(page.getByTestId('attributes-SERVER_SCOPE')).toContainText('floors');
  await saveScreenshotsInBothThemes(page, 'asset-detail');

  // the device's page shows the relation from the other end, and links back
  await outgoing.getByRole('link', { name: 'Meter 1' }).click();
  const incoming = page.getByTestId('relations-card').getByTestId('relations-to').getByTestId('relation-row');
  await expect(incoming).toContainText('Building A');
  await incoming.getByRole('link', { name: 'Building A' }).click();
  await expect(page.getByTestId('asset-name-title')).toHaveText('Building A');

  // what the UI made is what ThingsBoard's API answers
  const assets = (await (await rest.request('/api/tenant/assets?pageSize=10&page=0', { auth })).json()) as {
    data: { id: { id: string }; name: string; type: string }[];
  };
  expect(assets.data.map((a) => [a.name, a.type])).toEqual([['Building A', 'building']]);
  const relations = (await (
    await rest.request(`/api/relations?fromId=${assets.data[0]!.id.id}&fromType=ASSET`, { auth })
  ).json()) as { type: string; to: { entityType: string } }[];
  expect(relations.map((r) => [r.type, r.to.entityType])).toEqual([['Contains', 'DEVICE']]);
});
