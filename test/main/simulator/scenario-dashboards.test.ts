/**
 * The dashboards shipped beside the scenarios: each is ThingsBoard dashboard JSON whose widgets are all
 * ones Sandboard renders, whose layouts and datasources name widgets and aliases it holds, and whose
 * device-type aliases and time series keys are the scenario's own, so the demo shows live data.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalogWidget } from '../../../shared/dashboards/widget-catalog.ts';
import type { Scenario } from '../../../shared/schemas/simulation.ts';
import { SCENARIO_DASHBOARDS, scenarioDashboard } from '../../../main/simulator/scenario-dashboards.ts';

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

const SCENARIO_FILES = ['smart-building.json', 'smart-building-gateway.json'];
const scenarios = SCENARIO_FILES.map(
  (f) =>
    JSON.parse(readFileSync(new URL(`../../../shared/scenarios/${f}`, import.meta.url), 'utf8')) as Scenario,
);

describe('the dashboards shipped with the scenarios', () => {
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

      const keysOfType = new Map(
        scenario.gateways.map((g) => [g.deviceType, new Set(g.keys.map((k) => k.key))]),
      );
      const allKeys = new Set(scenario.gateways.flatMap((g) => g.keys.map((k) => k.key)));
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
