import type { Locator, Page } from '@playwright/test';
import { expect, logIn, test, waitForPage } from './support/fixtures.ts';

const KEYS = ['temperature', 'humidity', 'co2', 'voltage'];

/** key → colour of the line drawn for it, read from the SVG */
async function lineColors(chart: Locator): Promise<Record<string, string>> {
  await expect(chart.locator('path.recharts-line-curve').first()).toBeVisible();
  return chart.evaluate((el) => {
    const out: Record<string, string> = {};
    for (const item of Array.from(el.querySelectorAll('.recharts-legend-item'))) {
      const name = item.querySelector('.recharts-legend-item-text')?.textContent ?? '';
      const stroke = item.querySelector('path, line')?.getAttribute('stroke') ?? '';
      out[name] = stroke;
    }
    return out;
  });
}

async function openDevice(page: Page, deviceId: string, scheme: 'light' | 'dark'): Promise<Locator> {
  await page.emulateMedia({ colorScheme: scheme });
  await page.goto(`/devices/${deviceId}`);
  await waitForPage(page, 'device');
  return page.getByTestId('telemetry-chart');
}

test('the device chart zooms to fresh data with several time labels, and each key keeps its colour', async ({
  page,
  rest,
}) => {
  const jwt = await rest.login();
  const auth = `Bearer ${jwt}`;
  const res = await rest.request('/api/device', { method: 'POST', json: { name: 'fresh' }, auth });
  const deviceId = ((await res.json()) as { id: { id: string } }).id.id;
  const now = Date.now();
  // a new device's first twenty seconds
  await rest.postTelemetry(
    jwt,
    deviceId,
    [20, 15, 10, 5, 0].map((ago, i) => ({
      ts: now - ago * 1000,
      values: Object.fromEntries(KEYS.map((k, j) => [k, 10 * j + i])),
    })),
  );
  await logIn(page);

  const chart = await openDevice(page, deviceId, 'light');
  await expect(chart).toHaveAttribute('data-points', '15');
  // the window starts at the data, not 15 minutes back: at most a couple of minutes wide
  const [from, to] = (await chart.getAttribute('data-window'))!.split(',').map(Number) as [number, number];
  expect(from).toBeGreaterThanOrEqual(now - 21_000);
  expect(to - from).toBeLessThanOrEqual(2 * 60_000);
  const ticks = chart.locator('.recharts-cartesian-axis-tick-label').filter({ hasText: /\d:\d\d/ });
  await expect.poll(() => ticks.count()).toBeGreaterThanOrEqual(4);
  expect(new Set(await ticks.allTextContents()).size).toBe(await ticks.count());
  await expect(page.getByTestId('chart-zoomed')).toBeVisible();

  // colours: the same per key on a second load, in both themes, whatever else is drawn
  const light = await lineColors(chart);
  expect(Object.keys(light)).toHaveLength(3);
  expect(new Set(Object.values(light)).size).toBe(3);
  await openDevice(page, deviceId, 'light');
  expect(await lineColors(chart)).toEqual(light);
  const dark = await lineColors(await openDevice(page, deviceId, 'dark'));
  await openDevice(page, deviceId, 'dark');
  expect(await lineColors(chart)).toEqual(dark);
  expect(Object.keys(dark)).toEqual(Object.keys(light));

  // take the first key off the chart: the others keep their colours
  const [firstKey, ...others] = Object.keys(dark);
  await page.getByRole('combobox', { name: 'Keys to chart' }).click();
  await page.getByRole('option', { name: firstKey! }).click();
  await page.keyboard.press('Escape');
  await expect(chart.locator('path.recharts-line-curve')).toHaveCount(2);
  expect(await lineColors(chart)).toEqual(Object.fromEntries(others.map((k) => [k, dark[k]])));
});

test('the chart breaks its line at a gap, lists a text key apart, and a timestamp attribute reads as a date (both sizes)', async ({
  page,
  rest,
}) => {
  test.setTimeout(120_000);
  const jwt = await rest.login();
  const auth = `Bearer ${jwt}`;
  const device = await rest.newDevice(jwt, 'Gappy');
  const now = Date.now();
  // every 10 s for two minutes, seven minutes of nothing, then every 10 s again
  const ts = [
    ...Array.from({ length: 12 }, (_, i) => now - 11 * 60_000 + i * 10_000),
    ...Array.from({ length: 12 }, (_, i) => now - 2 * 60_000 + i * 10_000),
  ];
  await rest.postTelemetry(
    jwt,
    device.id,
    ts.map((t, i) => ({ ts: t, values: { temperature: 20 + (i % 5), status: i % 2 ? 'heating' : 'idle' } })),
  );
  const lastConnect = now - 3_600_000;
  const res = await rest.request(`/api/plugins/telemetry/DEVICE/${device.id}/attributes/SHARED_SCOPE`, {
    method: 'POST',
    json: { lastConnectTime: lastConnect },
    auth,
  });
  expect(res.status).toBe(200);
  await logIn(page);
  for (const size of [
    { width: 1280, height: 720 },
    { width: 1920, height: 1080 },
  ]) {
    await page.setViewportSize(size);
    const chart = await openDevice(page, device.id, 'light');
    await expect(chart).toHaveAttribute('data-segments', '0:temperature 1:temperature');
    // two pieces of one line: nothing drawn across the seven minutes
    const curves = chart.locator('path.recharts-line-curve');
    await expect(curves).toHaveCount(2);
    // the first piece ends left of where the second begins (in the chart's own coordinates)
    const [a, b] = await curves.evaluateAll((els) =>
      (els as SVGGraphicsElement[]).map((e) => {
        const box = e.getBBox();
        return { left: box.x, right: box.x + box.width };
      }),
    );
    expect(a!.right).toBeLessThan(b!.left);
    // the text key is listed with its latest value, not in the legend
    await expect(chart.locator('.recharts-legend-item-text')).toHaveText(['temperature']);
    await expect(page.getByTestId('chart-text-keys').locator('tr[data-key="status"]')).toContainText(
      'heating',
    );
    // a time attribute shows as a date, the raw number on hover
    const value = page
      .getByTestId('attributes-SHARED_SCOPE')
      .locator('tr[data-key="lastConnectTime"]')
      .getByTestId('timestamp-value');
    await expect(value).toHaveAttribute('title', `${lastConnect} (epoch ms)`);
    await expect(value).not.toHaveText(String(lastConnect));
    await expect(value).toHaveText(/\d\d:\d\d:\d\d/);
  }

  // the Overview's rate chart ends now, not a minute ahead
  await page.goto('/overview');
  await waitForPage(page, 'overview');
  const rate = page.getByTestId('rate-chart');
  await expect(rate).toBeVisible({ timeout: 20_000 });
  const [, to] = (await rate.getAttribute('data-window'))!.split(',').map(Number) as [number, number];
  expect(to).toBeLessThanOrEqual((await page.evaluate(() => Date.now())) + 1_000);
});
