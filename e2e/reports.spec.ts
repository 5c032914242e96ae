import { execFileSync, spawnSync } from 'node:child_process';
import { expect, logIn, openFromNav, saveScreenshotsInBothThemes, test } from './support/fixtures.ts';

interface Report {
  columnLabels: string[];
  dataTable: Record<string, string | number | null>[];
}

const DAY = 86_400_000;
const pad = (n: number) => String(n).padStart(2, '0');
/** What a datetime-local input takes, in this machine's time zone (the browser's). */
const localInput = (d: Date) =>
  `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;

/** Runs the shown curl command (a shell, as a person would); without curl, the same request with fetch. */
async function runCurl(command: string): Promise<Report> {
  if (spawnSync('curl', ['--version']).status === 0)
    return JSON.parse(
      execFileSync('sh', ['-c', `${command} --silent --show-error`], { encoding: 'utf8' }),
    ) as Report;
  const url = /curl -X POST '([^']+)'/.exec(command)![1]!;
  const body = /-d '(.+)'$/m.exec(command)![1]!.replaceAll(`'\\''`, "'");
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Report;
}

test('the smart-building demo loads, a view built in the UI is charted, and its curl answers the preview', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await logIn(page);
  await openFromNav(page, 'reports');

  // a fresh install offers the demo data; its progress runs to the end
  const demo = page.getByTestId('demo-card');
  await expect(demo).toHaveAttribute('data-state', 'NOT_LOADED');
  await expect(page.getByTestId('table-views')).toContainText('No saved views yet');
  await saveScreenshotsInBothThemes(page, 'reports-fresh');
  await page.getByTestId('load-demo').click();
  await expect(page.getByTestId('demo-loaded')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('table-view-link')).toHaveCount(3);

  // build a view: energy use per building per day over the last five whole days
  await page.getByTestId('new-view').click();
  await page.getByTestId('view-name').fill('Energy per building per day');
  // a fresh form is not an error: no measure yet is a hint, not red, and options read as words
  const hint = page.getByTestId('measures-hint');
  await expect(hint).toBeVisible();
  const hintColor = await hint.evaluate((el) => getComputedStyle(el).color);
  expect(hintColor).not.toMatch(/^rgb\((2[0-5]\d|1\d\d), \d{1,2}, \d{1,2}\)$/);
  await page.getByRole('combobox', { name: 'Device profiles' }).click();
  await page.getByRole('option', { name: 'Energy Meter' }).click();
  await page.keyboard.press('Escape');
  await page.getByRole('combobox', { name: 'Dimension 1 field' }).click();
  await page.getByRole('option', { name: 'Attribute' }).click();
  await page.getByRole('combobox', { name: 'Dimension 1 attribute key' }).fill('building');
  await page.getByRole('textbox', { name: 'Dimension 1 label' }).fill('Building');
  await expect(page.getByRole('combobox', { name: 'Date grouping' })).toHaveValue('Date');
  await page.getByTestId('add-measure').click();
  await page.getByRole('combobox', { name: 'Measure 1 key' }).fill('energyUsage');
  await page.keyboard.press('Escape');
  await page.getByRole('combobox', { name: 'Measure 1 aggregation' }).click();
  await page.getByRole('option', { name: 'Total (sum)' }).click();
  await page.getByRole('textbox', { name: 'Measure 1 label' }).fill('Energy, kWh');
  await page.getByTestId('view-range-type').getByText('Fixed').click();
  const end = new Date();
  end.setHours(0, 0, 0, 0);
  const start = new Date(end.getTime() - 5 * DAY);
  await page.getByTestId('view-range-start').fill(localInput(start));
  await page.getByTestId('view-range-end').fill(localInput(end));

  // the live preview: three buildings, a row per building and day
  const preview = page.getByTestId('report-preview');
  await expect(page.getByTestId('preview-table').locator('thead th')).toHaveText([
    'Building',
    'Date',
    'Energy, kWh',
  ]);
  await expect(preview).toHaveAttribute('data-rows', /^(15|18)$/);
  await expect(page.getByTestId('preview-table')).toContainText('Building C');
  // which dates are which: readable here, epoch-ms strings from the API
  await expect(page.getByTestId('date-column-note')).toContainText('epoch-ms strings');

  // the chart: a series per building, as bars, stacked bars and lines
  const chart = page.getByTestId('report-chart');
  await expect(chart).toHaveAttribute('data-series', '3');
  await expect(chart.locator('.recharts-bar-rectangle').first()).toBeVisible();
  await chart.getByTestId('chart-type').getByText('Stacked').click();
  await expect(chart).toHaveAttribute('data-type', 'stacked');
  await chart.getByTestId('chart-type').getByText('Line').click();
  await expect(chart.locator('path.recharts-line-curve')).toHaveCount(3);
  await chart.getByTestId('chart-type').getByText('Bar').click();

  // saved, it has an API call: the exact curl with a token
  await expect(page.getByTestId('api-call-unsaved')).toBeVisible();
  await page.getByTestId('save-view').click();
  await expect(page.getByTestId('table-view-link')).toHaveCount(4);
  await expect(page.getByTestId('editing-title')).toHaveText('Energy per building per day');
  const curl = page.getByTestId('api-curl');
  await expect(curl).toContainText("/apiTrendz/publicApi/buildReport' \\");
  // the login token is not on screen: masked, copied whole
  await expect(curl).toContainText(/-H 'jwt: eyJ\w{0,4}••••••••'/);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByRole('button', { name: 'Copy curl command' }).click();
  const command = await page.evaluate(() => navigator.clipboard.readText());
  // the token travels in the jwt header, never in the URL
  expect(command).toMatch(/-H 'jwt: eyJ[\w.-]+'/);
  expect(command).not.toContain('?jwt=');
  expect(command).toContain("-H 'Content-Type: application/json'");
  await saveScreenshotsInBothThemes(page, 'reports-view');

  // the curl answers exactly what the preview shows
  await page.getByTestId('preview-view').getByText('JSON').click();
  const shown = JSON.parse((await page.getByTestId('preview-json').textContent())!) as Report;
  const answered = await runCurl(command);
  expect(answered.columnLabels).toEqual(['Building', 'Date', 'Energy, kWh']);
  expect(answered).toEqual(shown);
  expect(answered.dataTable.length).toBeGreaterThanOrEqual(15);

  // and so does the same call run from the page
  await page.getByTestId('run-api-call').click();
  await expect(page.getByTestId('api-run-match')).toHaveText('same rows as the preview');
  await expect(page.getByTestId('api-date-note')).toContainText('epoch-ms strings (as in Trendz)');

  // exports: CSV and JSON of the result
  const download = page.waitForEvent('download');
  await page.getByTestId('export-csv').click();
  const csv = await download;
  expect(csv.suggestedFilename()).toBe('Energy-per-building-per-day.csv');
});

for (const size of [
  { width: 1920, height: 1080, beside: true },
  { width: 1280, height: 720, beside: false },
]) {
  test(`at ${size.width}x${size.height} the preview is ${size.beside ? 'beside' : 'under'} the form`, async ({
    page,
  }) => {
    await page.setViewportSize(size);
    await logIn(page);
    await openFromNav(page, 'reports');
    await page.getByTestId('new-view').click();
    const form = (await page.getByTestId('view-builder').boundingBox())!;
    const preview = (await page.getByTestId('report-preview').boundingBox())!;
    if (size.beside) {
      expect(preview.x).toBeGreaterThanOrEqual(form.x + form.width);
      expect(preview.y).toBeLessThan(form.y + form.height / 2);
    } else {
      expect(preview.y).toBeGreaterThanOrEqual(form.y + form.height);
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
}
