import mqtt from 'mqtt';
import {
  expect,
  logIn,
  openFromNav,
  saveScreenshot,
  saveScreenshotsInBothThemes,
  test,
  waitForPage,
} from './support/fixtures.ts';

test('the rule chain editor adds a push to edge node after Save Timeseries, validates it, saves it', async ({
  page,
  rest,
  sandboard,
}) => {
  test.setTimeout(90_000);
  const jwt = await rest.login();
  const res = await rest.request('/api/device', {
    method: 'POST',
    json: { name: 'chain-probe' },
    auth: `Bearer ${jwt}`,
  });
  const deviceId = ((await res.json()) as { id: { id: string } }).id.id;
  // an edge the device is assigned to, so the push to edge node has somewhere to push
  const edge = await rest.request('/api/edge', {
    method: 'POST',
    json: { name: 'probe edge' },
    auth: `Bearer ${jwt}`,
  });
  const edgeId = ((await edge.json()) as { id: { id: string } }).id.id;
  const assigned = await rest.request(`/api/edge/${edgeId}/device/${deviceId}`, {
    method: 'POST',
    auth: `Bearer ${jwt}`,
  });
  expect(assigned.status).toBe(200);

  await logIn(page);
  await openFromNav(page, 'rule-chains');
  const nodes = page.getByTestId('rule-node');
  await expect(nodes).toHaveCount(6);
  const node = (name: string) => page.locator(`[data-testid="rule-node"][data-name="${name}"]`);

  // select Save Timeseries, then add a push to edge node: it is placed after it
  await node('Save Timeseries').click();
  await expect(page.getByTestId('node-panel')).toHaveAttribute('data-node', 'Save Timeseries');
  await page.getByTestId('add-node').click();
  await page.getByRole('menuitem', { name: 'Push to edge' }).click();
  await expect(nodes).toHaveCount(7);
  const panel = page.getByTestId('node-panel');
  await expect(panel).toHaveAttribute('data-node', 'Push to edge');

  // an invalid configuration is shown inline, in the generated form and on the graph
  const configJson = panel.getByTestId('node-config-json');
  await configJson.fill('{"scope": "SERVER_SCOPE", "color": "red"}');
  await expect(panel.getByTestId('node-config-general-error')).toHaveText("'color' is not allowed here");
  await configJson.fill('{}');
  await expect(panel.getByTestId('node-config-form')).toContainText('is required');
  await expect(node('Push to edge')).toHaveAttribute('data-problem', 'true');
  // the server refuses it too, naming the node: its message shows next to the node
  await page.getByTestId('save-chain').click();
  await expect(panel.getByTestId('node-server-error')).toContainText(
    "nodes[6].configuration (Push to edge): 'scope' is required",
  );
  await saveScreenshot(page, 'rule-chain-invalid');

  // a valid configuration from the scope dropdown, debug on
  await panel.locator('[data-config-key="scope"]').click();
  await page.getByRole('option', { name: 'SERVER_SCOPE' }).click();
  await expect(panel.getByTestId('node-config-form')).not.toContainText('is required');
  await expect(node('Push to edge')).toHaveAttribute('data-problem', 'false');
  await panel.getByTestId('node-debug').check();

  // connect Save Timeseries → Push to edge with Success, from the source's panel
  await node('Save Timeseries').click();
  const source = page.getByTestId('node-panel');
  await expect(source).toHaveAttribute('data-node', 'Save Timeseries');
  await expect(source.getByTestId('connection-relation')).toHaveValue('Success');
  await source.getByTestId('connection-target').click();
  await page.getByRole('option', { name: 'Push to edge' }).click();
  await source.getByTestId('connect-nodes').click();
  await expect(page.locator('[data-testid="rule-chain-arrow"][data-relation="Success"]')).toHaveCount(1);

  // keyboard: the focused node moves with the arrow keys
  const before = await node('Push to edge').getAttribute('transform');
  await node('Push to edge').focus();
  await page.keyboard.press('Shift+ArrowDown');
  await expect(node('Push to edge')).not.toHaveAttribute('transform', before!);

  await page.getByTestId('save-chain').click();
  await expect(page.getByTestId('chain-saved')).toBeVisible();
  await expect(page.getByTestId('chain-editor')).toHaveAttribute('data-dirty', 'false');

  // after a reload the node is there, connected, and its debug panel records a message
  await page.reload();
  await waitForPage(page, 'rule-chains');
  await expect(nodes).toHaveCount(7);
  await expect(page.locator('[data-testid="rule-chain-arrow"][data-relation="Success"]')).toHaveCount(1);
  await node('Push to edge').click();
  await expect(page.getByTestId('node-panel').getByTestId('node-debug')).toBeChecked();
  // device telemetry (MQTT: POST_TELEMETRY_REQUEST) goes Message Type Switch → Save Timeseries → here
  const credentials = await rest.request(`/api/device/${deviceId}/credentials`, { auth: `Bearer ${jwt}` });
  const token = ((await credentials.json()) as { credentialsId: string }).credentialsId;
  const device = await mqtt.connectAsync(sandboard.urls.mqtt, { username: token, reconnectPeriod: 0 });
  try {
    await device.publishAsync('v1/devices/me/telemetry', JSON.stringify({ temperature: 21.5 }), { qos: 1 });
  } finally {
    await device.endAsync();
  }
  const events = page.getByTestId('debug-event');
  await expect(events.filter({ hasText: 'POST_TELEMETRY_REQUEST' }).first()).toBeVisible();
  await expect(page.locator('[data-testid="debug-event"][data-direction="OUT"]')).toContainText('Success');
  await saveScreenshotsInBothThemes(page, 'rule-chain-editor');
});

test('a script node form tests its script on a sample message in the sandbox', async ({ page }) => {
  test.setTimeout(90_000);
  await logIn(page);
  await openFromNav(page, 'rule-chains');
  const nodes = page.getByTestId('rule-node');
  await expect(nodes).toHaveCount(6);
  await page.locator('[data-testid="rule-node"][data-name="Save Timeseries"]').click();
  await page.getByTestId('add-node').click();
  await page.getByRole('menuitem', { name: 'Script Filter' }).click();
  await expect(nodes).toHaveCount(7);
  const panel = page.getByTestId('node-panel');
  await expect(panel).toHaveAttribute('data-node', 'Script Filter');

  // ThingsBoard's default TBEL filter, run on the sample telemetry (temperature 22.4)
  const source = panel.getByTestId('script-source');
  await expect(source).toHaveValue('return msg.temperature > 20;');
  await panel.getByTestId('script-test-toggle').click();
  await panel.getByTestId('script-test-run').click();
  await expect(panel.getByTestId('script-test-output')).toHaveText('true');

  await source.fill('return msg.temperature > 30;');
  await panel.getByTestId('script-test-run').click();
  await expect(panel.getByTestId('script-test-output')).toHaveText('false');

  // what TBEL does not have is refused with the line and the construct
  await source.fill('var t = msg.temperature;\nreturn t === 22.4;');
  await panel.getByTestId('script-test-run').click();
  await expect(panel.getByTestId('script-test-error')).toContainText(
    "line 2: '===' is JavaScript; TBEL compares with == (at '===')",
  );
  await saveScreenshotsInBothThemes(page, 'rule-chain-script-test');
});

test('an imported chain with a node class Sandboard does not run shows it as unsupported; the palette offers every node type', async ({
  page,
  rest,
}) => {
  const jwt = await rest.login();
  const node = (type: string, name: string, x: number) => ({
    type,
    name,
    configurationVersion: 0,
    configuration: { version: 0 },
    additionalInfo: { layoutX: x, layoutY: 150 },
  });
  const imported = await rest.request('/api/sandboard/ruleChain/import', {
    method: 'POST',
    auth: `Bearer ${jwt}`,
    json: {
      ruleChain: {
        name: 'From a PE tenant',
        type: 'CORE',
        root: false,
        debugMode: false,
        configuration: null,
        additionalInfo: null,
      },
      metadata: {
        firstNodeIndex: 0,
        nodes: [
          node('org.thingsboard.rule.engine.filter.TbMsgTypeSwitchNode', 'Switch', 100),
          node('org.thingsboard.rule.engine.integration.TbIntegrationDownlinkNode', 'Downlink', 450),
        ],
        connections: [{ fromIndex: 0, toIndex: 1, type: 'Post telemetry' }],
        ruleChainConnections: null,
      },
    },
  });
  expect(imported.status).toBe(200);
  const types = (await (
    await rest.request('/api/ruleNode/types', { auth: `Bearer ${jwt}` })
  ).json()) as unknown[];

  await logIn(page);
  await openFromNav(page, 'rule-chains');
  await page.getByRole('combobox', { name: 'Rule chain' }).click();
  await page.getByRole('option', { name: 'From a PE tenant' }).click();
  await expect(page.getByTestId('rule-chain-name')).toHaveText('From a PE tenant');
  const downlink = page.locator('[data-testid="rule-node"][data-name="Downlink"]');
  await expect(downlink).toContainText('Unsupported: TbIntegrationDownlinkNode');
  await expect(downlink).toHaveAttribute('data-problem', 'true');
  await downlink.click();
  await expect(page.getByTestId('node-unsupported')).toContainText(
    'org.thingsboard.rule.engine.integration.TbIntegrationDownlinkNode',
  );

  await page.getByTestId('add-node').click();
  await expect(page.locator('[data-testid^="palette-"]')).toHaveCount(types.length);
});
