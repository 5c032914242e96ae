import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import mqtt from 'mqtt';
import type { Page } from '@playwright/test';
import {
  expect,
  logIn,
  openFromNav,
  saveScreenshot,
  saveScreenshotsInBothThemes,
  test,
  waitForPage,
} from './support/fixtures.ts';

const THERMOSTAT_FILE = fileURLToPath(
  new URL('./fixtures/thingsboard-thermostat-chain.json', import.meta.url),
);

const ruleNode = (page: Page, name: string) => page.locator(`[data-testid="rule-node"][data-name="${name}"]`);

/** Logs in and opens the editor on the root chain a new install has (its seven: the device profile node, then the message type switch and what follows). */
async function openRootChain(page: Page): Promise<void> {
  await logIn(page);
  await openFromNav(page, 'rule-chains');
  await expect(page.getByTestId('rule-node')).toHaveCount(7);
}

/** Adds a node from the palette: searches, then Enter adds the first match. */
async function addFromPalette(page: Page, search: string): Promise<void> {
  await page.getByTestId('add-node').click();
  const input = page.getByTestId('palette-search');
  await expect(input).toBeFocused();
  await input.fill(search);
  await input.press('Enter');
  await expect(page.getByTestId('palette-search')).toHaveCount(0);
  // the new node is selected and scrolled into the graph's view
  const added = page.locator('[data-testid="rule-node"][data-selected="true"]');
  await expect(added).toBeInViewport();
}

/** Drags from a node's output port onto another node, then picks the relations in the dialog. */
async function dragConnect(page: Page, from: string, to: string, relations: string[]): Promise<void> {
  const port = ruleNode(page, from).getByTestId('node-out-port');
  await port.scrollIntoViewIfNeeded();
  const a = (await port.boundingBox())!;
  const b = (await ruleNode(page, to).boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 12 });
  await expect(page.getByTestId('pending-connection')).toBeAttached();
  await page.mouse.up();
  const dialog = page.getByTestId('connect-dialog');
  const input = dialog.getByTestId('relation-input');
  await expect(input).toBeVisible();
  await input.click();
  // the dialog proposes the node's first relation; the test says which ones it wants
  for (let i = 0; i < 10 && (await dialog.locator('.mantine-Pill-root').count()) > 0; i++)
    await input.press('Backspace');
  for (const r of relations) {
    await input.fill(r);
    await input.press('Enter');
  }
  await input.press('Enter');
  await expect(dialog).toHaveCount(0);
}

async function publish(url: string, token: string, values: Record<string, unknown>): Promise<void> {
  const device = await mqtt.connectAsync(url, { username: token, reconnectPeriod: 0 });
  try {
    await device.publishAsync('v1/devices/me/telemetry', JSON.stringify(values), { qos: 1 });
  } finally {
    await device.endAsync();
  }
}

test('build a chain by dragging in the editor, test its script, watch debug events IN and OUT and follow a message', async ({
  page,
  rest,
  sandboard,
}) => {
  test.setTimeout(120_000);
  const jwt = await rest.login();
  const device = await rest.newDevice(jwt, 'Oven 3');
  await openRootChain(page);

  // a new chain, from the keyboard: Enter creates it and it opens
  await page.getByTestId('chain-new').click();
  await page.getByTestId('chain-form-name').fill('Oven watch');
  await page.getByTestId('chain-form-name').press('Enter');
  await expect(page.getByTestId('rule-chain-name')).toHaveText('Oven watch');
  await expect(page.getByTestId('rule-node')).toHaveCount(0);

  // three nodes from the searchable palette, each placed clear of the others
  await addFromPalette(page, 'script filter');
  await addFromPalette(page, 'create alarm');
  await addFromPalette(page, 'save time');
  await expect(page.getByTestId('rule-node')).toHaveCount(3);
  const boxes = await page
    .getByTestId('rule-node')
    .evaluateAll((els) =>
      els.map((e) => e.getBoundingClientRect()).map((r) => [r.left, r.top, r.right, r.bottom]),
    );
  for (const [i, a] of boxes.entries())
    for (const b of boxes.slice(i + 1))
      expect(a[0]! < b[2]! && b[0]! < a[2]! && a[1]! < b[3]! && b[1]! < a[3]!, 'nodes overlap').toBe(false);

  // the script filter's script, tested in the sandbox from its form
  await ruleNode(page, 'Script Filter').click();
  const panel = page.getByTestId('node-panel');
  await expect(panel).toHaveAttribute('data-node', 'Script Filter');
  await expect(panel.getByTestId('node-doc')).toContainText(
    'Filter incoming messages using TBEL or JS script',
  );
  await panel.getByTestId('script-source').fill('return msg.temperature > 200;');
  await panel.getByTestId('script-test-toggle').click();
  await panel.getByTestId('script-test-msg').fill('{"temperature": 250}');
  await panel.getByTestId('script-test-run').click();
  await expect(panel.getByTestId('script-test-output')).toHaveText('true');
  await panel.getByTestId('node-debug-all').check();

  // connect by dragging from the ports: the filter's True to the alarm, the filter's False to Save Timeseries
  await dragConnect(page, 'Script Filter', 'Create Alarm', ['True']);
  await dragConnect(page, 'Script Filter', 'Save Timeseries', ['False']);
  await expect(page.locator('[data-testid="rule-chain-arrow"][data-relation="True"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="rule-chain-arrow"][data-relation="False"]')).toHaveCount(1);
  await ruleNode(page, 'Create Alarm').click();
  await expect(page.getByTestId('node-panel')).toHaveAttribute('data-node', 'Create Alarm');
  await page.getByTestId('node-panel').getByTestId('node-debug-all').check();
  await page.getByTestId('save-chain').click();
  await expect(page.getByTestId('chain-saved')).toBeVisible();

  // this chain becomes the root: the oven's telemetry goes through it
  await page.getByTestId('tab-chains').click();
  await page.locator('[data-testid="chain-row"][data-name="Oven watch"]').getByTestId('chain-menu').click();
  await page.getByTestId('chain-set-root').click();
  await expect(
    page.locator('[data-testid="chain-row"][data-name="Oven watch"]').getByTestId('chain-root'),
  ).toHaveText('root');
  await publish(sandboard.urls.mqtt, device.token, { temperature: 230 });

  // the alarm node's events: the message IN (by True), the ALARM message OUT on Created
  await ruleNode(page, 'Create Alarm').click();
  const events = page.getByTestId('node-panel').getByTestId('debug-event');
  await expect(events.filter({ hasText: 'POST_TELEMETRY_REQUEST' })).toHaveCount(1);
  const out = page.locator('[data-testid="debug-event"][data-direction="OUT"]');
  await expect(out).toContainText('Created');
  await expect(out).toContainText('ALARM');
  const inEvent = page.locator('[data-testid="debug-event"][data-direction="IN"]');
  await expect(inEvent.getByTestId('debug-event-relation')).toHaveText('True');
  // the originator by name, its id on hover
  await expect(inEvent.getByTestId('debug-event-originator')).toHaveText('Device Oven 3');
  await expect(inEvent.getByTestId('debug-event-originator')).toHaveAttribute('title', `DEVICE ${device.id}`);
  await out.getByTestId('debug-event-toggle').click();
  await expect(out.getByTestId('debug-event-metadata')).toContainText('"isNewAlarm": "true"');
  await expect(out.getByTestId('debug-event-data')).toContainText('"type": "General Alarm"');

  // follow the message: its way through both nodes, numbered on the graph
  // a click that lands while the event list re-renders under it (its live refresh) is made again
  await expect(async () => {
    await out.getByTestId('follow-message').click();
    await expect(page.getByTestId('tab-trace')).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 15_000 });
  const trace = page.getByTestId('trace-panel');
  await expect(trace.getByTestId('trace-step-row')).toHaveCount(2);
  await expect(trace.getByTestId('trace-step-row').first()).toHaveAttribute('data-node', 'Script Filter');
  await expect(ruleNode(page, 'Script Filter')).toHaveAttribute('data-traced', '1');
  await expect(ruleNode(page, 'Create Alarm')).toHaveAttribute('data-traced', '2');
  await expect(page.locator('[data-testid="rule-chain-arrow"][data-traced="true"]')).toHaveAttribute(
    'data-relation',
    'True',
  );
  await saveScreenshotsInBothThemes(page, 'rule-chain-editor');
});

test('undo and redo: adding, renaming, moving and connecting are undone and redone, by button and keyboard', async ({
  page,
}) => {
  test.setTimeout(90_000);
  await openRootChain(page);
  const nodes = page.getByTestId('rule-node');
  await expect(page.getByTestId('undo')).toBeDisabled();

  await ruleNode(page, 'Save Timeseries').click();
  await addFromPalette(page, 'push to edge');
  await expect(nodes).toHaveCount(8);
  await expect(page.getByTestId('chain-editor')).toHaveAttribute('data-dirty', 'true');
  await page.getByTestId('undo').click();
  await expect(nodes).toHaveCount(7);
  await expect(page.getByTestId('chain-editor')).toHaveAttribute('data-dirty', 'false');
  await page.getByTestId('redo').click();
  await expect(nodes).toHaveCount(8);

  // typing a name is one step
  await ruleNode(page, 'Push to edge').click();
  await page.getByTestId('node-name').fill('Edge feed');
  await expect(ruleNode(page, 'Edge feed')).toHaveCount(1);
  // out of the text field, the editor's own undo (in it, the field's)
  await ruleNode(page, 'Edge feed').focus();
  await page.keyboard.press('Control+z');
  await expect(ruleNode(page, 'Push to edge')).toHaveCount(1);
  await page.keyboard.press('Control+Shift+z');
  await expect(ruleNode(page, 'Edge feed')).toHaveCount(1);

  // a move with the arrow keys, and a connection made from the node's panel
  const before = await ruleNode(page, 'Edge feed').getAttribute('transform');
  await ruleNode(page, 'Edge feed').focus();
  await page.keyboard.press('Shift+ArrowDown');
  await expect(ruleNode(page, 'Edge feed')).not.toHaveAttribute('transform', before!);
  await page.keyboard.press('Control+z');
  await expect(ruleNode(page, 'Edge feed')).toHaveAttribute('transform', before!);

  await ruleNode(page, 'Save Timeseries').click();
  const panel = page.getByTestId('node-panel');
  await panel.getByTestId('connection-target').click();
  await page.getByRole('option', { name: 'Edge feed' }).click();
  await panel.getByTestId('connect-nodes').click();
  // Success arrows: the device profile node's to the switch, and the new one
  const arrow = page.locator('[data-testid="rule-chain-arrow"][data-relation="Success"]');
  await expect(arrow).toHaveCount(2);
  await page.getByTestId('undo').click();
  await expect(arrow).toHaveCount(1);
  await page.getByTestId('redo').click();
  await expect(arrow).toHaveCount(2);

  await page.getByTestId('save-chain').click();
  await expect(page.getByTestId('chain-saved')).toBeVisible();
  await page.reload();
  await waitForPage(page, 'rule-chains');
  await expect(nodes).toHaveCount(8);
  await expect(arrow).toHaveCount(2);
});

test("import and export through the buttons: a file from ThingsBoard's UI imports, runs, exports and imports again", async ({
  page,
  rest,
  sandboard,
}) => {
  test.setTimeout(90_000);
  const jwt = await rest.login();
  const device = await rest.newDevice(jwt, 'Thermostat 9');
  await openRootChain(page);

  const chooser = page.waitForEvent('filechooser');
  await page.getByTestId('import-chain').click();
  await (await chooser).setFiles(THERMOSTAT_FILE);
  await expect(page.getByTestId('chains-notice')).toContainText(
    'Thermostat alarms (5 nodes) is a new CORE chain',
  );
  await expect(page.getByTestId('rule-chain-name')).toHaveText('Thermostat alarms');
  await expect(page.getByTestId('rule-node')).toHaveCount(5);
  await expect(ruleNode(page, 'Raise High Temperature')).toContainText('Create Alarm');

  // it runs: made the root, a hot reading raises its alarm
  await page.getByTestId('tab-chains').click();
  const row = page.locator('[data-testid="chain-row"][data-name="Thermostat alarms"]');
  await row.getByTestId('chain-menu').click();
  await page.getByTestId('chain-set-root').click();
  await expect(row.getByTestId('chain-root')).toBeVisible();
  await publish(sandboard.urls.mqtt, device.token, { temperature: 64 });
  await expect
    .poll(async () => {
      const res = await rest.request(
        `/api/alarm/DEVICE/${device.id}?pageSize=10&page=0&searchStatus=ACTIVE`,
        { auth: `Bearer ${jwt}` },
      );
      return ((await res.json()) as { data: { type: string; severity: string; details: unknown }[] }).data;
    })
    .toEqual([
      expect.objectContaining({ type: 'High Temperature', severity: 'MAJOR', details: { temperature: 64 } }),
    ]);

  // exported again: ThingsBoard's file shape, with the nodes and connections
  const download = page.waitForEvent('download');
  await page.getByTestId('export-chain').click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('Thermostat-alarms.json');
  const exported = JSON.parse(readFileSync((await file.path())!, 'utf8')) as {
    ruleChain: { name: string; root: boolean };
    metadata: { nodes: { type: string; name: string }[]; connections: unknown[] };
  };
  // as ThingsBoard exports it: the file does not make the chain a root where it is imported
  expect(exported.ruleChain).toMatchObject({ name: 'Thermostat alarms', root: false });
  expect(exported.metadata.nodes.map((n) => n.name)).toEqual([
    'Message Type Switch',
    'Too hot',
    'Raise High Temperature',
    'Clear High Temperature',
    'Save Timeseries',
  ]);
  expect(exported.metadata.connections).toHaveLength(4);

  // and the exported file imports again: a second chain of the same nodes, not the root
  const again = page.waitForEvent('filechooser');
  await page.getByTestId('import-chain').click();
  await (await again).setFiles((await file.path())!);
  await expect(page.getByTestId('chains-notice')).toContainText(
    'Thermostat alarms (5 nodes) is a new CORE chain',
  );
  await expect(page.getByTestId('rule-node')).toHaveCount(5);
  await page.getByTestId('tab-chains').click();
  await expect(page.locator('[data-testid="chain-row"][data-name="Thermostat alarms"]')).toHaveCount(2);
  await expect(row.getByTestId('chain-root')).toHaveCount(1);

  // a file that is no chain says why
  const chooser2 = page.waitForEvent('filechooser');
  await page.getByTestId('import-chain').click();
  await (
    await chooser2
  ).setFiles({ name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('[1]') });
  await expect(page.getByTestId('chains-notice')).toContainText('The file holds no rule chain');
});

test('chains: create an edge chain, rename it, the root cannot be deleted, another chain can', async ({
  page,
}) => {
  test.setTimeout(90_000);
  await openRootChain(page);
  const row = (name: string) => page.locator(`[data-testid="chain-row"][data-name="${name}"]`);
  await expect(row('Root Rule Chain').getByTestId('chain-root')).toHaveText('root');

  await page.getByTestId('chain-new').click();
  await page.getByTestId('chain-form-name').fill('Site edge');
  await page.getByTestId('chain-form-type').getByText('Edge (run by edges)').click();
  await page.getByTestId('chain-form-save').click();
  await expect(page.getByTestId('rule-chain-name')).toHaveText('Site edge');
  await expect(page.getByText('edge chain', { exact: true })).toBeVisible();
  // an edge chain's palette offers push to cloud, not push to edge
  await page.getByTestId('add-node').click();
  await page.getByTestId('palette-search').fill('push');
  await expect(page.getByTestId('palette-item')).toHaveCount(1);
  await expect(page.getByTestId('palette-item')).toHaveAttribute('data-label', 'Push To Cloud');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('palette-search')).toHaveCount(0);

  await page.getByTestId('tab-chains').click();
  await row('Site edge').getByTestId('chain-menu').click();
  await page.getByTestId('chain-rename').click();
  await page.getByTestId('chain-form-name').fill('Site edge chain');
  await page.getByTestId('chain-form-name').press('Enter');
  await expect(row('Site edge chain')).toBeVisible();
  await expect(page.getByTestId('rule-chain-name')).toHaveText('Site edge chain');

  await row('Root Rule Chain').getByTestId('chain-menu').click();
  await expect(page.getByTestId('chain-delete')).toBeDisabled();
  await page.keyboard.press('Escape');
  await row('Site edge chain').getByTestId('chain-menu').click();
  await page.getByTestId('chain-delete').click();
  await page.getByTestId('confirm-ok').click();
  await expect(row('Site edge chain')).toHaveCount(0);
  await expect(page.getByTestId('rule-chain-name')).toHaveText('Root Rule Chain');
});

test('the push to edge node is validated inline and by the server, which names the node', async ({
  page,
}) => {
  test.setTimeout(90_000);
  await openRootChain(page);
  await ruleNode(page, 'Save Timeseries').click();
  await addFromPalette(page, 'push to edge');
  await expect(page.getByTestId('rule-node')).toHaveCount(8);
  const panel = page.getByTestId('node-panel');
  await expect(panel).toHaveAttribute('data-node', 'Push to edge');
  const configJson = panel.getByTestId('node-config-json');
  await configJson.fill('{"scope": "SERVER_SCOPE", "color": "red"}');
  await expect(panel.getByTestId('node-config-general-error')).toHaveText("'color' is not allowed here");
  await configJson.fill('{}');
  await expect(panel.getByTestId('node-config-form')).toContainText('is required');
  await expect(ruleNode(page, 'Push to edge')).toHaveAttribute('data-problem', 'true');
  await page.getByTestId('save-chain').click();
  await expect(panel.getByTestId('node-server-error')).toContainText(
    "nodes[7].configuration (Push to edge): 'scope' is required",
  );
  await saveScreenshot(page, 'rule-chain-invalid');
  await panel.locator('[data-config-key="scope"]').click();
  await page.getByRole('option', { name: 'SERVER_SCOPE' }).click();
  await expect(panel.getByTestId('node-config-form')).not.toContainText('is required');
  await expect(ruleNode(page, 'Push to edge')).toHaveAttribute('data-problem', 'false');
});

test("a script switch's relations are typed when connecting; an alarm node's details script is tested", async ({
  page,
}) => {
  test.setTimeout(90_000);
  await openRootChain(page);
  await addFromPalette(page, 'script switch');
  await addFromPalette(page, 'clear alarm');
  await dragConnect(page, 'Script Switch', 'Clear Alarm', ['cooled down', 'reset']);
  await expect(
    page.locator('[data-testid="rule-chain-arrow"][data-relation="cooled down / reset"]'),
  ).toHaveCount(1);

  // a relation the node does not have is refused for nodes that do not name their own
  await dragConnect(page, 'Clear Alarm', 'Script Switch', ['Cleared']);
  const port = ruleNode(page, 'Clear Alarm').getByTestId('node-out-port');
  await port.scrollIntoViewIfNeeded();
  const a = (await port.boundingBox())!;
  const b = (await ruleNode(page, 'Log Other').boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 8 });
  await page.mouse.up();
  const input = page.getByTestId('connect-dialog').getByTestId('relation-input');
  await input.fill('Whatever');
  await input.press('Enter');
  // Enter in the emptied field confirms
  await input.press('Enter');
  await expect(page.getByTestId('connect-dialog')).toContainText("'Whatever' is not a relation of this node");
  // Esc closes the field's list of relations, then the dialog
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('connect-dialog')).toHaveCount(0);

  // the clear alarm node's details builder (TBEL), run on a sample with the previous details
  await ruleNode(page, 'Clear Alarm').click();
  const panel = page.getByTestId('node-panel');
  // in the code editor, highlighted as TBEL (JavaScript-like)
  await expect(panel.getByTestId('script-source')).toContainText(/metadata\.prevAlarmDetails != null/);
  await expect(panel.getByTestId('script-source').locator('span[class]').first()).toBeVisible();
  await panel.getByTestId('script-test-toggle').click();
  await panel.getByTestId('script-test-metadata').fill('{"prevAlarmDetails": "{\\"count\\": 3}"}');
  await panel.getByTestId('script-test-run').click();
  // indented JSON, as a reader wants it
  await expect(panel.getByTestId('script-test-output')).toHaveText('{\n  "count": 3\n}');
  expect(await panel.getByTestId('script-test-output').innerText()).toContain('\n  "count": 3');
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
  const types = (await (await rest.request('/api/ruleNode/types', { auth: `Bearer ${jwt}` })).json()) as {
    ruleChainTypes: string[];
  }[];

  await logIn(page);
  await openFromNav(page, 'rule-chains');
  await page
    .locator('[data-testid="chain-row"][data-name="From a PE tenant"]')
    .getByTestId('chain-open')
    .click();
  await expect(page.getByTestId('rule-chain-name')).toHaveText('From a PE tenant');
  const downlink = ruleNode(page, 'Downlink');
  // the type line is cut to the node's width at 12 px; the whole of it is in the node's label
  await expect(downlink).toContainText('Unsupported');
  await expect(downlink).toHaveAttribute('aria-label', /Unsupported: TbIntegrationDownlinkNode/);
  await expect(downlink).toHaveAttribute('data-problem', 'true');
  await downlink.click();
  await expect(page.getByTestId('node-unsupported')).toContainText(
    'org.thingsboard.rule.engine.integration.TbIntegrationDownlinkNode',
  );

  await page.getByTestId('add-node').click();
  await expect(page.getByTestId('palette-item')).toHaveCount(
    types.filter((t) => t.ruleChainTypes.includes('CORE')).length,
  );
});
