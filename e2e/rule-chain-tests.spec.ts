import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, logIn, openFromNav, saveScreenshot, test, waitForPage } from './support/fixtures.ts';

const THERMOSTAT_FILE = fileURLToPath(
  new URL('./fixtures/thingsboard-thermostat-chain.json', import.meta.url),
);

const ruleNode = (page: Page, name: string) => page.locator(`[data-testid="rule-node"][data-name="${name}"]`);

const CASES = {
  version: 1,
  originator: { name: 'Thermostat under test', type: 'DEVICE' },
  cases: [
    {
      name: 'hot raises the alarm',
      input: { type: 'POST_TELEMETRY_REQUEST', data: { temperature: 64 } },
      expect: {
        relations: { 'Too hot': 'True', 'Raise High Temperature': 'Created' },
        alarms: { created: [{ type: 'High Temperature', severity: 'MAJOR' }] },
        latest: { temperature: 64 },
      },
    },
    {
      name: 'cool clears it, but the test expects True',
      input: { type: 'POST_TELEMETRY_REQUEST', data: { temperature: 20 } },
      expect: { relations: { 'Too hot': 'True' } },
    },
  ],
};

test('the Test tab runs cases against the chain, shows pass and fail per case and the way each message took', async ({
  page,
  rest,
}) => {
  test.setTimeout(150_000);
  await logIn(page);
  await openFromNav(page, 'rule-chains');
  const chooser = page.waitForEvent('filechooser');
  await page.getByTestId('import-chain').click();
  await (await chooser).setFiles(THERMOSTAT_FILE);
  await expect(page.getByTestId('rule-chain-name')).toHaveText('Thermostat alarms');
  await expect(page.getByTestId('rule-node')).toHaveCount(5);

  await page.getByTestId('tab-test').click();
  const panel = page.getByTestId('chain-test-panel');
  const editor = panel.getByTestId('chain-test-cases');
  // a malformed document says where, and cannot run
  await editor.fill(JSON.stringify({ version: 1, cases: [{ name: 'x', expect: {} }] }));
  await expect(panel).toContainText('cases[0].input: is required');
  await expect(panel.getByTestId('chain-test-run')).toBeDisabled();

  await editor.fill(JSON.stringify(CASES, null, 2));
  await panel.getByTestId('chain-test-run').click();
  await expect(panel.getByTestId('chain-test-summary')).toHaveText(/^1 passed, 1 failed/, {
    timeout: 30_000,
  });
  const rows = panel.getByTestId('chain-test-case');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveAttribute('data-passed', 'true');
  await expect(rows.nth(1)).toHaveAttribute('data-passed', 'false');
  await expect(rows.nth(1)).toContainText("node 'Too hot': expected it to emit True, it emitted False");

  // the failed case's way is on the graph at once: the filter, then the clear alarm node by False
  await expect(ruleNode(page, 'Too hot')).toHaveAttribute('data-traced', /\d/);
  await expect(ruleNode(page, 'Clear High Temperature')).toHaveAttribute('data-traced', /\d/);
  await expect(ruleNode(page, 'Raise High Temperature')).not.toHaveAttribute('data-traced', /\d/);
  // the passing case's way: by True to the alarm
  await rows.nth(0).getByTestId('chain-test-show').click();
  await expect(ruleNode(page, 'Raise High Temperature')).toHaveAttribute('data-traced', /\d/);
  await expect(ruleNode(page, 'Clear High Temperature')).not.toHaveAttribute('data-traced', /\d/);
  await expect(
    page.locator('[data-testid="rule-chain-arrow"][data-traced="true"][data-relation="True"]'),
  ).toHaveCount(1);
  await saveScreenshot(page, 'rule-chain-test-tab');

  // the cases stay with the chain (a reload keeps them), and the test left nothing in the data
  await page.reload();
  await waitForPage(page, 'rule-chains');
  await page
    .locator('[data-testid="chain-row"][data-name="Thermostat alarms"]')
    .getByTestId('chain-open')
    .click();
  await expect(page.getByTestId('rule-chain-name')).toHaveText('Thermostat alarms');
  await page.getByTestId('tab-test').click();
  await expect(page.getByTestId('chain-test-cases')).toHaveValue(/cool clears it, but the test expects True/);
  const jwt = await rest.login();
  const devices = await rest.request(
    `/api/tenant/devices?deviceName=${encodeURIComponent('Thermostat under test')}`,
    { auth: `Bearer ${jwt}` },
  );
  expect(devices.status).toBe(404);
});
