import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, logIn, openFromNav, saveScreenshot, test } from './support/fixtures.ts';

const records = [
  { kind: 'header', format: 'sandboard-recording', version: 1, name: 'meters', startedAt: 1 },
  { kind: 'device', t: 0, name: 'Meter A', type: 'default' },
  { kind: 'mqtt.connect', t: 1, device: 'Meter A', expect: { reasonCode: 0 } },
  {
    kind: 'mqtt.publish',
    t: 5,
    device: 'Meter A',
    direction: 'in',
    topic: 'v1/devices/me/telemetry',
    qos: 1,
    payload: '{"power":41.5,"state":"on"}',
    expect: { reasonCode: 0 },
  },
  {
    kind: 'http.request',
    t: 10,
    device: 'Meter A',
    method: 'POST',
    path: '/api/v1/{token}/telemetry',
    body: '{"voltage":230}',
    expect: { status: 200 },
  },
  { kind: 'expect.latest', t: 20, device: 'Meter A', values: { power: 41.5, voltage: 230 } },
  // the recording says "off": the replay shows it against what is stored
  { kind: 'expect.latest', t: 21, device: 'Meter A', values: { state: 'off' } },
  { kind: 'end', t: 30, records: 6, truncated: false },
];

test('the Replay page replays a recording file with a progress bar and shows expected against actual for each check', async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  mkdirSync(testInfo.outputDir, { recursive: true });
  const file = join(testInfo.outputDir, 'meters.ndjson');
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n'));
  await logIn(page);
  await openFromNav(page, 'replay');
  const chooser = page.waitForEvent('filechooser');
  await page.getByTestId('replay-pick-file').click();
  await (await chooser).setFiles(file);
  await expect(page.getByText('meters.ndjson')).toBeVisible();
  await page.getByTestId('replay-start').click();

  await expect(page.getByTestId('replay-state')).toHaveText('failed', { timeout: 60_000 });
  await expect(page.getByTestId('replay-sent')).toHaveText('2 / 2');
  // 3 answers and the first latest values as recorded, "state" not
  await expect(page.getByTestId('replay-passed')).toHaveText('4');
  await expect(page.getByTestId('replay-failed')).toHaveText('1');
  const failed = page.locator('[data-testid="replay-check"][data-state="failed"]');
  await expect(failed).toHaveCount(1);
  await expect(failed).toContainText('state: expected "off", got "on"');
  await expect(failed.getByTestId('replay-expected')).toContainText('"state": "off"');
  await expect(failed.getByTestId('replay-actual')).toContainText('"state": "on"');
  await expect(page.locator('[data-testid="replay-check"][data-state="passed"]')).toHaveCount(1);
  await saveScreenshot(page, 'replay-page');
});
