import { describe, expect, it } from 'vitest';
import {
  WIDGET_BUNDLES,
  WIDGET_CATALOG,
  bundleWidgets,
  catalogWidget,
  widgetTypeFullFqn,
} from '../../../shared/dashboards/widget-catalog.ts';

describe('the widget catalog the dashboard page renders', () => {
  it('names each widget once, in bundles it lists, with a size that fits the 24-column grid', () => {
    const fqns = WIDGET_CATALOG.map((w) => w.fqn);
    expect(new Set(fqns).size).toBe(fqns.length);
    const aliases = new Set(WIDGET_BUNDLES.map((b) => b.alias));
    for (const w of WIDGET_CATALOG) {
      expect(w.bundles.length, w.fqn).toBeGreaterThan(0);
      for (const b of w.bundles) expect(aliases.has(b), `${w.fqn} in ${b}`).toBe(true);
      expect(w.sizeX).toBeGreaterThan(0);
      expect(w.sizeX).toBeLessThanOrEqual(24);
    }
    for (const b of WIDGET_BUNDLES) expect(bundleWidgets(b.alias).length, b.alias).toBeGreaterThan(0);
  });

  it('finds a widget by its system FQN only', () => {
    expect(catalogWidget('system.cards.value_card')?.renderer).toBe('value-card');
    expect(catalogWidget('system.time_series_chart')?.kind).toBe('timeseries');
    expect(catalogWidget('cards.value_card')).toBeUndefined();
    expect(catalogWidget('tenant.cards.value_card')).toBeUndefined();
    expect(catalogWidget('system.no_such_widget')).toBeUndefined();
  });

  it('reads the type of a widget as ThingsBoard’s UI does, older exports included', () => {
    expect(widgetTypeFullFqn({ typeFullFqn: 'system.bar_chart' })).toBe('system.bar_chart');
    expect(widgetTypeFullFqn({ isSystemType: true, bundleAlias: 'cards', typeAlias: 'value_card' })).toBe(
      'system.cards.value_card',
    );
    expect(widgetTypeFullFqn({ isSystemType: false, bundleAlias: 'mine', typeAlias: 'rose' })).toBe(
      'tenant.mine.rose',
    );
    expect(widgetTypeFullFqn({ isSystemType: true, bundleAlias: 'charts', typeAlias: 'timeseries' })).toBe(
      'system.charts.basic_timeseries',
    );
    expect(widgetTypeFullFqn({})).toBeUndefined();
  });
});
