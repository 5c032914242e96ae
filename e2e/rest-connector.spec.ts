import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import {
  expect,
  logIn,
  openFromNav,
  saveScreenshot,
  saveScreenshotsInBothThemes,
  test,
} from './support/fixtures.ts';
import { startTlsFront } from '../test/helpers/tls-front.ts';

/** The JSON editor's whole text (CodeMirror keeps only the lines in view in the DOM; it exposes the rest). */
function editorText(editor: Locator): Promise<string> {
  return editor.evaluate((el) => (el as HTMLElement & { editorText: string }).editorText);
}

/** A port nothing listens on right now (the spec's default 5000 may be taken on this machine). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('a REST connector made from the template starts, lists its endpoints and logs a tested request', async ({
  page,
  rest,
  sandboard,
}) => {
  test.setTimeout(90_000);
  const port = await freePort();
  await logIn(page);
  await openFromNav(page, 'rest-connector');
  await expect(page.getByTestId('connectors-table')).toContainText('No REST connectors yet');

  // create from the gateway's default rest.json, on a free port
  await page.getByTestId('new-connector').click();
  const form = page.getByTestId('new-connector-form');
  await expect(form.getByRole('textbox', { name: 'Port' })).toHaveValue('5000');
  await form.getByRole('textbox', { name: 'Port' }).fill(String(port));
  await page.getByTestId('create-connector').click();
  const detail = page.getByTestId('connector-detail');
  await expect(detail).toHaveAttribute('data-state', 'stopped');
  await expect(page.getByTestId('connector-name')).toHaveText('REST connector');

  // the editor: the template is valid; a wrong value is named by its JSON path, and a click goes to it
  const text = page.getByTestId('rest-json-text');
  await expect.poll(() => editorText(text)).toContain(`"port": "${port}"`);
  await expect(page.getByTestId('config-validity')).toHaveAttribute('data-valid', 'true');
  const template = await editorText(text);
  await text.fill(template.replace('"type": "json"', '"type": "jsn"'));
  await expect(page.getByTestId('config-validity')).toHaveText('1 error');
  const issue = page.getByTestId('json-issue-error');
  await expect(issue).toHaveAttribute('data-path', 'mapping[0].converter.type');
  await expect(issue).toContainText('must be "json" or "custom"');
  await expect(page.getByTestId('save-connector')).toBeDisabled();
  await issue.click();
  await expect(page.getByTestId('rest-json-cursor')).toContainText('mapping[0].converter.type');
  await expect(page.getByTestId('rest-json-cursor')).toContainText('json (the default converter) or custom');
  // completion from the JSON schema: the keys a mapping entry may still have
  const typed = '"endpoint": "/my_devices",\n      "succ';
  await text.fill(template.replace('"endpoint": "/my_devices",', typed));
  // the cursor after "succ (the top of the text, where that line is, first)
  await text.press('Control+Home');
  await text
    .locator('.cm-line')
    .filter({ hasText: /"succ$/ })
    .click({ position: { x: 2, y: 5 } });
  await text.press('End');
  await text.press('Control+Space');
  const completions = page.getByTestId('json-completions');
  await expect(completions.getByRole('option').first()).toContainText('successResponse');
  await saveScreenshot(page, 'rest-connector-completion');
  await text.press('Enter');
  await expect(completions).toBeHidden();
  await expect.poll(() => editorText(text)).toMatch(/"successResponse": "",\n\s*"HTTPMethods"/);
  await expect(page.getByTestId('config-validity')).toHaveAttribute('data-valid', 'true');
  await page.getByRole('button', { name: 'Discard' }).click();
  await expect(page.getByTestId('config-validity')).toHaveAttribute('data-valid', 'true');

  // start it: it listens on the chosen port and its gateway connects over MQTT
  await page.getByTestId('connector-detail').getByTestId('start-connector').click();
  await expect(detail).toHaveAttribute('data-state', 'running', { timeout: 20_000 });
  await expect(page.getByTestId('connector-base-url')).toHaveText(`http://127.0.0.1:${port}`);

  // every endpoint and method, each with its curl command
  await page.getByTestId('tab-endpoints').click();
  const rows = page.getByTestId('endpoint-row');
  await expect(rows).toHaveCount(5);
  const myDevices = rows.filter({
    has: page.locator('[data-testid="endpoint-curl"]', { hasText: '/my_devices' }),
  });
  await expect(myDevices.getByTestId('endpoint-curl')).toContainText(
    `curl -X POST http://127.0.0.1:${port}/my_devices -H 'Content-Type: application/json'`,
  );
  await expect(page.getByRole('button', { name: 'Copy curl command' }).first()).toBeVisible();
  await saveScreenshotsInBothThemes(page, 'rest-connector-endpoints');

  // where custom converters go: the template's sample was put there when the connector started
  await page.getByTestId('tab-converters').click();
  const converters = page.getByTestId('converters-card');
  const folder = join(sandboard.urls.dataDir, 'converters');
  await expect(converters.getByTestId('converters-dir')).toHaveText(folder);
  await expect(converters.getByTestId('converter-used')).toHaveText(['CustomRestUplinkConverter']);
  const modules = converters.getByTestId('converter-module');
  await expect(modules).toHaveText([/CustomRestUplinkConverter\.mjs/]);
  // a module dropped into the folder from outside shows up
  writeFileSync(join(folder, 'Meter.mjs'), 'export class Meter {}\n');
  await expect(modules).toHaveText([/CustomRestUplinkConverter\.mjs/, /Meter\.mjs.*22 bytes/]);
  await saveScreenshot(page, 'rest-connector-converters');
  await page.getByTestId('tab-endpoints').click();

  // the tester sends the endpoint's example body; the request log shows it
  await myDevices.getByTestId('try-endpoint').click();
  const tester = page.getByTestId('request-tester');
  await expect(tester.getByTestId('tester-path')).toHaveValue('/my_devices');
  await expect(tester.getByTestId('tester-json')).toHaveValue(/"sensorName": "SN-001"/);
  await page.getByTestId('send-test-request').click();
  await expect(page.getByTestId('tester-response')).toHaveAttribute('data-status', '200');
  await expect(page.getByTestId('tester-curl')).toContainText(`http://127.0.0.1:${port}/my_devices`);
  const firstLog = page.getByTestId('request-log-row').first();
  await expect(firstLog).toHaveAttribute('data-path', '/my_devices');
  await expect(firstLog).toHaveAttribute('data-status', '200');
  await expect(firstLog.getByTestId('request-log-device')).toHaveText('SN-001');
  await expect(firstLog.getByTestId('request-log-datapoints')).toHaveText('4');

  // multipart from the UI: fields become values, the file part is ignored (and logged)
  await tester.getByTestId('tester-endpoint').click();
  await page.getByRole('option', { name: 'POST /anon1' }).click();
  await tester.getByTestId('tester-body-mode').getByText('Multipart form').click();
  const multipart = tester.getByTestId('tester-multipart');
  await expect(multipart.getByRole('textbox', { name: 'Field 1 name' })).toHaveValue('temp');
  await multipart.getByRole('textbox', { name: 'Field 1 value' }).fill('23.5');
  await multipart.getByRole('button', { name: 'Add a file part' }).click();
  await page.getByTestId('send-test-request').click();
  await expect(page.getByTestId('tester-curl')).toContainText('-F temp=23.5');
  await expect(page.getByTestId('tester-curl')).toContainText('-F file1=@notes.txt');
  await saveScreenshotsInBothThemes(page, 'rest-connector-tester');

  await page.getByTestId('tab-requests').click();
  const log = page.getByTestId('request-log-row');
  await expect(log).toHaveCount(2);
  await expect(log.first()).toHaveAttribute('data-path', '/anon1');
  await expect(log.first().getByTestId('request-log-device')).toHaveText('Device 2');
  await expect(log.first()).toContainText("file part 'file1' (notes.txt, 5 bytes) ignored");
  await expect(page.getByTestId('counter-requests')).toHaveText('2');

  // a shared attribute update of SN-001 calls out (attributeUpdates[0]); its tries are listed
  const jwt = await rest.login();
  const auth = `Bearer ${jwt}`;
  const device = (await (await rest.request('/api/tenant/devices?deviceName=SN-001', { auth })).json()) as {
    id: { id: string };
  };
  const saved = await rest.request(`/api/plugins/telemetry/DEVICE/${device.id.id}/attributes/SHARED_SCOPE`, {
    method: 'POST',
    json: { setpoint: 21 },
    auth,
  });
  expect(saved.status).toBe(200);
  await page.getByTestId('tab-outgoing').click();
  const call = page.getByTestId('outgoing-row').first();
  await expect(call).toContainText('setpoint');
  await expect(call).not.toHaveAttribute('data-state', 'pending', { timeout: 15_000 });
  await call.click();
  await expect(page.getByTestId('outgoing-tries-row')).toContainText('try 1');

  await page.getByTestId('tab-config').click();
  await expect(page.getByTestId('config-validity')).toHaveAttribute('data-valid', 'true');
  await saveScreenshotsInBothThemes(page, 'rest-connector-config');

  await page.getByTestId('connector-detail').getByTestId('stop-connector').click();
  await expect(detail).toHaveAttribute('data-state', 'stopped', { timeout: 20_000 });
});

test('a connector aimed at another platform over mqtts:// asks whom to trust, and connects', async ({
  page,
  rest,
  sandboard,
}) => {
  // "another" ThingsBoard: this one's MQTT port behind TLS with a self-signed certificate
  const front = await startTlsFront(sandboard.urls.mqtt);
  const jwt = `Bearer ${await rest.login()}`;
  const device = (await (
    await rest.request('/api/device', {
      method: 'POST',
      json: { name: 'Remote gateway', additionalInfo: { gateway: true } },
      auth: jwt,
    })
  ).json()) as { id: { id: string } };
  const { credentialsId } = (await (
    await rest.request(`/api/device/${device.id.id}/credentials`, { auth: jwt })
  ).json()) as { credentialsId: string };

  try {
    await logIn(page);
    await openFromNav(page, 'rest-connector');
    await page.getByTestId('new-connector').click();
    const form = page.getByTestId('new-connector-form');
    await form.getByRole('textbox', { name: 'Name' }).fill('Remote TLS');
    await form.getByRole('textbox', { name: 'Port' }).fill('0');
    await form.getByText('Another ThingsBoard (MQTT)').click();
    const url = form.getByRole('textbox', { name: 'MQTT URL' });
    await url.fill('mqtt://127.0.0.1:1883');
    await expect(form.getByRole('textbox', { name: 'CA certificate (PEM)' })).toBeHidden();
    await url.fill(front.url);
    await form.getByRole('textbox', { name: 'Gateway access token' }).fill(credentialsId);
    await form.getByRole('textbox', { name: 'CA certificate (PEM)' }).fill(front.caPem);
    await page.getByTestId('create-connector').click();
    const detail = page.getByTestId('connector-detail');
    await expect(detail).toHaveAttribute('data-state', 'stopped');
    await detail.getByTestId('start-connector').click();
    await expect(detail).toHaveAttribute('data-state', 'running');
    await expect(detail).toContainText('MQTT connected');
    await saveScreenshot(page, 'rest-connector-remote-tls');
    await detail.getByRole('button', { name: 'Stop' }).click();
    await expect(detail).toHaveAttribute('data-state', 'stopped');
  } finally {
    await front.close();
  }
});
