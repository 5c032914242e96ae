/**
 * The dashboard page draws every widget the widget library lists, and the dashboards shipped with the
 * scenarios open in it whole: each widget has a renderer, each alias becomes an entity filter.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SYSTEM_SCOPE, WIDGET_CATALOG } from '../../../../shared/dashboards/widget-catalog.ts';
import { resolveAlias } from '../../../../renderer/src/pages/dashboards/aliases.ts';
import { normalizeDashboard, widgetFqn } from '../../../../renderer/src/pages/dashboards/dashboard-model.ts';
import { widgetKind } from '../../../../renderer/src/pages/dashboards/widget-kinds.ts';

const entity = {
  entityId: { entityType: 'DEVICE', id: '784f394c-42b6-435a-983c-b7beff2784f9' },
  entityName: 'x',
};

describe('widget coverage', () => {
  it('every widget type of the library (GET /api/widgetTypes) has a renderer on the page', () => {
    const missing = WIDGET_CATALOG.map((w) => `${SYSTEM_SCOPE}.${w.fqn}`).filter((fqn) => !widgetKind(fqn));
    expect(missing).toEqual([]);
  });

  for (const file of [
    'smart-building.dashboard.json',
    'smart-building-gateway.dashboard.json',
    'scripted-thermostats.dashboard.json',
  ])
    it(`${file} opens with every widget drawn and every alias resolved`, () => {
      const d = normalizeDashboard(
        JSON.parse(readFileSync(new URL(`../../../../shared/scenarios/${file}`, import.meta.url), 'utf8')),
      );
      const widgets = Object.values(d.configuration.widgets);
      expect(widgets.length).toBeGreaterThan(5);
      expect(widgets.map(widgetFqn).filter((fqn) => !widgetKind(fqn))).toEqual([]);
      for (const alias of Object.values(d.configuration.entityAliases))
        expect(resolveAlias(alias, entity), alias.alias).not.toBeInstanceOf(Error);
    });
});
