import { readFileSync } from 'node:fs';
import { expect, logIn, test, waitForPage } from './support/fixtures.ts';

test('the smart building demo draws a distinct temperature line per floor; Stop after is in seconds; sent is drawn over acknowledged', async ({
  page,
  rest,
}) => {
  test.setTimeout(120_000);
  const scenario = JSON.parse(
    readFileSync(new URL('../shared/scenarios/smart-building-gateway.json', import.meta.url), 'utf8'),
  ) as { gateways: { devicesCount: number; periodMs: number }[]; durationMs?: number };
  scenario.gateways = scenario.gateways.slice(0, 1);
  scenario.gateways[0]!.devicesCount = 2;
  scenario.gateways[0]!.periodMs = 250;
  scenario.durationMs = 90_000;
  const auth = `Bearer ${await rest.login()}`;
  const created = await rest.request('/api/sandboard/simulations', { method: 'POST', json: scenario, auth });
  expect(created.status, await created.clone().text()).toBe(200);
  const { id } = (await created.json()) as { id: string };

  await logIn(page);
  await page.goto(`/gateways/${id}`);
  await waitForPage(page, 'simulation');
  // one unit, named: the scenario's durationMs shows in seconds, as in the Start menu
  await page.getByTestId('tab-scenario').click();
  await expect(page.getByRole('textbox', { name: 'Stop after (seconds)' })).toHaveValue('90');
  await page.getByRole('button', { name: 'Start with limits' }).click();
  await expect(page.getByRole('textbox', { name: 'Stop after (seconds)' }).last()).toBeVisible();
  await page.keyboard.press('Escape');
  await page.getByTestId('tab-live').click();

  await page.getByTestId('start-simulation').click();
  await expect(page.getByTestId('simulation-detail')).toHaveAttribute('data-state', 'running', {
    timeout: 20_000,
  });
  // sent is drawn last, dashed, so it shows where it equals acknowledged
  const lines = page.getByTestId('simulation-chart').locator('path.recharts-line-curve');
  await expect(lines).toHaveCount(3);
  await expect(lines.last()).toHaveAttribute('stroke-dasharray', '6 4');

  // each floor's temperature, as its device page draws it (opened from the simulation's device list)
  const temperatureLine = async (device: string) => {
    await page.getByRole('button', { name: 'Show the devices of Building A Gateway' }).click();
    await page.getByTestId('simulated-device-link').filter({ hasText: device }).click();
    await waitForPage(page, 'device');
    await expect(page.getByTestId('device-name')).toHaveText(device);
    const chart = page.getByTestId('telemetry-chart');
    await expect
      .poll(async () => Number(await chart.getAttribute('data-points')), { timeout: 20_000 })
      .toBeGreaterThan(8);
    await expect(chart.locator('path.recharts-line-curve').first()).toBeVisible();
    const res = await rest.request(`/api/tenant/devices?deviceName=${encodeURIComponent(device)}`, { auth });
    const deviceId = ((await res.json()) as { id: { id: string } }).id.id;
    const keys = await rest.request(
      `/api/plugins/telemetry/DEVICE/${deviceId}/values/timeseries?keys=temperature&startTs=0&endTs=${Date.now()}&limit=8&useStrictDataTypes=true`,
      { auth },
    );
    await page.goBack();
    await waitForPage(page, 'simulation');
    return ((await keys.json()) as { temperature: { value: number }[] }).temperature.map((v) => v.value);
  };
  const floor1 = await temperatureLine('Building A Floor 1 Climate');
  const floor2 = await temperatureLine('Building A Floor 2 Climate');
  expect(floor1.length).toBe(8);
  expect(floor2).not.toEqual(floor1);
  // not merely shifted in time: the floors' ranges differ (their own offset and phase)
  expect(Math.abs(mean(floor1) - mean(floor2))).toBeGreaterThan(0.05);
  await rest.request(`/api/sandboard/simulations/${id}/stop`, { method: 'POST', auth });
});

const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
