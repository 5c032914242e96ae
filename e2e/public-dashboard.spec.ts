import mqtt from 'mqtt';
import { expect, test, waitForPage } from './support/fixtures.ts';

// ThingsBoard's public link: a dashboard assigned to the public customer opens at
// /dashboard/{id}?publicId={customerId} without a login, live, and without the app around it.
test('a public dashboard link shows live values without a login, and only the public dashboard', async ({
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
  const publicId = (await post(`/api/customer/public/dashboard/${dashboard}`)).assignedCustomers![0]!
    .customerId.id;
  const hidden = (await post('/api/dashboard', { title: 'Plant room', configuration })).id.id;

  const client = await mqtt.connectAsync(sandboard.urls.mqtt, { username: token, reconnectPeriod: 0 });
  try {
    await client.publishAsync('v1/devices/me/telemetry', JSON.stringify({ temperature: 21.5 }), { qos: 1 });
    await page.goto(`/dashboard/${dashboard}?publicId=${publicId}`);
    await waitForPage(page, 'dashboard');
    await expect(page.getByTestId('dashboard-title')).toHaveText('Lobby screen');
    await expect(page.getByTestId('ws-status')).toHaveText('live');
    const value = page
      .locator('[data-testid="widget"][data-title="Lobby temperature"]')
      .getByTestId('value-card-value');
    await expect(value).toHaveText('21.5 °C');
    await client.publishAsync('v1/devices/me/telemetry', JSON.stringify({ temperature: 23 }), { qos: 1 });
    await expect(value).toHaveText('23.0 °C');
    // no app around it: no navigation, no login form, nothing to edit
    await expect(page.getByRole('navigation')).toHaveCount(0);
    await expect(page.getByRole('button', { name: /edit/i })).toHaveCount(0);

    // the same public id does not open a dashboard that is not public
    await page.goto(`/dashboard/${hidden}?publicId=${publicId}`);
    await expect(page.getByText("You don't have permission")).toBeVisible();
  } finally {
    await client.endAsync();
  }
});
