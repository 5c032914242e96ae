import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { PAGES, type PageId } from '../../renderer/src/shell/page-catalog.ts';
import { expect, logIn, waitForPage, type RestClient } from './fixtures.ts';

const PUSH_TO_EDGE = 'org.thingsboard.rule.engine.edge.TbMsgPushToEdgeNode';

/** What seed() made: the ids the detail pages open. */
export interface Seeded {
  boiler: string;
  /** the boiler's device profile ("thermal") */
  profile: string;
  simulation: string;
  /** an asset the boiler is in ("Hall 2") */
  asset: string;
  /** a ThingsBoard dashboard (e2e/fixtures/thingsboard-dashboard.json) about the boiler */
  dashboard: string;
}

/**
 * Something real to show, made through REST: devices, a gateway, a push to edge node in the root chain,
 * an edge with a simulated edge, telemetry, attributes, an API key and a (stopped) gateway simulation.
 */
export async function seed(rest: RestClient): Promise<Seeded> {
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
    firstNodeIndex: number;
    nodes: {
      type: string;
      name?: string;
      debugMode?: boolean;
      configuration?: unknown;
      additionalInfo?: unknown;
    }[];
    connections: { fromIndex: number; toIndex: number; type: string }[];
  };
  // ThingsBoard's root chain: the device profile node, then the message type switch; Save Timeseries after it.
  const saveTs = metadata.nodes.findIndex((n) => n.type.endsWith('.TbMsgTimeseriesNode'));
  const typeSwitch = metadata.nodes.findIndex((n) => n.type.endsWith('.TbMsgTypeSwitchNode'));
  metadata.nodes.push({
    type: PUSH_TO_EDGE,
    name: 'Push to edge',
    debugMode: true,
    configuration: { scope: 'SERVER_SCOPE' },
    additionalInfo: { layoutX: 1080, layoutY: 240 },
  });
  const push = metadata.nodes.length - 1;
  metadata.connections.push({ fromIndex: saveTs, toIndex: push, type: 'Success' });
  metadata.connections.push({
    fromIndex: typeSwitch,
    toIndex: push,
    type: 'Timeseries Updated',
  });
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
  // an asset the boiler is in, and an alarm of the boiler shown on both
  const asset = (
    (await post('/api/asset', { name: 'Hall 2', type: 'building', label: 'North wing' })).id as { id: string }
  ).id;
  await post('/api/relation', {
    from: { entityType: 'ASSET', id: asset },
    to: { entityType: 'DEVICE', id: boiler },
    type: 'Contains',
  });
  await post('/api/alarm', {
    type: 'Overheat',
    severity: 'MAJOR',
    originator: { entityType: 'DEVICE', id: boiler },
    propagate: true,
  });
  const scenario = JSON.parse(
    readFileSync(new URL('../../shared/scenarios/smart-building-gateway.json', import.meta.url), 'utf8'),
  ) as unknown;
  const simulation = (await post('/api/sandboard/simulations', scenario)).id as string;
  // a short recording: over before the tour reaches the Recordings page
  await post('/api/sandboard/recordings', { durationMs: 200, name: 'Boiler warm-up' });
  const device = (await (await rest.request(`/api/device/${boiler}`, { auth })).json()) as {
    deviceProfileId: { id: string };
  };
  const dashboardFile = JSON.parse(
    readFileSync(new URL('../fixtures/thingsboard-dashboard.json', import.meta.url), 'utf8'),
  ) as unknown;
  const dashboard = ((await post('/api/dashboard', dashboardFile)).id as { id: string }).id;
  return { boiler, profile: device.deviceProfileId.id, simulation, asset, dashboard };
}

/** The parameters a detail page opens with, from what seed() made. */
const PARAMS: Partial<Record<PageId, (s: Seeded) => Record<string, string>>> = {
  device: (s) => ({ id: s.boiler }),
  'device-profile': (s) => ({ id: s.profile }),
  simulation: (s) => ({ id: s.simulation }),
  asset: (s) => ({ id: s.asset }),
  dashboard: (s) => ({ id: s.dashboard }),
};

/** What a page shows once it has its data (so checks and screenshots are not of spinners). */
const SETTLED: Partial<Record<PageId, (page: Page) => Promise<void>>> = {
  overview: (p) => expect(p.getByTestId('stat-devices')).toHaveText('3'),
  'start-here': (p) => expect(p.getByTestId('sandbox-card')).toHaveCount(4),
  devices: (p) => expect(p.getByTestId('device-link')).toHaveCount(3),
  device: async (p) => {
    await expect(p.getByTestId('telemetry-chart').locator('path.recharts-line-curve')).toHaveCount(2);
    await expect(p.getByTestId('attributes-SHARED_SCOPE')).toContainText('targetTemperature');
  },
  // the seeded devices' profiles: default (the gateway), thermal (the boiler), contact (the door sensor)
  'device-profiles': (p) => expect(p.getByTestId('profile-link')).toHaveCount(3),
  assets: (p) => expect(p.getByTestId('asset-link')).toHaveCount(1),
  asset: async (p) => {
    await expect(p.getByTestId('relations-from').getByTestId('relation-row')).toHaveCount(1);
    await expect(p.getByTestId('entity-alarms').getByTestId('alarm-row')).toHaveCount(1);
  },
  dashboards: (p) => expect(p.getByRole('link', { name: 'Plant floor (ThingsBoard export)' })).toBeVisible(),
  dashboard: async (p) => {
    await expect(p.getByTestId('ws-status')).toHaveText('live');
    await expect(p.getByTestId('value-card-value').first()).not.toHaveText('–');
  },
  alarms: async (p) => {
    await expect(p.getByTestId('alarm-row')).toHaveCount(1);
    await expect(p.getByTestId('alarm-count')).toHaveText('1');
  },
  gateways: (p) => expect(p.getByTestId('simulation-row')).toHaveCount(1),
  simulation: (p) => expect(p.getByTestId('gateway-status-row')).toHaveCount(2),
  recordings: (p) => expect(p.getByTestId('recording-state')).toHaveText(['stopped']),
  'rest-connector': (p) => expect(p.getByTestId('connectors-table')).toBeVisible(),
  'rule-chains': (p) => expect(p.getByTestId('rule-node')).toHaveCount(8),
  edges: async (p) => {
    await expect(p.getByTestId('edge-simulator-state')).toHaveText('running');
    await expect(p.getByTestId('edge-event')).toHaveCount(10);
  },
  reports: (p) => expect(p.getByTestId('demo-card')).toHaveAttribute('data-state', 'NOT_LOADED'),
  security: (p) => expect(p.getByTestId('api-key-row')).toHaveCount(1),
  'api-explorer': (p) =>
    expect(
      p.frameLocator('iframe[title="API explorer"]').locator('body[data-explorer-ready="true"]'),
    ).toBeAttached({ timeout: 30_000 }),
  settings: (p) => expect(p.getByTestId('platform-version')).toHaveText(/\d+\.\d+\.\d+/),
};

/** Every page of the app's catalog, with the path to open it (a new page is visited without a change here). */
export function tourStops(seeded: Seeded): { id: PageId; label: string; path: string }[] {
  return PAGES.map((p) => {
    const params = p.path.includes(':') ? PARAMS[p.id]?.(seeded) : {};
    if (!params)
      throw new Error(`e2e/support/tour.ts: say which ${p.id} page to open (PARAMS) for the path ${p.path}`);
    const path = p.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
    return { id: p.id, label: p.label, path };
  });
}

/** Opens a page of the tour and waits until it shows its data. */
export async function visit(page: Page, stop: { id: PageId; path: string }): Promise<void> {
  await page.goto(stop.path);
  await waitForPage(page, stop.id);
  await SETTLED[stop.id]?.(page);
}

export { logIn };
