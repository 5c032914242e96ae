import { readFileSync } from 'node:fs';
import {
  expect,
  logIn,
  openFromNav,
  saveScreenshotsInBothThemes,
  test,
  waitForPage,
} from './support/fixtures.ts';

test('a gateway simulation made from the sample template runs from the UI and its devices’ charts move', async ({
  page,
}) => {
  test.setTimeout(90_000);
  await logIn(page);
  await openFromNav(page, 'gateways');
  await expect(page.getByTestId('simulations-table')).toContainText('No simulations yet');

  // the sample template, with a short period and two devices per gateway
  await page.getByTestId('new-simulation').click();
  const form = page.getByTestId('new-simulation-form');
  await expect(form.getByRole('radio', { name: 'Smart building (sample)' })).toBeChecked();
  const period = form.getByRole('textbox', { name: 'Telemetry period (ms)' });
  // a period below the minimum is refused inline, naming the field
  await period.fill('5');
  await expect(form).toContainText('periodMs');
  await expect(page.getByTestId('create-simulation')).toBeDisabled();
  await period.fill('250');
  await form.getByRole('textbox', { name: 'Devices per gateway' }).fill('2');
  await page.getByTestId('create-simulation').click();

  await waitForPage(page, 'simulation');
  const detail = page.getByTestId('simulation-detail');
  await expect(page.getByTestId('simulation-name')).toHaveText('Smart building gateways');
  await expect(detail).toHaveAttribute('data-state', 'stopped');

  // the scenario editor names the JSON path of each problem, in the form and in the JSON view
  await page.getByTestId('tab-scenario').click();
  const editor = page.getByTestId('scenario-editor');
  const periodB = editor.locator('input[data-path="gateways[1].periodMs"]');
  await expect(periodB).toHaveValue('250');
  await periodB.fill('5');
  await expect(page.getByTestId('scenario-issues')).toContainText('gateways[1].periodMs');
  await expect(page.getByTestId('save-scenario')).toBeDisabled();
  await periodB.fill('300');
  await expect(page.getByTestId('scenario-issues')).toHaveCount(0);
  await editor.getByText('JSON', { exact: true }).click();
  const json = page.getByTestId('scenario-json');
  await json.fill((await json.inputValue()).replace('"min": 19.5', '"min": "cold"'));
  await expect(page.getByTestId('scenario-issues')).toContainText(
    'gateways[0].keys[0].generator.min: must be a number',
  );
  await json.fill((await json.inputValue()).replace('"min": "cold"', '"min": 19'));
  await page.getByTestId('save-scenario').click();
  await expect(editor).toContainText('Building A Gateway');
  await expect(page.getByTestId('save-scenario')).toBeDisabled();
  await page.getByTestId('tab-live').click();

  // this run spreads the two gateways over two worker threads
  await page.getByRole('button', { name: 'Start with limits' }).click();
  await page.getByRole('textbox', { name: 'Worker threads' }).fill('2');
  await page.getByRole('button', { name: 'Start with these limits' }).click();
  await expect(detail).toHaveAttribute('data-state', 'running', { timeout: 20_000 });

  // live counters and the rate chart move
  const acknowledged = page.getByTestId('sim-acknowledged');
  await expect
    .poll(async () => Number((await acknowledged.textContent())?.replace(/\D/g, '')), {
      timeout: 15_000,
    })
    .toBeGreaterThan(20);
  await expect(page.getByTestId('sim-failed')).toHaveText('0');
  await expect(page.getByTestId('simulation-chart').locator('path.recharts-line-curve')).toHaveCount(3);
  const rows = page.getByTestId('gateway-status-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.first().getByTestId('gateway-devices')).toHaveText('2 / 2');
  // the simulator's cost, per worker thread
  const threads = page.getByTestId('simulator-thread');
  await expect(threads).toHaveCount(2);
  await expect(threads.nth(1)).toContainText('worker 2');
  await expect(page.getByTestId('simulator-cost')).toContainText('CPU per value');
  await saveScreenshotsInBothThemes(page, 'simulation-running');

  // open a simulated device: its chart draws what the simulator sends, live
  await page.getByRole('button', { name: 'Show the devices of Building A Gateway' }).click();
  await page.getByTestId('simulated-device-link').filter({ hasText: 'Building A Floor 1 Climate' }).click();
  await waitForPage(page, 'device');
  await expect(page.getByTestId('device-name')).toHaveText('Building A Floor 1 Climate');
  await expect(page.getByTestId('device-detail')).toHaveAttribute('data-following', 'true');
  const chart = page.getByTestId('telemetry-chart');
  await expect(chart.locator('path.recharts-line-curve')).toHaveCount(3);
  const points = async () => Number(await chart.getAttribute('data-points'));
  const before = await points();
  await expect.poll(points, { timeout: 15_000 }).toBeGreaterThan(before + 6);

  // the device's RPC console reaches the simulator's responder (getState echoes its params)
  const rpc = page.getByTestId('rpc-console');
  await rpc.getByRole('textbox', { name: 'Method' }).fill('getState');
  await rpc.getByRole('textbox', { name: 'Params (JSON)' }).fill('{"probe": 7}');
  await page.getByTestId('send-rpc').click();
  await expect(page.getByTestId('rpc-outcome')).toHaveAttribute('data-outcome', 'ok');
  await expect(page.getByTestId('rpc-answer')).toContainText('"probe": 7');

  // back on the simulation: the RPC log shows it, then stop
  await page.goBack();
  await waitForPage(page, 'simulation');
  await expect(page.getByTestId('rpc-log')).toContainText('getState');
  await page.getByTestId('stop-simulation').click();
  await expect(detail).toHaveAttribute('data-state', 'stopped', { timeout: 20_000 });

  // export the scenario as a file, and import that file as a new simulation
  const downloading = page.waitForEvent('download');
  await page.getByTestId('export-simulation').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('Smart-building-gateways.json');
  const file = await download.path();
  const exported = JSON.parse(readFileSync(file, 'utf8')) as {
    name: string;
    gateways: { periodMs: number }[];
  };
  expect(exported.name).toBe('Smart building gateways');
  expect(exported.gateways[1]!.periodMs).toBe(300);
  await openFromNav(page, 'gateways');
  const choosing = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Import scenario file' }).click();
  await (await choosing).setFiles(file);
  await waitForPage(page, 'simulation');
  await expect(page.getByTestId('simulation-name')).toHaveText('Smart building gateways (2)');
});
