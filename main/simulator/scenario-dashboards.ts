/**
 * The dashboards shipped beside the scenarios (shared/scenarios/*.dashboard.json, ThingsBoard's dashboard
 * JSON): a shipped scenario set up on the embedded platform gets its dashboard, created once under its
 * title, so a demo has a dashboard to show. A user's dashboard of the same title is left alone.
 */
import { readFileSync } from 'node:fs';
import type { Scenario } from '../../shared/schemas/simulation.ts';
import type { SaveDashboardRequest } from '../../shared/schemas/dashboards.ts';
import type { Principal } from '../platform/auth/principal.ts';
import type { Services } from '../platform/services.ts';

/** Shipped scenario name -> its dashboard file beside it. */
export const SCENARIO_DASHBOARDS: Readonly<Record<string, string>> = {
  'Smart building': 'smart-building.dashboard.json',
  'Smart building gateways': 'smart-building-gateway.dashboard.json',
  'Scripted thermostats': 'scripted-thermostats.dashboard.json',
};

const SCENARIOS_DIR = new URL('../../shared/scenarios/', import.meta.url);

/** The dashboard shipped for a scenario, as ThingsBoard's export JSON, or undefined when it has none. */
export function scenarioDashboard(scenarioName: string): SaveDashboardRequest | undefined {
  const file = SCENARIO_DASHBOARDS[scenarioName];
  if (!file) return undefined;
  return JSON.parse(readFileSync(new URL(file, SCENARIOS_DIR), 'utf8')) as SaveDashboardRequest;
}

/** Creates the scenario's dashboard when no dashboard has its title yet. */
export async function ensureScenarioDashboard(
  services: Services,
  scenario: Scenario,
  actor: Principal,
): Promise<void> {
  const dashboard = scenarioDashboard(scenario.name);
  if (!dashboard || services.dashboards.findByTitle(dashboard.title)) return;
  await services.dashboards.save(dashboard, actor);
}
