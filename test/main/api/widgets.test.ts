import { beforeAll, describe, expect, it } from 'vitest';
import { WIDGET_CATALOG } from '../../../shared/dashboards/widget-catalog.ts';
import {
  CUSTOMER,
  NULL_UUID,
  expectTbError,
  okJson,
  useSharedPlatform,
  type ApiPlatform,
  type EntityRef,
  type PageJson,
} from './api-kit.ts';

interface BundleJson {
  id: EntityRef;
  tenantId: EntityRef;
  alias: string;
  title: string;
  order: number;
}
interface TypeJson {
  id: EntityRef;
  fqn: string;
  name: string;
  deprecated: boolean;
  descriptor: { type: string; sizeX: number; sizeY: number; sandboardRenderer: string };
}
interface TypeInfoJson {
  id: EntityRef;
  fqn: string;
  widgetType: string;
  bundles: { id: EntityRef; name: string }[];
}

describe('the widget library over REST (system bundles and types, read-only)', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let customerToken: string;
  let bundles: BundleJson[];
  const bundle = (alias: string) => bundles.find((b) => b.alias === alias)!;

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    customerToken = await p.login(CUSTOMER.username, CUSTOMER.password);
    bundles = await okJson<BundleJson[]>(p.http('/api/widgetsBundles', { token: customerToken }));
  });

  it('lists ThingsBoard’s system bundles, in their order, to any user', async () => {
    expect(bundles.map((b) => b.alias)).toEqual(
      expect.arrayContaining(['charts', 'cards', 'tables', 'maps_v2', 'control_widgets', 'input_widgets']),
    );
    expect(bundles.map((b) => b.order)).toEqual([...bundles.map((b) => b.order)].sort((a, b) => a - b));
    expect(bundle('charts')).toMatchObject({
      id: { entityType: 'WIDGETS_BUNDLE' },
      tenantId: { entityType: 'TENANT', id: NULL_UUID },
      title: 'Charts',
    });
    expect(await okJson(p.http(`/api/widgetsBundle/${bundle('charts').id.id}`, { token }))).toEqual(
      bundle('charts'),
    );
    const page = await okJson<PageJson<BundleJson>>(
      p.http('/api/widgetsBundles?pageSize=2&page=0&textSearch=gauge', { token }),
    );
    expect(page.data.map((b) => b.alias)).toEqual(['analogue_gauges', 'digital_gauges']);
    const tenantOnly = await okJson<PageJson<BundleJson>>(
      p.http('/api/widgetsBundles?pageSize=10&page=0&tenantOnly=true', { token }),
    );
    expect(tenantOnly.totalElements).toBe(0);
  });

  it('gives every catalogued widget under its ThingsBoard FQN, with its descriptor type and size', async () => {
    for (const w of WIDGET_CATALOG) {
      const t = await okJson<TypeJson>(
        p.http(`/api/widgetType?fqn=system.${encodeURIComponent(w.fqn)}`, { token: customerToken }),
      );
      expect(t).toMatchObject({
        fqn: w.fqn,
        name: w.name,
        deprecated: w.deprecated === true,
        descriptor: { type: w.kind, sizeX: w.sizeX, sizeY: w.sizeY, sandboardRenderer: w.renderer },
      });
    }
    const chart = await okJson<TypeJson>(p.http('/api/widgetType?fqn=system.time_series_chart', { token }));
    expect(chart.descriptor.type).toBe('timeseries');
    const info = await okJson<TypeInfoJson>(p.http(`/api/widgetTypeInfo/${chart.id.id}`, { token }));
    expect(info.bundles).toEqual([{ id: bundle('charts').id, name: 'Charts' }]);
    await expectTbError(
      await p.http('/api/widgetType?fqn=time_series_chart', { token }),
      400,
      31,
      'Invalid fqn!',
    );
    await expectTbError(await p.http('/api/widgetType?fqn=system.no_such_widget', { token }), 404, 32);
  });

  it('lists a bundle’s widget types by id and by alias, with FQNs and a filterable page', async () => {
    const controls = bundle('control_widgets').id.id;
    const fqns = await okJson<string[]>(p.http(`/api/widgetTypeFqns?widgetsBundleId=${controls}`, { token }));
    expect(fqns).toEqual(
      expect.arrayContaining([
        'system.single_switch',
        'system.slider',
        'system.control_widgets.knob_control',
      ]),
    );
    const byId = await okJson<TypeJson[]>(p.http(`/api/widgetTypes?widgetsBundleId=${controls}`, { token }));
    const byAlias = await okJson<TypeJson[]>(
      p.http('/api/widgetTypes?isSystem=true&bundleAlias=control_widgets', { token }),
    );
    expect(byAlias).toEqual(byId);
    expect(byId.map((t) => `system.${t.fqn}`)).toEqual(fqns);
    const details = await okJson<(TypeJson & { tags: string[] })[]>(
      p.http(`/api/widgetTypesDetails?widgetsBundleId=${controls}`, { token: customerToken }),
    );
    expect(details.map((d) => d.fqn)).toEqual(byId.map((t) => t.fqn));
    const rpcPage = await okJson<PageJson<TypeInfoJson>>(
      p.http('/api/widgetTypes?pageSize=100&page=0&widgetTypeList=rpc&deprecatedFilter=ACTUAL', { token }),
    );
    expect(rpcPage.data.every((t) => t.widgetType === 'rpc')).toBe(true);
    expect(rpcPage.data.map((t) => t.fqn)).toContain('control_widgets.knob_control');
    const tables = await okJson<PageJson<TypeInfoJson>>(
      p.http(`/api/widgetTypesInfos?widgetsBundleId=${bundle('tables').id.id}&pageSize=10&page=0`, { token }),
    );
    expect(tables.data.map((t) => t.fqn).sort()).toEqual(
      ['alarm_widgets.alarms_table', 'cards.entities_table', 'cards.timeseries_table'].sort(),
    );
    await expectTbError(
      await p.http('/api/widgetTypes?isSystem=false&bundleAlias=control_widgets', { token }),
      404,
      32,
    );
  });

  it('answers a tenant’s writes to the system library with ThingsBoard’s 403, unknown ids with 404', async () => {
    const charts = bundle('charts');
    const chart = await okJson<TypeJson>(p.http('/api/widgetType?fqn=system.bar_chart', { token }));
    const writes: [string, string, unknown?][] = [
      ['POST', '/api/widgetsBundle', { ...charts, title: 'Mine' }],
      ['POST', '/api/widgetsBundle', { alias: 'mine', title: 'Mine' }],
      ['POST', `/api/widgetsBundle/${charts.id.id}/widgetTypeFqns`, ['system.bar_chart']],
      ['POST', `/api/widgetsBundle/${charts.id.id}/widgetTypes`, [chart.id.id]],
      ['DELETE', `/api/widgetsBundle/${charts.id.id}`],
      ['POST', '/api/widgetType', { ...chart, name: 'Mine' }],
      ['DELETE', `/api/widgetType/${chart.id.id}`],
    ];
    for (const [method, path, json] of writes)
      await expectTbError(
        await p.http(path, { method, token, ...(json === undefined ? {} : { json }) }),
        403,
        20,
        "You don't have permission",
      );
    const unknown = '0d9b2c7e-0000-4000-8000-00000000abcd';
    await expectTbError(await p.http(`/api/widgetType/${unknown}`, { method: 'DELETE', token }), 404, 32);
    // the system library is unchanged
    expect(await okJson(p.http(`/api/widgetType/${chart.id.id}`, { token }))).toMatchObject({
      name: 'Bar chart',
    });
  });
});
