import { expect, logIn, openFromNav, saveScreenshotsInBothThemes, test } from './support/fixtures.ts';
import { pushRestTelemetryToEdges } from './support/edges.ts';

test('cut a simulated edge off: a clean verdict, then one naming the duplicates a fault injected', async ({
  page,
  rest,
}) => {
  test.setTimeout(180_000);
  const jwt = await rest.login();
  const auth = `Bearer ${jwt}`;
  await pushRestTelemetryToEdges(rest, jwt);
  const device = await rest.newDevice(jwt, 'Cut-off meter');
  const created = await rest.request('/api/edge', { method: 'POST', json: { name: 'Remote site' }, auth });
  expect(created.status, await created.clone().text()).toBe(200);
  const edge = (await created.json()) as { id: { id: string }; secret: string };
  const assigned = await rest.request(`/api/edge/${edge.id.id}/device/${device.id}`, {
    method: 'POST',
    auth,
  });
  expect(assigned.status, await assigned.clone().text()).toBe(200);
  let ts = Date.now() - 60_000;
  const post = (n: number) =>
    rest.postTelemetry(
      jwt,
      device.id,
      Array.from({ length: n }, () => ({ ts: ts++, values: { level: ts % 100 } })),
    );

  await logIn(page);
  await openFromNav(page, 'edges');
  await page.getByTestId('edge-row').filter({ hasText: 'Remote site' }).getByRole('button').first().click();
  await page.getByLabel('Edge secret').fill(edge.secret);
  await page.getByTestId('start-edge-simulator').click();
  await expect(page.getByTestId('edge-simulator-state')).toHaveText('running');
  await post(1);
  await expect(page.getByTestId('edge-sim-acknowledged')).toHaveText('1');

  // cut off: events queue up; reconnected, all three arrive once and in order
  await page.getByTestId('edge-cut-off-seconds').fill('120');
  await page.getByTestId('cut-off-edge').click();
  await expect(page.getByTestId('edge-simulator-state')).toHaveText('cut off');
  await post(3);
  await expect(page.getByTestId('queue-PENDING')).toHaveText('3');
  await expect(page.getByTestId('edge-cut-off-progress')).toContainText('reconnects at');
  await page.getByTestId('reconnect-edge').click();
  const verdict = page.getByTestId('edge-cut-off-verdict');
  await expect(verdict).toHaveAttribute('data-verdict', 'clean');
  await expect(verdict).toContainText('Clean: all 3 events arrived exactly once, in order');
  await expect(verdict).toContainText('events #2 to #4');

  // every event handled twice on the receiving side: the verdict names them
  await page.getByTestId('edge-sim-fault-duplicate').fill('100');
  await page.getByTestId('apply-edge-sim-faults').click();
  await page.getByTestId('cut-off-edge').click();
  await expect(page.getByTestId('edge-simulator-state')).toHaveText('cut off');
  await post(2);
  await expect(page.getByTestId('queue-PENDING')).toHaveText('2');
  await page.getByTestId('reconnect-edge').click();
  await expect(verdict).toHaveAttribute('data-verdict', 'faulty');
  await expect(verdict).toContainText('Not clean: 2 duplicated');
  await expect(page.getByTestId('edge-verdict-duplicated')).toContainText('#5, #6');
  await expect(page.getByTestId('edge-verdict-missing')).toContainText('none');
  await saveScreenshotsInBothThemes(page, 'edges-cut-off-verdict');
});
