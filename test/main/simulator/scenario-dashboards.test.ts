/**
 * The dashboards shipped beside the scenarios: each is ThingsBoard dashboard JSON whose widgets are all
 * ones Sandboard renders, whose layouts and datasources name widgets and aliases it holds, and whose
 * device-type aliases and time series keys are the scenario's own (a scripted gateway's: those its script's
 * onTick publishes), so the demo shows live data.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogWidget } from '../../../shared/dashboards/widget-catalog.ts';
import type { Scenario } from '../../../shared/schemas/simulation.ts';
import { SCENARIO_DASHBOARDS, scenarioDashboard } from '../../../main/simulator/scenario-dashboards.ts';
import { DeviceScript } from '../../../main/simulator/device-script.ts';
import { ScriptSandbox } from '../../../main/rule-engine/script/script-sandbox.ts';

interface Datasource {
  entityAliasId?: string;
  dataKeys?: { name: string; type: string }[];
}
interface Widget {
  typeFullFqn: string;
  config: { datasources?: Datasource[]; alarmSource?: Datasource; targetDevice?: Datasource };
}
interface Config {
  widgets: Record<string, Widget>;
  states: Record<string, { layouts: Record<string, { widgets: Record<string, unknown> }> }>;
  entityAliases: Record<string, { filter: { type: string; deviceTypes?: string[] } }>;
}

const SCENARIO_FILES = ['smart-building.json', 'smart-building-gateway.json', 'scripted-thermostats.json'];
const scenarios = SCENARIO_FILES.map(
  (f) =>
    JSON.parse(readFileSync(new URL(`../../../shared/scenarios/${f}`, import.meta.url), 'utf8')) as Scenario,
);

const sandbox = new ScriptSandbox({ workers: 1, limits: { timeoutMs: 1000, maxResultChars: 16_384 } });
afterAll(() => sandbox.close());

/** The time series keys a gateway's devices publish: its generators', or what its script's first tick returns. */
async function gatewayKeys(g: Scenario['gateways'][number]): Promise<string[]> {
  if (!g.script) return g.keys.map((k) => k.key);
  const errors: unknown[] = [];
  const script = new DeviceScript({
    source: g.script,
    gateway: g.name,
    deviceType: g.deviceType ?? 'default',
    seed: 'keys',
    devices: [{ name: 'D', n: 1 }],
    onError: (e) => errors.push(e),
    sandbox,
  });
  const outcome = await new Promise<{ telemetry: Record<string, unknown>[] } | null>((resolve) =>
    script.ticks(['D'], Date.now(), 0, (_device, out) => resolve(out)),
  );
  expect(errors).toEqual([]);
  return [...new Set(outcome!.telemetry.flatMap((t) => Object.keys(t)))];
}

describe('the dashboards shipped with the scenarios', () => {
  const keysOfScenario = new Map<string, Map<string | undefined, Set<string>>>();
  beforeAll(async () => {
    for (const scenario of scenarios)
      keysOfScenario.set(
        scenario.name,
        new Map(
          await Promise.all(
            scenario.gateways.map(async (g) => [g.deviceType, new Set(await gatewayKeys(g))] as const),
          ),
        ),
      );
  });

  it('every shipped scenario has one', () => {
    expect(Object.keys(SCENARIO_DASHBOARDS).sort()).toEqual(scenarios.map((s) => s.name).sort());
  });

  for (const scenario of scenarios)
    it(`${scenario.name}: renders, and shows the scenario's own devices and keys`, () => {
      const dashboard = scenarioDashboard(scenario.name)!;
      expect(dashboard.title).toBe(scenario.name);
      const config = dashboard.configuration as unknown as Config;
      const widgets = Object.values(config.widgets);
      expect(widgets.filter((w) => !catalogWidget(w.typeFullFqn)).map((w) => w.typeFullFqn)).toEqual([]);
      for (const state of Object.values(config.states))
        for (const layout of Object.values(state.layouts))
          for (const id of Object.keys(layout.widgets)) expect(config.widgets[id]).toBeDefined();

      const keysOfType = keysOfScenario.get(scenario.name)!;
      const allKeys = new Set([...keysOfType.values()].flatMap((keys) => [...keys]));
      expect(allKeys.size).toBeGreaterThan(0);
      for (const alias of Object.values(config.entityAliases))
        for (const type of alias.filter.deviceTypes ?? []) expect(keysOfType.has(type)).toBe(true);
      for (const w of widgets)
        for (const ds of [...(w.config.datasources ?? []), w.config.alarmSource, w.config.targetDevice]) {
          if (!ds?.entityAliasId) continue;
          const alias = config.entityAliases[ds.entityAliasId];
          expect(alias, `${w.typeFullFqn}: alias ${ds.entityAliasId}`).toBeDefined();
          const own = alias!.filter.deviceTypes?.length
            ? new Set(alias!.filter.deviceTypes.flatMap((t) => [...keysOfType.get(t)!]))
            : allKeys;
          for (const key of ds.dataKeys ?? [])
            if (key.type === 'timeseries') expect(own, `${w.typeFullFqn}: ${key.name}`).toContain(key.name);
        }
    });
});
