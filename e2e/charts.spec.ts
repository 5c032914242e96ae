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
