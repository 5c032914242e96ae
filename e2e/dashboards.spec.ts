import { readFileSync } from 'node:fs';
import mqtt from 'mqtt';
import { expect, logIn, openFromNav, saveScreenshot, test, waitForPage } from './support/fixtures.ts';

const FIXTURE = new URL('./fixtures/thingsboard-dashboard.json', import.meta.url);

// A dashboard exported from ThingsBoard 4.x, with every widget Sandboard renders and one it does not,
// imported through the UI and fed by a real device over MQTT.
// a whole plant's worth of widgets on a shared machine
test.setTimeout(180_000);

test('an imported ThingsBoard dashboard renders live MQTT values, sends RPCs from its switch, and names the widget it cannot draw', async ({
  page,
  rest,
  sandboard,
}) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  const jwt = await rest.login();
  const auth = `Bearer ${jwt}`;
  const post = async (path: string, body: unknown) => {
    const res = await rest.request(path, { method: 'POST', json: body, auth });
    expect(res.status, await res.clone().text()).toBe(200);
    const text = await res.text();
    return (text ? JSON.parse(text) : undefined) as { id: { id: string } };
  };
  const boiler = (await post('/api/device', { name: 'Boiler 1', type: 'thermal' })).id.id;
  const creds = (await (await rest.request(`/api/device/${boiler}/credentials`, { auth })).json()) as {
    credentialsId: string;
  };
  const hall = (await post('/api/asset', { name: 'Hall 2', type: 'building' })).id.id;
  await post('/api/relation', {
    from: { entityType: 'ASSET', id: hall },
    to: { entityType: 'DEVICE', id: boiler },
    type: 'Contains',
  });
  await post(`/api/plugins/telemetry/DEVICE/${boiler}/attributes/SHARED_SCOPE`, {
    targetTemperature: 65,
    mode: 'eco',
  });
  await post('/api/alarm', {
    type: 'Overheat',
    severity: 'MAJOR',
    originator: { entityType: 'DEVICE', id: boiler },
  });

  const device = await mqtt.connectAsync(sandboard.urls.mqtt, {
    username: creds.credentialsId,
    reconnectPeriod: 0,
  });
  const rpcs: { topic: string; body: { method: string; params: unknown } }[] = [];
  device.on('message', (topic, payload) => {
    if (topic.startsWith('v1/devices/me/rpc/request/'))
      rpcs.push({ topic, body: JSON.parse(payload.toString()) });
  });
  await device.subscribeAsync('v1/devices/me/rpc/request/+', { qos: 1 });
  const publish = (values: Record<string, number>) =>
    device.publishAsync('v1/devices/me/telemetry', JSON.stringify(values), { qos: 1 });
  try {
    await publish({ temperature: 21.5, pressure: 1.9, latitude: 50.45, longitude: 30.52 });

    await logIn(page);
    await openFromNav(page, 'dashboards');
    const chooser = page.waitForEvent('filechooser');
    await page.getByTestId('import-dashboard').click();
    await (await chooser).setFiles(FIXTURE.pathname);
    await waitForPage(page, 'dashboard');
    await expect(page.getByTestId('dashboard-title')).toHaveText('Plant floor (ThingsBoard export)');
    await expect(page.getByTestId('ws-status')).toHaveText('live');

    const widget = (title: string) => page.locator(`[data-testid="widget"][data-title="${title}"]`);
    await expect(widget('Temperature').getByTestId('value-card-value')).toHaveText('21.5 °C');
    // the key's post-processing function ran in the server's sandbox
    await expect(widget('Temperature °F').getByTestId('value-card-value')).toHaveText('70.7 °F');
    await expect(widget('HTML value').getByTestId('html-value-card')).toContainText('Boiler at 21.5 °C');
    await expect(widget('Notes').getByTestId('markdown-card')).toContainText('Boiler 1');
    await expect(widget('Static HTML')).toContainText('Plant floor Line 3');
    // the unknown widget names its type; the rest of the dashboard works
    await expect(widget('Gateway configuration').getByTestId('unknown-widget')).toContainText(
      'system.gateway_widgets.gateway_general_configuration',
    );
    await expect(widget('Thermal devices').locator('tr[data-entity="Boiler 1"]')).toContainText('eco');
    await expect(widget('Alarms').locator('tr[data-alarm="Overheat"]')).toContainText('MAJOR');
    await expect(widget('Map').locator('g[data-entity="Boiler 1"]')).toHaveCount(1);
    await expect(widget('Setpoint').getByRole('textbox', { name: 'Target temperature' })).toHaveValue('65');
    await expect(widget('Buildings').getByTestId('value-card-value')).toHaveText('Hall 2');

    // a new value over MQTT reaches every widget showing it, without a reload
    await publish({ temperature: 30, pressure: 2.1 });
    await expect(widget('Temperature').getByTestId('value-card-value')).toHaveText('30.0 °C');
    await expect(widget('Temperature °F').getByTestId('value-card-value')).toHaveText('86.0 °F');
    await expect(widget('Digital gauge').getByTestId('digital-gauge')).toHaveAttribute('data-value', '30');
    await expect(widget('Analogue gauge').getByTestId('analogue-gauge')).toHaveAttribute('data-value', '30');
    await expect(widget('Temperature chart').getByTestId('chart-widget')).toHaveAttribute('data-points', '2');
    await expect(widget('Temperature table').locator('tbody tr')).toHaveCount(2);

    // nothing of the dashboard's HTML ran
    expect(await page.evaluate(() => (window as { __pwned?: boolean }).__pwned)).toBeUndefined();
    await expect(page.locator('[data-testid="widget"] iframe, [data-testid="widget"] script')).toHaveCount(0);

    await saveScreenshot(page, 'dashboard-imported-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await saveScreenshot(page, 'dashboard-imported-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // the switch sends its RPC; the device, subscribed over MQTT, gets it
    await widget('Power').getByRole('switch').click({ force: true });
    await expect.poll(() => rpcs.map((r) => r.body)).toContainEqual({ method: 'setPower', params: true });
    await widget('Reboot').getByRole('button', { name: 'Reboot' }).click();
    await expect.poll(() => rpcs.map((r) => r.body)).toContainEqual({ method: 'reboot', params: true });
    // the knob, by keyboard
    await widget('Knob').getByRole('slider').focus();
    await page.keyboard.press('End');
    await expect.poll(() => rpcs.map((r) => r.body)).toContainEqual({ method: 'setKnob', params: 100 });

    // a row click opens the device state about that entity, with breadcrumbs back
    await widget('Thermal devices').locator('tr[data-entity="Boiler 1"]').click();
    await expect(page.getByTestId('current-state')).toHaveText('Boiler 1');
    await expect(widget('Selected temperature').getByTestId('value-card-value')).toHaveText('30 °C');
    await page.getByRole('button', { name: 'Plant overview' }).click();
    await expect(widget('Temperature').getByTestId('value-card-value')).toHaveText('30.0 °C');

    // exported again, it is the same dashboard
    const listed = (await (
      await rest.request('/api/tenant/dashboards?pageSize=10&page=0', { auth })
    ).json()) as {
      data: { id: { id: string } }[];
    };
    const saved = (await (
      await rest.request(`/api/dashboard/${listed.data[0]!.id.id}`, { auth })
    ).json()) as {
      configuration: unknown;
    };
    const original = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { configuration: { widgets: object } };
    expect(Object.keys((saved.configuration as { widgets: object }).widgets)).toEqual(
      Object.keys(original.configuration.widgets),
    );
  } finally {
    await device.endAsync();
  }
});

test('a dashboard built in the editor (widget added, keys picked, moved and resized by keyboard) is saved with its live widget', async ({
  page,
  rest,
}) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  const jwt = await rest.login();
  const { id: boiler } = await rest.newDevice(jwt, 'Boiler 9');
  await rest.postTelemetry(jwt, boiler, { temperature: 42.5 });

  await logIn(page);
  await openFromNav(page, 'dashboards');
  await page.getByTestId('add-dashboard').click();
  await page.getByTestId('dashboard-title').fill('Boiler room');
  await page.getByTestId('create-dashboard').click();
  await waitForPage(page, 'dashboard');
  await page.getByTestId('add-widget').click();
  await page.getByRole('menuitem', { name: 'Value card', exact: true }).click();

  const editor = page.getByRole('dialog');
  await editor.getByTestId('widget-title').fill('Boiler temperature');
  await editor.getByRole('combobox', { name: 'New alias' }).click();
  await page.getByRole('option', { name: 'One device' }).click();
  await editor.getByRole('combobox', { name: 'Alias entity' }).click();
  await page.getByRole('option', { name: 'Boiler 9' }).click();
  await editor.getByTestId('add-alias').click();
  await editor.getByTestId('widget-keys').click();
  await page.getByRole('option', { name: 'temperature', exact: true }).click();
  await editor.getByRole('textbox', { name: 'temperature label' }).fill('Water');
  await editor.getByTestId('apply-widget').click();
  await expect(editor).toBeHidden();

  const placed = page.locator('[data-widget-id]');
  await expect(placed).toHaveAttribute('data-layout', '0,0,8,5');
  await placed.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Shift+ArrowRight');
  await page.keyboard.press('Shift+ArrowUp');
  await expect(placed).toHaveAttribute('data-layout', '2,1,9,4');
  await page.getByTestId('save-dashboard').click();
  await expect(page.getByTestId('edit-dashboard')).toBeVisible();

  // saved: a reload shows it where it was put, with its live value
  await page.reload();
  await waitForPage(page, 'dashboard');
  await expect(page.locator('[data-widget-id]')).toHaveAttribute('data-layout', '2,1,9,4');
  const card = page.locator('[data-testid="widget"][data-title="Boiler temperature"]');
  await expect(card.getByTestId('value-card-value')).toHaveText('42.5');
  await rest.postTelemetry(jwt, boiler, { temperature: 43 });
  await expect(card.getByTestId('value-card-value')).toHaveText('43');
});

test('presentation mode: full screen at a chosen scale, cycling the states of an imported dashboard', async ({
  page,
  rest,
}) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  const jwt = await rest.login();
  await logIn(page);
  const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as unknown;
  const res = await rest.request('/api/dashboard', { method: 'POST', json: fixture, auth: `Bearer ${jwt}` });
  const imported = ((await res.json()) as { id: { id: string } }).id.id;
  await page.goto(`/dashboards/${imported}`);
  await waitForPage(page, 'dashboard');
  await page.getByTestId('present-dashboard').click();
  const bar = page.getByTestId('present-bar');
  await expect(bar).toContainText('Plant overview');
  await bar.getByText('150 %').click();
  await expect(page.getByTestId('present-zoom')).toHaveCSS('zoom', '1.5');
  await bar.getByRole('textbox', { name: 'Cycle states every (s)' }).fill('1');
  await expect(bar).toContainText('· device');
  await expect(bar).toContainText('Plant overview');
  await saveScreenshot(page, 'dashboard-presenting');
  await bar.getByRole('textbox', { name: 'Cycle states every (s)' }).fill('0');
  await bar.getByRole('button', { name: 'Exit' }).click();
  await expect(bar).toBeHidden();
});
