/**
 * Reports against an independent computation: every date grouping and every aggregation, time zones,
 * filters, range overrides, views over profiles, device lists and both, a customer user's view. Each
 * case runs under both query plans (forced), so the cost-based choice can never change an answer.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DATE_GROUPINGS,
  MEASURE_AGGREGATIONS,
  type TableViewConfig,
} from '../../../shared/schemas/table-view.ts';
import { createCustomer, okJson, useSharedPlatform } from '../api/api-kit.ts';
import {
  DAY,
  DATA_START,
  expectedRows,
  expectRows,
  loadDataset,
  report,
  saveView,
  type Dataset,
} from './report-kit.ts';

/** Every aggregation of energy, the text-and-number status, the cumulative counter and a boolean. */
const MEASURES: TableViewConfig['measures'] = [
  ...MEASURE_AGGREGATIONS.map((aggregation) => ({ key: 'energy', aggregation })),
  { key: 'status', aggregation: 'COUNT', label: 'status count' },
  { key: 'status', aggregation: 'UNIQ', label: 'status uniq' },
  { key: 'status', aggregation: 'LATEST', label: 'status latest' },
  { key: 'status', aggregation: 'AVG', label: 'status avg' },
  { key: 'counter', aggregation: 'DELTA', label: 'counter delta' },
  { key: 'open', aggregation: 'AVG', label: 'open avg' },
];

/** The suite, for one query plan (each plan has its own test file, so the two run in parallel). */
export function reportCorrectnessSuite(plan: 'bucket' | 'scan'): void {
  describe(`reports (${plan} plan) against an independent computation`, () => {
    const platform = useSharedPlatform({ telemetryRetentionDays: 0, analyticsTestHooks: { plan } });
    let ds: Dataset;
    let token: string;
    // A range that starts and ends inside days (and inside weeks and months)...
    const range = {
      startTs: DATA_START + 3 * DAY + 5 * 3_600_000 + 17,
      endTs: DATA_START + 75 * DAY + 13 * 3_600_000,
    };
    // ...and a few days across the year end for the finest groupings.
    const short = {
      startTs: DATA_START + 12 * DAY + 7 * 3_600_000 + 59_999,
      endTs: DATA_START + 16 * DAY + 3 * 3_600_000,
    };
    const rangeOf = (grouping: string) => (grouping === 'MINUTE' || grouping === 'RAW' ? short : range);

    beforeAll(async () => {
      const p = platform();
      token = await p.login();
      ds = await loadDataset(p, token);
    });

    function config(patch: Partial<TableViewConfig>): TableViewConfig {
      return {
        entities: { deviceProfileIds: [ds.profileIds['Meter A']!, ds.profileIds['Meter B']!] },
        dimensions: [{ field: 'ATTRIBUTE', key: 'building' }],
        date: null,
        measures: MEASURES,
        timeRange: { type: 'FIXED', ...rangeOf(patch.date?.grouping ?? '') },
        ...patch,
      };
    }

    async function check(
      name: string,
      cfg: TableViewConfig,
      request: Record<string, unknown> = {},
      expectOpt = {},
    ) {
      const p = platform();
      const view = await saveView(p, token, name, cfg);
      const actual = await report(p, token, { viewConfigId: view.id.id, ...request });
      expect(actual.columnLabels).toEqual(view.columnLabels);
      const rows = expectedRows(ds, cfg, {
        ...rangeOf(cfg.date?.grouping ?? ''),
        filters: cfg.filters,
        ...expectOpt,
      });
      expect(rows.length, `${name}: the case must have rows`).toBeGreaterThan(0);
      expectRows(actual, rows, name);
      return actual;
    }

    it.each(DATE_GROUPINGS)('groups by %s (UTC) with every aggregation', async (grouping) => {
      const actual = await check(`by building, ${grouping}`, config({ date: { grouping } }));
      expect(actual.columnLabels.slice(0, 2)).toEqual(['building', 'Date']);
    });

    it.each([
      'FULL_DATE',
      'HOUR',
      'DAY',
      'START_OF_WEEK',
      'WEEK_OF_YEAR',
      'YEARMONTH',
      'YEAR',
      'MINUTE',
    ] as const)("shifts %s by the view's time zone offset (+05:30 and -05:00)", async (grouping) => {
      for (const tz of [330, -300]) {
        await check(`${grouping} at ${tz}`, config({ date: { grouping }, timezoneOffsetMinutes: tz }));
      }
    });

    it('groups by device name and profile, and by nothing at all', async () => {
      await check(
        'by device and profile',
        config({
          dimensions: [{ field: 'DEVICE_PROFILE' }, { field: 'DEVICE_NAME', label: 'Meter' }],
          date: { grouping: 'MONTH' },
        }),
      );
      const total = await check('one row', config({ dimensions: [] }));
      expect(total.dataTable).toHaveLength(1);
      await check(
        'attributes of a scope',
        config({
          dimensions: [
            { field: 'ATTRIBUTE', key: 'building', scope: 'CLIENT_SCOPE' },
            { field: 'ATTRIBUTE', key: 'floor' },
            { field: 'ATTRIBUTE', key: 'active' },
          ],
        }),
      );
    });

    it('covers a device list, profiles, and both', async () => {
      const ids = (names: string[]) => ds.devices.filter((d) => names.includes(d.name)).map((d) => d.id);
      await check(
        'device list',
        config({
          entities: { deviceIds: ids(['Meter 1', 'Meter 4', 'Other 6']) },
          date: { grouping: 'FULL_DATE' },
        }),
      );
      await check('one profile', config({ entities: { deviceProfileIds: [ds.profileIds['Meter B']!] } }));
      await check(
        'profile and a device',
        config({
          entities: { deviceProfileIds: [ds.profileIds['Meter B']!], deviceIds: ids(['Other 6']) },
          dimensions: [{ field: 'DEVICE_NAME' }],
          date: { grouping: 'QUARTER' },
        }),
      );
      const all = await check(
        'every device',
        config({ entities: {}, dimensions: [{ field: 'DEVICE_NAME' }] }),
      );
      expect(all.dataTable.map((r) => r.Device)).toEqual(ds.devices.map((d) => d.name));
    });

    it("applies the view's filters, and the request's in their place", async () => {
      const filters: TableViewConfig['filters'] = [
        { name: 'building', field: 'ATTRIBUTE', key: 'building', values: ['B1'] },
        { name: 'floor', field: 'ATTRIBUTE', key: 'floor', scope: 'SHARED_SCOPE', values: [] },
        { name: 'meter', field: 'DEVICE_NAME', values: [] },
        { name: 'profile', field: 'DEVICE_PROFILE', values: [] },
      ];
      const cfg = config({
        entities: {},
        dimensions: [{ field: 'DEVICE_NAME' }],
        date: { grouping: 'WEEK_OF_YEAR' },
        filters,
      });
      await check('view filters', cfg);
      const p = platform();
      const view = await saveView(p, token, 'filtered', cfg);
      const cases: { filters: Record<string, (string | number)[]>; expect: typeof filters }[] = [
        {
          filters: { building: ['B2', 'B9'], floor: [1, '3'] },
          expect: [filters[0]!, filters[1]!].map((f, i) => ({
            ...f,
            values: i === 0 ? ['B2', 'B9'] : ['1', '3'],
          })),
        },
        { filters: { building: [] }, expect: [] }, // an empty list keeps everything
        {
          filters: { meter: ['Meter 2', 'Meter 5'], profile: ['Meter B'] },
          expect: [
            filters[0]!,
            { ...filters[2]!, values: ['Meter 2', 'Meter 5'] },
            { ...filters[3]!, values: ['Meter B'] },
          ],
        },
      ];
      for (const c of cases) {
        const actual = await report(p, token, { viewConfigId: view.id.id, filters: c.filters });
        expectRows(actual, expectedRows(ds, cfg, { ...range, filters: c.expect }), JSON.stringify(c.filters));
      }
    });

    it("overrides the view's range with rangeStartTs and rangeEndTs, each on its own", async () => {
      const cfg = config({ date: { grouping: 'FULL_DATE' } });
      const p = platform();
      const view = await saveView(p, token, 'ranges', cfg);
      const cases = [
        { rangeStartTs: DATA_START + 40 * DAY + 123, rangeEndTs: DATA_START + 47 * DAY - 1 },
        { rangeStartTs: DATA_START + 70 * DAY, rangeEndTs: null },
        { rangeEndTs: DATA_START + 10 * DAY + 1 },
        { rangeStartTs: 0, rangeEndTs: ds.endTs + DAY },
      ];
      for (const c of cases) {
        const actual = await report(p, token, { viewConfigId: view.id.id, ...c });
        const startTs = c.rangeStartTs ?? range.startTs;
        const endTs = c.rangeEndTs ?? range.endTs;
        expectRows(actual, expectedRows(ds, cfg, { startTs, endTs }), JSON.stringify(c));
      }
      const empty = await report(p, token, {
        viewConfigId: view.id.id,
        rangeStartTs: ds.endTs,
        rangeEndTs: ds.endTs + DAY,
      });
      expect(empty).toEqual({ columnLabels: view.columnLabels, dataTable: [] });
    });

    it("shows a customer user only the customer's devices", async () => {
      const p = platform();
      const customerId = await createCustomer(p, token, `Customer ${plan}`);
      const meter2 = ds.devices.find((d) => d.name === 'Meter 2')!;
      await okJson(p.http(`/api/customer/${customerId}/device/${meter2.id}`, { method: 'POST', token }));
      const cfg = config({ dimensions: [{ field: 'DEVICE_NAME' }], date: { grouping: 'YEAR' } });
      const view = await saveView(p, token, 'customer', cfg);
      const email = `reports-${plan}@example.com`;
      await okJson(
        p.http('/api/user', {
          method: 'POST',
          token,
          json: {
            email,
            authority: 'CUSTOMER_USER',
            customerId: { entityType: 'CUSTOMER', id: customerId },
            password: 'customer-secret',
          },
        }),
      );
      const customerToken = await p.login(email, 'customer-secret');
      const actual = await report(p, customerToken, { viewConfigId: view.id.id });
      const devices = ds.devices.map((d) => ({ ...d, customerId: d.id === meter2.id ? customerId : null }));
      expectRows(actual, expectedRows({ ...ds, devices }, cfg, { ...range, customerId }), 'customer');
      expect(new Set(actual.dataTable.map((r) => r.Device))).toEqual(new Set(['Meter 2']));
    });
  });
}
