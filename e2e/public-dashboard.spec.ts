import mqtt from 'mqtt';
import { expect, logIn, test, waitForPage } from './support/fixtures.ts';

// ThingsBoard's public link: a dashboard assigned to the public customer opens at
// /dashboard/{id}?publicId={customerId} without a login, live, and without the app around it.
test('a dashboard made public on its page opens from its link live without a login, and its public id opens no other', async ({
  page,
  rest,
  sandboard,
}) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  const auth = `Bearer ${await rest.login()}`;
  const post = async (path: string, body?: unknown) => {
    const res = await rest.request(path, { method: 'POST', auth, ...(body ? { json: body } : {}) });
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as { id: { id: string }; assignedCustomers?: { customerId: { id: string } }[] };
  };
  const device = (await post('/api/device', { name: 'Lobby sensor', type: 'lobby' })).id.id;
  await post(`/api/customer/public/device/${device}`);
  const token = (
    (await (await rest.request(`/api/device/${device}/credentials`, { auth })).json()) as {
      credentialsId: string;
    }
  ).credentialsId;
  const widget = {
    typeFullFqn: 'system.cards.value_card',
    type: 'latest',
    sizeX: 6,
    sizeY: 3,
    config: {
      title: 'Lobby temperature',
      showTitle: true,
      datasources: [
        {
          type: 'entity',
          entityAliasId: 'lobby',
          dataKeys: [
            { name: 'temperature', type: 'timeseries', label: 'Temperature', units: '°C', decimals: 1 },
          ],
        },
      ],
      settings: {},
    },
  };
  const configuration = {
    widgets: { w1: widget },
    entityAliases: {
      lobby: {
        id: 'lobby',
        alias: 'Lobby',
        filter: {
          type: 'singleEntity',
          resolveMultiple: false,
          singleEntity: { entityType: 'DEVICE', id: device },
        },
      },
    },
    states: {
      default: {
        name: 'Lobby',
        root: true,
        layouts: { main: { widgets: { w1: { sizeX: 6, sizeY: 3, row: 0, col: 0 } } } },
      },
    },
  };
  const dashboard = (await post('/api/dashboard', { title: 'Lobby screen', configuration })).id.id;
  const hidden = (await post('/api/dashboard', { title: 'Plant room', configuration })).id.id;

  const client = await mqtt.connectAsync(sandboard.urls.mqtt, { username: token, reconnectPeriod: 0 });
  try {
    await client.publishAsync('v1/devices/me/telemetry', JSON.stringify({ temperature: 21.5 }), { qos: 1 });
    // the tenant administrator makes it public on its page and copies the link
    await logIn(page);
    await page.goto(`/dashboards/${dashboard}`);
    await waitForPage(page, 'dashboard');
    await page.getByTestId('public-link').click();
    await page.getByTestId('public-switch').click();
    const link = await page.getByTestId('public-link-url').first().textContent();
    const publicId = new URL(link!).searchParams.get('publicId')!;
    expect(link).toBe(`${new URL(page.url()).origin}/dashboard/${dashboard}?publicId=${publicId}`);

    // a viewer (a tab of its own, no login) opens it
    const viewer = await page.context().newPage();
    await viewer.setViewportSize({ width: 1280, height: 720 });
    await viewer.goto(link!);
    await waitForPage(viewer, 'dashboard');
    await expect(viewer.getByTestId('dashboard-title')).toHaveText('Lobby screen');
    await expect(viewer.getByTestId('ws-status')).toHaveText('live');
    const value = viewer
      .locator('[data-testid="widget"][data-title="Lobby temperature"]')
      .getByTestId('value-card-value');
    await expect(value).toHaveText('21.5 °C');
    await client.publishAsync('v1/devices/me/telemetry', JSON.stringify({ temperature: 23 }), { qos: 1 });
    await expect(value).toHaveText('23.0 °C');
    // no app around it: no navigation, no login form, nothing to edit
    await expect(viewer.getByRole('navigation')).toHaveCount(0);
    await expect(viewer.getByRole('button', { name: /edit/i })).toHaveCount(0);

    // the same public id does not open a dashboard that is not public
    await viewer.goto(`/dashboard/${hidden}?publicId=${publicId}`);
    await expect(viewer.getByText("You don't have permission")).toBeVisible();
  } finally {
    await client.endAsync();
  }
});
