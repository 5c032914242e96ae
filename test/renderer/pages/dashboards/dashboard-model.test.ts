import { describe, expect, it } from 'vitest';
import { resolveAlias } from '../../../../renderer/src/pages/dashboards/aliases.ts';
import {
  exportDashboard,
  normalizeDashboard,
  rootStateId,
  widgetFqn,
} from '../../../../renderer/src/pages/dashboards/dashboard-model.ts';
import { markdownToHtml } from '../../../../renderer/src/pages/dashboards/markdown.ts';
import { timeRange, timeseriesCmd } from '../../../../renderer/src/pages/dashboards/timewindow.ts';
import { widgetKind } from '../../../../renderer/src/pages/dashboards/widget-kinds.ts';

const device = { entityType: 'DEVICE', id: '784f394c-42b6-435a-983c-b7beff2784f9' };

describe('a ThingsBoard dashboard file', () => {
  it('opens with widgets by id, its states and layouts, and the root state first', () => {
    const d = normalizeDashboard({
      title: 'Plant',
      configuration: {
        widgets: { w1: { typeFullFqn: 'system.cards.value_card', config: { title: 'T' } } },
        states: {
          default: {
            name: 'Plant',
            root: true,
            layouts: { main: { widgets: { w1: { sizeX: 30, sizeY: 4, row: 2, col: -3 } } } },
          },
          device: { name: '${entityName}', root: false, layouts: { main: { widgets: {} } } },
        },
        entityAliases: {
          a1: {
            alias: 'Pumps',
            filter: { type: 'deviceType', deviceTypes: ['pump'], resolveMultiple: true },
          },
        },
      },
    });
    expect(rootStateId(d)).toBe('default');
    expect(d.configuration.widgets.w1!.id).toBe('w1');
    // out-of-range layout numbers are brought onto the 24-column grid
    expect(d.configuration.states.default!.layouts.main.widgets.w1).toEqual({
      sizeX: 24,
      sizeY: 4,
      row: 2,
      col: 0,
    });
    expect(d.configuration.entityAliases.a1!.id).toBe('a1');
  });

  it('without states, every widget lands on a default root state where it says it is', () => {
    const d = normalizeDashboard({
      title: 'Old',
      configuration: {
        widgets: [
          {
            id: 'x',
            sizeX: 6,
            sizeY: 3,
            row: 1,
            col: 4,
            bundleAlias: 'cards',
            typeAlias: 'value_card',
            isSystemType: true,
            config: {},
          },
        ],
      },
    });
    expect(rootStateId(d)).toBe('default');
    expect(d.configuration.states.default!.layouts.main.widgets.x).toEqual({
      sizeX: 6,
      sizeY: 3,
      row: 1,
      col: 4,
    });
    expect(widgetFqn(d.configuration.widgets.x!)).toBe('system.cards.value_card');
  });

  it('a file that is no dashboard is refused, naming what is missing', () => {
    expect(() => normalizeDashboard([])).toThrow(/JSON object/);
    expect(() => normalizeDashboard({ configuration: {} })).toThrow(/title/);
  });

  it('exports without the server bookkeeping and imports back the same', () => {
    const d = normalizeDashboard({
      title: 'X',
      id: { entityType: 'DASHBOARD', id: device.id },
      tenantId: {},
      configuration: {},
    });
    const out = exportDashboard(d);
    expect(out.id).toBeUndefined();
    expect(out.tenantId).toBeUndefined();
    expect(normalizeDashboard(JSON.parse(JSON.stringify(out))).configuration).toEqual(d.configuration);
  });
});

describe('entity aliases as entity filters', () => {
  const alias = (filter: Record<string, unknown>) => ({ id: 'a', alias: 'A', filter: filter as never });
  it('state entity and relations rooted at it read the state params, else the default entity', () => {
    const state = alias({ type: 'stateEntity', defaultStateEntity: device });
    expect(resolveAlias(state, {})).toEqual({
      filter: { type: 'singleEntity', singleEntity: device },
      single: true,
    });
    const other = { entityType: 'ASSET', id: '0ff7d1b8-4b9c-4c6f-9b7a-5f3f6d1a2b3c' };
    expect(resolveAlias(state, { entityId: other })).toMatchObject({ filter: { singleEntity: other } });
    const rel = resolveAlias(
      alias({
        type: 'relationsQuery',
        rootStateEntity: true,
        direction: 'FROM',
        maxLevel: 2,
        filters: [{ relationType: 'Contains', entityTypes: ['DEVICE'] }],
        resolveMultiple: true,
      }),
      { entityId: other },
    );
    expect(rel).toMatchObject({
      single: false,
      filter: { type: 'relationsQuery', rootEntity: other, maxLevel: 2 },
    });
    expect(resolveAlias(alias({ type: 'stateEntity' }), {})).toBeInstanceOf(Error);
  });

  it("device and asset types take ThingsBoard's old single-type field too", () => {
    expect(
      resolveAlias(alias({ type: 'deviceType', deviceType: 'thermostat', resolveMultiple: true }), {}),
    ).toEqual({
      filter: { type: 'deviceType', deviceTypes: ['thermostat'], deviceNameFilter: '' },
      single: false,
    });
    expect(resolveAlias(alias({ type: 'assetType', assetTypes: ['floor'] }), {})).toMatchObject({
      single: true,
      filter: { assetTypes: ['floor'] },
    });
    expect(resolveAlias(alias({ type: 'apiUsageState' }), {})).toBeInstanceOf(Error);
  });
});

describe('the timewindow', () => {
  it('realtime last N is a tsCmd; history fixed is a historyCmd over its range, with aggregation', () => {
    const now = 1_700_000_000_000;
    const rt = timeRange(
      { selectedTab: 0, realtime: { timewindowMs: 300_000 }, aggregation: { type: 'NONE', limit: 200 } },
      now,
    );
    expect(timeseriesCmd(['t'], rt)).toEqual({
      tsCmd: {
        keys: ['t'],
        startTs: now - 300_000,
        timeWindow: 300_000,
        interval: 3_000,
        limit: 200,
        agg: 'NONE',
      },
    });
    const fixed = timeRange(
      {
        selectedTab: 1,
        history: {
          historyType: 1,
          fixedTimewindow: { startTimeMs: 1000, endTimeMs: 3_601_000 },
          interval: 60_000,
        },
        aggregation: { type: 'MAX' },
      },
      now,
    );
    expect(timeseriesCmd(['t'], fixed)).toEqual({
      historyCmd: { keys: ['t'], startTs: 1000, endTs: 3_601_000, interval: 60_000, limit: 1000, agg: 'MAX' },
    });
  });
});

describe('widget types', () => {
  it('renders the listed FQNs (and their other versions’ names); an unknown one has no renderer', () => {
    expect(widgetKind('system.time_series_chart')?.name).toBe('Time series chart');
    expect(widgetKind('system.analogue_gauges.speed_gauge_canvas_gauges')?.name).toBe('Analogue gauge');
    expect(widgetKind('system.input_widgets.update_shared_string_attribute')?.name).toBe(
      'Update attributes form',
    );
    expect(widgetKind('system.gateway_widgets.gateway_general_configuration')).toBeUndefined();
  });
});

describe('markdown card', () => {
  it('turns headings, lists, emphasis and links into HTML', () => {
    expect(markdownToHtml('# Plant\n\n- **hot** item\n- [docs](https://x.y)\n\ntext')).toBe(
      '<h1>Plant</h1>\n<ul>\n<li><strong>hot</strong> item</li>\n<li><a href="https://x.y">docs</a></li>\n</ul>\n<p>text</p>',
    );
  });
});
