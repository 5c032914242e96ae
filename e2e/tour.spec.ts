import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import {
  expect,
  logIn,
  openFromNav,
  saveScreenshot,
  test,
  waitForPage,
  type RestClient,
} from './support/fixtures.ts';

const PUSH_TO_EDGE = 'org.thingsboard.rule.engine.edge.TbMsgPushToEdgeNode';

/**
 * Something real to show, made through REST: devices, a gateway, a push to edge node in the root chain,
 * an edge with a simulated edge, telemetry, attributes, an API key and a (stopped) gateway simulation.
 */
async function seed(rest: RestClient): Promise<{ boiler: string; simulation: string }> {
  const jwt = await rest.login();
  const auth = `Bearer ${jwt}`;
  const post = async (path: string, body?: unknown) => {
    const res = await rest.request(path, { method: 'POST', json: body, auth });
    expect(res.status, await res.clone().text()).toBe(200);
    const text = await res.text();
    return (text ? JSON.parse(text) : undefined) as { id: { id: string } | string; secret?: string };
  };
  const save = async (body: unknown) => ((await post('/api/device', body)).id as { id: string }).id;
  const boiler = await save({ name: 'Boiler 7', label: 'Basement', type: 'thermal' });
  await save({ name: 'Gateway A', additionalInfo: { gateway: true, description: 'Hall 2 gateway' } });
  await save({ name: 'Door sensor', type: 'contact' });

  // push to edge after Save Timeseries, and for telemetry posted through REST (Timeseries Updated)
  const chains = (await (await rest.request('/api/ruleChains?page=0&pageSize=10', { auth })).json()) as {
    data: { id: { id: string }; root: boolean }[];
  };
  const rootId = chains.data.find((c) => c.root)!.id.id;
  const metadata = (await (await rest.request(`/api/ruleChain/${rootId}/metadata`, { auth })).json()) as {
    nodes: unknown[];
    connections: { fromIndex: number; toIndex: number; type: string }[];
  };
  metadata.nodes.push({
    type: PUSH_TO_EDGE,
    name: 'Push to edge',
    debugMode: true,
    configuration: { scope: 'SERVER_SCOPE' },
    additionalInfo: { layoutX: 1080, layoutY: 240 },
  });
  const push = metadata.nodes.length - 1;
  metadata.connections.push({ fromIndex: 1, toIndex: push, type: 'Success' });
  metadata.connections.push({ fromIndex: 0, toIndex: push, type: 'Timeseries Updated' });
  await post('/api/ruleChain/metadata', metadata);
  const edge = await post('/api/edge', { name: 'Plant floor edge', label: 'Line 3' });
  const edgeId = (edge.id as { id: string }).id;
  await post(`/api/edge/${edgeId}/device/${boiler}`);
  await post('/api/sandboard/edgeSimulators', { edgeId, secret: edge.secret, ratePerSec: 2, batchSize: 5 });

  const now = Date.now();
  await rest.postTelemetry(
    jwt,
    boiler,
    Array.from({ length: 40 }, (_, i) => ({
      ts: now - (40 - i) * 15_000,
      values: { temperature: 60 + 8 * Math.sin(i / 5), pressure: 1.8 + 0.2 * Math.cos(i / 7) },
    })),
  );
  for (const [scope, values] of [
    ['SHARED_SCOPE', { targetTemperature: 65, mode: 'eco' }],
    ['SERVER_SCOPE', { serialNumber: 'SN-0042', installed: '2024-05-01' }],
  ] as const) {
    await post(`/api/plugins/telemetry/DEVICE/${boiler}/attributes/${scope}`, values);
  }
  await post('/api/apiKey', { description: 'CI pipeline' });
  const scenario = JSON.parse(
    readFileSync(new URL('../shared/scenarios/smart-building-gateway.json', import.meta.url), 'utf8'),
  ) as unknown;
  const simulation = (await post('/api/sandboard/simulations', scenario)).id as string;
  return { boiler, simulation };
}

/** The seeded devices' profiles: default (the gateway), thermal (the boiler), contact (the door sensor). */
const PROFILES = 3;

/** What each page shows once it has its data (so screenshots are not of spinners). */
const SETTLED: Record<string, (page: Page) => Promise<void>> = {
  overview: (p) => expect(p.getByTestId('stat-devices')).toHaveText('3'),
  devices: (p) => expect(p.getByTestId('device-link')).toHaveCount(3),
  'device-profiles': (p) => expect(p.getByTestId('profile-link')).toHaveCount(PROFILES),
  gateways: (p) => expect(p.getByTestId('simulation-row')).toHaveCount(1),
  'rest-connector': (p) => expect(p.getByTestId('connectors-table')).toBeVisible(),
  'rule-chains': (p) => expect(p.getByTestId('rule-node')).toHaveCount(7),
  edges: async (p) => {
    await expect(p.getByTestId('edge-simulator-state')).toHaveText('running');
    await expect(p.getByTestId('edge-event')).toHaveCount(10);
  },
  reports: (p) => expect(p.getByTestId('demo-card')).toHaveAttribute('data-state', 'NOT_LOADED'),
  security: (p) => expect(p.getByTestId('api-key-row')).toHaveCount(1),
  'api-explorer': (p) =>
    expect(
      p.frameLocator('iframe[title="API explorer"]').locator('body[data-explorer-ready="true"]'),
    ).toBeAttached({
      timeout: 30_000,
    }),
  settings: (p) => expect(p.getByTestId('platform-version')).toHaveText(/\d+\.\d+\.\d+/),
};

test('every page renders with real data, in the light and the dark theme (screenshots)', async ({
  page,
  rest,
}) => {
  test.setTimeout(150_000); // twelve pages, twice
  // no script errors and no Content-Security-Policy violations on any page
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  const { boiler, simulation } = await seed(rest);
  for (const theme of ['light', 'dark'] as const) {
    // the app's theme is "auto" until chosen: it follows the system's
    await page.emulateMedia({ colorScheme: theme });
    await page.goto('/');
    if (theme === 'light') {
      await waitForPage(page, 'login');
      await saveScreenshot(page, `login-${theme}`);
      await logIn(page);
    } else {
      await waitForPage(page, 'overview');
    }
    for (const [id, settled] of Object.entries(SETTLED)) {
      await openFromNav(page, id);
      await settled(page);
      await saveScreenshot(page, `${id}-${theme}`);
    }
    await page.goto(`/devices/${boiler}`);
    await waitForPage(page, 'device');
    await expect(page.getByTestId('telemetry-chart').locator('path.recharts-line-curve')).toHaveCount(2);
    await expect(page.getByTestId('attributes-SHARED_SCOPE')).toContainText('targetTemperature');
    await expect(page.getByTestId('rpc-console')).toBeVisible();
    await saveScreenshot(page, `device-${theme}`);
    await page.goto(`/gateways/${simulation}`);
    await waitForPage(page, 'simulation');
    await expect(page.getByTestId('gateway-status-row')).toHaveCount(2);
    await saveScreenshot(page, `simulation-${theme}`);
    await page.getByTestId('tab-scenario').click();
    await expect(page.getByTestId('scenario-editor')).toBeVisible();
    await saveScreenshot(page, `simulation-scenario-${theme}`);
  }
  // the login page in the dark theme, too
  await page.getByTestId('user-menu').click();
  await page.getByTestId('logout').click();
  await waitForPage(page, 'login');
  await saveScreenshot(page, 'login-dark');
  expect(problems).toEqual([]);
});

test('the theme toggle switches and is remembered', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await logIn(page);
  const html = page.locator('html');
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');
  await page.getByTestId('theme-toggle').click();
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');
  await page.reload();
  await waitForPage(page, 'overview');
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');
  await openFromNav(page, 'settings');
  await page.getByTestId('theme-choice').getByText('Light').click();
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');
});
