import { createHash } from 'node:crypto';
import type { Page } from '@playwright/test';
import {
  expect,
  logIn,
  openFromNav,
  saveScreenshot,
  test,
  waitForPage,
  watchConsole,
} from './support/fixtures.ts';

const figure = async (page: Page, testId: string) =>
  Number((await page.getByTestId(testId).textContent())?.replace(/\D/g, ''));

test('an OTA rollout from the UI: a package uploaded and assigned to a profile, a scenario’s OTA devices update, 2 of 10 failing on purpose by reason', async ({
  page,
  rest,
}) => {
  test.setTimeout(180_000);
  const problems = watchConsole(page);
  // the devices' profile, made from outside (the OTA page assigns packages to existing profiles)
  const jwt = await rest.login();
  const profile = await rest.request('/api/deviceProfile', {
    method: 'POST',
    json: { name: 'ota-sensor' },
    auth: `Bearer ${jwt}`,
  });
  expect(profile.status, await profile.clone().text()).toBe(200);

  await logIn(page);
  await openFromNav(page, 'ota');

  // upload a small package for the profile: its checksum is computed and shown
  const firmware = Buffer.alloc(48 * 1024, 0);
  for (let i = 0; i < firmware.length; i++) firmware[i] = (i * 31 + 7) & 0xff;
  const sha256 = createHash('sha256').update(firmware).digest('hex');
  await page.getByRole('textbox', { name: 'Title' }).fill('sensor-fw');
  await page.getByRole('textbox', { name: 'Version' }).fill('2.1');
  await page.getByRole('combobox', { name: 'Device profile' }).click();
  await page.getByRole('option', { name: 'ota-sensor' }).click();
  await page
    .locator('input[type="file"]')
    .setInputFiles({ name: 'sensor-fw.bin', mimeType: 'application/octet-stream', buffer: firmware });
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(page.getByTestId('ota-uploaded')).toContainText(`Uploaded sensor-fw 2.1: SHA256`);
  await expect(page.getByTestId('ota-uploaded')).toContainText(sha256);

  // assign it to the profile
  const row = page.getByRole('row').filter({ hasText: 'sensor-fw 2.1' });
  await row.getByRole('button', { name: 'Assign to profile' }).click();
  await expect(row.getByText('ota-sensor', { exact: true })).toBeVisible();
  await expect(row.getByRole('button', { name: 'Assign to profile' })).toBeDisabled();
  await expect(page.getByTestId('ota-rollout-devices')).toHaveText('0');

  // a simulation with 10 OTA devices of that profile, 20% failing by checksum and by download
  await openFromNav(page, 'gateways');
  await page.getByTestId('new-simulation').click();
  const form = page.getByTestId('new-simulation-form');
  await form.getByRole('textbox', { name: 'Devices per gateway' }).fill('1');
  await page.getByTestId('create-simulation').click();
  await waitForPage(page, 'simulation');
  await page.getByTestId('tab-scenario').click();
  await page.getByTestId('add-ota-devices').click();
  const ota = page.getByTestId('ota-fields');
  await ota.getByRole('textbox', { name: 'Devices' }).fill('10');
  await ota.getByRole('textbox', { name: 'Device profile' }).fill('ota-sensor');
  await ota.getByRole('textbox', { name: 'Failing on purpose (%)' }).fill('20');
  await expect(ota).toContainText('2 device(s) fail');
  // keyboard: the reasons are checkboxes
  await ota.getByRole('checkbox', { name: /^Download/ }).focus();
  await page.keyboard.press('Space');
  await expect(ota.getByRole('checkbox', { name: /^Checksum/ })).toBeChecked();
  await expect(ota.getByRole('checkbox', { name: /^Download/ })).toBeChecked();
  await expect(page.getByTestId('scenario-issues')).toHaveCount(0);
  await page.getByTestId('save-scenario').click();
  await expect(page.getByTestId('save-scenario')).toBeDisabled();

  await page.getByTestId('tab-live').click();
  await page.getByTestId('start-simulation').click();
  await expect(page.getByTestId('simulation-detail')).toHaveAttribute('data-state', 'running', {
    timeout: 30_000,
  });
  // the devices get the profile's package as they connect, and update themselves
  const card = page.getByTestId('simulation-ota');
  await expect(card).toBeVisible();
  await expect.poll(() => figure(page, 'ota-updated'), { timeout: 60_000 }).toBe(8);
  await expect(page.getByTestId('ota-failed')).toHaveText('2');
  await expect(page.getByTestId('ota-run-failures')).toContainText('Checksum verification failed');
  await expect(page.getByTestId('ota-run-failures')).toContainText('Failed to download firmware chunk');

  // the OTA page's rollout reaches its end: 8 UPDATED, 2 FAILED, one per reason
  await card.getByRole('link', { name: 'OTA updates page' }).click();
  await waitForPage(page, 'ota');
  await expect(page.getByTestId('ota-rollout-devices')).toHaveText('10');
  await expect(page.getByTestId('ota-rollout-updated')).toHaveText('8');
  await expect(page.getByTestId('ota-rollout-failed')).toHaveText('2');
  const failures = page.getByTestId('ota-rollout-failures');
  await expect(failures.getByRole('row')).toHaveCount(2);
  await expect(failures.getByRole('row').filter({ hasText: 'Checksum verification failed' })).toContainText(
    '1',
  );
  await expect(
    failures.getByRole('row').filter({ hasText: 'Failed to download firmware chunk' }),
  ).toContainText('1');
  await saveScreenshot(page, 'ota-rollout');

  // the run's report counts them once stopped
  await page.goBack();
  await waitForPage(page, 'simulation');
  await page.getByTestId('stop-simulation').click();
  await expect(page.getByTestId('report-ota')).toHaveText('8 / 10');
  expect(problems).toEqual([]);
});
