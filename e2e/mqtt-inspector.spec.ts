import { execFile } from 'node:child_process';
import type { Page } from '@playwright/test';
import { promisify } from 'node:util';
import mqtt from 'mqtt';
import { expect, logIn, test, waitForPage, type RestClient } from './support/fixtures.ts';

const run = promisify(execFile);

/** Whether mosquitto_pub is on the PATH (apt-get install mosquitto-clients). */
async function hasMosquittoPub(): Promise<boolean> {
  try {
    await run('mosquitto_pub', ['--help']);
    return true;
  } catch (err) {
    // it prints its usage and exits 1 when present
    return (err as { code?: unknown }).code === 1;
  }
}

/** Parses the copied mosquitto_pub command (POSIX single quotes) into its arguments. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  const re = /'((?:[^']|'\\'')*)'|"([^"]*)"|(\S+)/g;
  for (const m of command.matchAll(re))
    words.push(m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : (m[2] ?? m[3]!));
  return words;
}

/** Runs the copied command: with mosquitto_pub when installed, else the same publish replayed with mqtt.js. */
async function runMosquittoPub(command: string, token: string): Promise<void> {
  const env = { ...process.env, SANDBOARD_TOKEN: token };
  if (await hasMosquittoPub()) {
    await run('sh', ['-c', command], { env });
    return;
  }
  const args = shellWords(command.replace('"$SANDBOARD_TOKEN"', token));
  expect(args[0]).toBe('mosquitto_pub');
  const opt = (flag: string) => args[args.indexOf(flag) + 1]!;
  const client = await mqtt.connectAsync(`mqtt://${opt('-h')}:${opt('-p')}`, {
    username: opt('-u'),
    protocolVersion: args.includes('-V') ? 5 : 4,
    reconnectPeriod: 0,
  });
  await client.publishAsync(opt('-t'), opt('-m'), {
    qos: Number(opt('-q')) as 0 | 1,
    retain: args.includes('-r'),
  });
  await client.endAsync();
}

async function connectInAppClient(page: Page, deviceName: string): Promise<void> {
  await page.getByTestId('tab-client').click();
  await page.getByTestId('client-device').click();
  await page.getByTestId('client-device').fill(deviceName);
  await page.getByRole('option', { name: deviceName }).click();
  await expect(page.getByTestId('client-device')).toHaveValue(deviceName);
  await page.getByTestId('client-connect').click();
  await expect(page.getByTestId('client-connection-tab')).toContainText(deviceName);
}

async function clientConnectionId(rest: RestClient, jwt: string): Promise<string> {
  const res = await rest.request('/api/sandboard/mqtt/clients', { auth: `Bearer ${jwt}` });
  return ((await res.json()) as { id: string }[])[0]!.id;
}

test('the in-app client publishes as a device: the topic tree, the field chart and the device chart follow; a message copied as mosquitto_pub runs', async ({
  page,
  rest,
}) => {
  const jwt = await rest.login();
  const device = await rest.newDevice(jwt, 'Inspector thermometer');
  await logIn(page);
  await page.getByRole('link', { name: 'MQTT clients: see them' }).click();
  await waitForPage(page, 'mqtt');

  await connectInAppClient(page, 'Inspector thermometer');
  await page.getByTestId('client-payload').fill('{"temperature": 21.5}');
  await page.getByTestId('client-publish').click();
  await expect(page.getByTestId('client-reason')).toHaveText(/0x00 Success/);

  await page.getByTestId('tab-sessions').click();
  await expect(page.getByTestId('mqtt-session-row')).toContainText('Inspector thermometer');

  await page.getByTestId('tab-topics').click();
  await page.getByRole('button', { name: 'Inspector thermometer v1/devices/me/telemetry' }).click();
  await expect(page.getByTestId('field-path')).toHaveValue('temperature');
  await expect(page.getByTestId('field-chart')).toHaveAttribute('data-points', '1');
  // a second publish from the same in-app connection: the open topic follows live
  const connection = await clientConnectionId(rest, jwt);
  const res = await rest.request(`/api/sandboard/mqtt/clients/${connection}/publish`, {
    method: 'POST',
    json: { topic: 'v1/devices/me/telemetry', payload: '{"temperature": 23.25}' },
    auth: `Bearer ${jwt}`,
  });
  expect(((await res.json()) as { reasonCode: number }).reasonCode).toBe(0);
  await expect(page.getByTestId('field-chart')).toHaveAttribute('data-points', '2');
  await expect(page.getByTestId('topic-diff')).toContainText('21.5 → 23.25');
  await expect(page.getByTestId('topic-tree').getByTestId('topic-last-value').first()).toContainText('23.25');

  // copy the newest message as mosquitto_pub and run it as the device
  await page.getByTestId('tab-traffic').click();
  await page.getByTestId('mqtt-message-row').first().click();
  await expect(page.getByTestId('detail-reason')).toHaveText(/0x00/);
  const command = (await page.getByTestId('message-snippet').textContent())!;
  expect(command).toContain("-t 'v1/devices/me/telemetry'");
  expect(command).not.toContain(device.token);
  await runMosquittoPub(command, device.token);
  await expect(page.getByTestId('mqtt-message-row').filter({ hasText: '23.25' })).toHaveCount(2);

  await page.goto(`/devices/${device.id}`);
  await waitForPage(page, 'device');
  await expect(page.getByTestId('telemetry-chart')).toHaveAttribute('data-points', '3');
});

test('a saved snippet with generators publishes distinct values', async ({ page, rest }) => {
  const jwt = await rest.login();
  const device = await rest.newDevice(jwt, 'Snippet sensor');
  await logIn(page);
  await page.goto('/mqtt?tab=client');
  await waitForPage(page, 'mqtt');
  await connectInAppClient(page, 'Snippet sensor');
  await page
    .getByTestId('client-payload')
    .fill('{"n": ${counter}, "r": ${random(1,1000000)}, "id": "${uuid}"}');
  await page.getByTestId('snippet-name').fill('counting');
  await page.getByTestId('snippet-save').click();
  await page.getByTestId('client-payload').fill('{"other": 1}');
  await page.getByTestId('snippet-load').click();
  await page.getByRole('option', { name: 'counting' }).click();
  await expect(page.getByTestId('client-payload')).toHaveValue(/\$\{counter\}/);
  for (let i = 0; i < 3; i++) {
    await page.getByTestId('client-publish').click();
    await expect(page.getByTestId('client-sent-payload')).toHaveCount(i + 1);
  }
  const sent = await page.getByTestId('client-sent-payload').allTextContents();
  const bodies = sent.map((t) => JSON.parse(t) as { n: number; id: string });
  expect(bodies.map((b) => b.n).sort()).toEqual([1, 2, 3]);
  expect(new Set(bodies.map((b) => b.id)).size).toBe(3);
  const series = await rest.request(
    `/api/plugins/telemetry/DEVICE/${device.id}/values/timeseries?keys=n&startTs=0&endTs=${Date.now() + 60_000}`,
    { auth: `Bearer ${jwt}` },
  );
  const values = ((await series.json()) as { n: { value: string }[] }).n.map((e) => Number(e.value));
  expect(values.sort()).toEqual([1, 2, 3]);
});
