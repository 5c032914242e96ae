import { expect, logIn, openFromNav, saveScreenshotsInBothThemes, test } from './support/fixtures.ts';
import { pushRestTelemetryToEdges } from './support/edges.ts';

test('create an edge, assign a device, and inspect its queue and a simulated edge', async ({
  page,
  rest,
}) => {
  test.setTimeout(180_000);
  const jwt = await rest.login();
  await pushRestTelemetryToEdges(rest, jwt);
  const created = await rest.request('/api/device', {
    method: 'POST',
    json: { name: 'Edge meter' },
    auth: `Bearer ${jwt}`,
  });
  const deviceId = ((await created.json()) as { id: { id: string } }).id.id;
  await rest.request('/api/device', { method: 'POST', json: { name: 'Other meter' }, auth: `Bearer ${jwt}` });

  await logIn(page);
  await openFromNav(page, 'edges');
  await expect(page.getByTestId('edge-success-note')).toContainText(
    'Success means the event is stored in the edge queue, not that the edge received it.',
  );

  // a new edge: its secret is shown once, with a copy button
  await page.getByTestId('add-edge').click();
  const form = page.getByTestId('edge-form');
  await form.getByRole('textbox', { name: 'Name' }).fill('Factory edge');
  await page.getByTestId('save-edge').click();
  await expect(page.getByTestId('secret-warning')).toContainText('shown once');
  await expect(page.getByTestId('edge-secret')).toHaveText(/^\S{8,}$/);
  await expect(page.getByRole('button', { name: 'Copy secret' })).toBeVisible();
  await page.getByTestId('close-secret').click();
  await expect(page.getByTestId('edge-row')).toHaveCount(1);
  await expect(page.getByTestId('edge-detail')).toHaveAttribute('data-edge', 'Factory edge');

  // assign a device from the searchable picker
  const picker = page.getByTestId('edge-device-picker');
  await picker.click();
  await picker.fill('Edge');
  await page.getByRole('option', { name: 'Edge meter' }).click();
  await page.getByTestId('assign-device').click();
  await expect(page.getByTestId('assigned-device')).toHaveText(/Edge meter/);

  // telemetry posted through REST lands in the queue, with its body
  await rest.postTelemetry(jwt, deviceId, { temperature: 42.5 });
  await expect(page.getByTestId('queue-PENDING')).toHaveText('1');
  const event = page.getByTestId('edge-event');
  await expect(event).toHaveCount(1);
  await expect(event).toHaveAttribute('data-action', 'TIMESERIES_UPDATED');
  await expect(event.getByTestId('edge-event-body')).toContainText('"temperature":42.5');
  await page.getByTestId('event-status-filter').getByText('delivered').click();
  await expect(page.getByTestId('edge-events')).toContainText('No delivered events.');
  await page.getByTestId('event-status-filter').getByText('All').click();
  await expect(event).toHaveCount(1);

  // a simulated edge (with the secret kept from creation) pulls and acknowledges it
  await page.getByTestId('start-edge-simulator').click();
  await expect(page.getByTestId('edge-simulator-state')).toHaveText('running');
  await expect(page.getByTestId('queue-DELIVERED')).toHaveText('1');
  await expect(page.getByTestId('edge-sim-acknowledged')).toHaveText('1');

  // paused, the queue grows; resumed, it drains
  await page.getByTestId('pause-edge-simulator').click();
  await expect(page.getByTestId('edge-simulator-state')).toHaveText('paused');
  await rest.postTelemetry(jwt, deviceId, [
    { ts: Date.now() - 1000, values: { temperature: 43 } },
    { ts: Date.now(), values: { temperature: 44 } },
  ]);
  await expect(page.getByTestId('queue-PENDING')).toHaveText('2');
  await saveScreenshotsInBothThemes(page, 'edges-paused');
  await page.getByTestId('pause-edge-simulator').click();
  await expect(page.getByTestId('edge-simulator-state')).toHaveText('running');
  await expect(page.getByTestId('queue-DELIVERED')).toHaveText('3');
  await expect(page.getByTestId('queue-PENDING')).toHaveText('0');

  // unassigned, the device's telemetry no longer reaches the edge
  await page.getByRole('button', { name: 'Unassign Edge meter' }).click();
  await expect(page.getByTestId('assigned-device')).toHaveCount(0);

  // the demo either runs or says plainly why not
  await page.getByTestId('run-edge-demo').click();
  await page.getByTestId('confirm-edge-demo').click();
  await expect(
    page
      .getByTestId('demo-result')
      .or(page.getByRole('alert').filter({ hasText: 'The edge sync demo failed' })),
  ).toBeVisible();
});
