import { expect, logIn, openFromNav, test } from './support/fixtures.ts';

test('the edge demo asks first, saying what it changes, and says when it starts a stopped simulation again; a stopped simulated edge is not asked for again', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const notFound: string[] = [];
  page.on('response', (res) => {
    if (res.status() === 404 && res.url().includes('/api/')) notFound.push(res.url());
  });
  await logIn(page);
  // the overview says what a gateway is in plain words
  await expect(page.getByText('Devices marked as gateways: they connect other devices')).toBeVisible();

  await openFromNav(page, 'edges');
  // the demo asks first and says what it changes; Cancel changes nothing
  await page.getByTestId('run-edge-demo').click();
  const confirm = page.getByTestId('edge-demo-confirm');
  await expect(confirm.getByTestId('edge-demo-change-chain')).toContainText('root rule chain');
  await expect(confirm.getByTestId('edge-demo-change-chain')).toContainText('Push to edge');
  await expect(confirm.getByTestId('edge-demo-change-simulation')).toContainText('is created and started');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toHaveCount(0);
  await expect(page.getByTestId('demo-result')).toHaveCount(0);
  await page.getByTestId('run-edge-demo').click();
  await page.getByTestId('confirm-edge-demo').click();
  await expect(page.getByTestId('demo-result')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('demo-restarted')).toHaveCount(0);
  // the simulated edge's events name their device
  await expect(page.getByTestId('edge-sim-event-entity').first()).toContainText(/^DEVICE Building [AB] /, {
    timeout: 20_000,
  });

  // the user stops the gateway simulation; running the demo again starts it, and says so
  await openFromNav(page, 'gateways');
  await page.getByRole('button', { name: 'Stop Smart building gateways' }).click();
  await expect(page.getByTestId('simulation-row')).toContainText('stopped', { timeout: 20_000 });
  await openFromNav(page, 'edges');
  await page.getByTestId('run-edge-demo').click();
  await expect(page.getByTestId('edge-demo-change-simulation')).toContainText(
    'The gateway simulation “Smart building gateways” is stopped: it is started again.',
  );
  await page.getByTestId('confirm-edge-demo').click();
  await expect(page.getByTestId('demo-restarted')).toBeVisible({ timeout: 30_000 });

  // stopping the simulated edge removes it at once, without asking the server for it afterwards
  await expect(page.getByTestId('edge-simulator-state')).toHaveText('running');
  await page.getByTestId('stop-edge-simulator').click();
  await expect(page.getByTestId('edge-simulator')).toHaveCount(0);
  await expect(page.getByTestId('start-edge-simulator')).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(notFound).toEqual([]);
});
