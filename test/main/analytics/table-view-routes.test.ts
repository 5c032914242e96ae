/**
 * The platform REST of table views: create, read, list, update, delete, with 400s naming the field;
 * the live preview and the saved-view report the UI uses; roles; the OpenAPI document.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type {
  PreviewResponse,
  ReportResponse,
  TableView,
  TableViewConfig,
} from '../../../shared/schemas/table-view.ts';
import {
  createCustomer,
  expectTbError,
  okEmpty,
  okJson,
  useSharedPlatform,
  type PageJson,
} from '../api/api-kit.ts';

const T0 = Date.UTC(2024, 1, 26);
const HOUR = 3_600_000;

describe('table views (platform REST)', () => {
  const platform = useSharedPlatform({ telemetryRetentionDays: 0 });
  let token: string;
  let profileId: string;
  let deviceId: string;
  let base: TableViewConfig;

  beforeAll(async () => {
    const p = platform();
    token = await p.login();
    const device = await okJson<{ id: { id: string }; deviceProfileId: { id: string } }>(
      p.http('/api/device', { method: 'POST', token, json: { name: 'Thermo 1', type: 'Thermometer' } }),
    );
    deviceId = device.id.id;
    profileId = device.deviceProfileId.id;
    await okJson(
      p.http(`/api/plugins/telemetry/DEVICE/${deviceId}/timeseries/ANY`, {
        method: 'POST',
        token,
        json: Array.from({ length: 48 }, (_, i) => ({
          ts: T0 + i * HOUR,
          values: { temperature: 20 + (i % 24) },
        })),
      }),
    );
    base = {
      entities: { deviceProfileIds: [profileId] },
      dimensions: [{ field: 'DEVICE_NAME' }],
      date: { grouping: 'FULL_HOUR' },
      measures: [{ key: 'temperature', aggregation: 'AVG' }],
      timeRange: { type: 'FIXED', startTs: T0, endTs: T0 + 2 * 24 * HOUR },
    };
  });

  it('creates, reads, lists, updates and deletes a view', async () => {
    const p = platform();
    const created = await okJson<TableView>(
      p.http('/api/tableView', { method: 'POST', token, json: { name: 'Temperatures', config: base } }),
    );
    expect(created).toMatchObject({
      id: { entityType: 'TABLE_VIEW', id: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      name: 'Temperatures',
      config: base,
      columnLabels: ['Device', 'Date', 'temperature'],
    });
    expect(await okJson(p.http(`/api/tableView/${created.id.id}`, { token }))).toEqual(created);

    const second = await okJson<TableView>(
      p.http('/api/tableView', {
        method: 'POST',
        token,
        json: {
          name: 'Another',
          config: {
            ...base,
            measures: [
              { key: 'temperature', aggregation: 'MIN' },
              { key: 'temperature', aggregation: 'MAX', label: 'Highest' },
              { key: 'humidity', aggregation: 'AVG' },
            ],
          },
        },
      }),
    );
    expect(second.columnLabels).toEqual(['Device', 'Date', 'temperature (MIN)', 'Highest', 'humidity']);

    const page = await okJson<PageJson<TableView>>(
      p.http('/api/tableViews?pageSize=1&page=0&sortProperty=name&sortOrder=ASC&textSearch=e', { token }),
    );
    expect(page).toMatchObject({ totalElements: 2, totalPages: 2, hasNext: true });
    expect(page.data.map((v) => v.name)).toEqual(['Another']);

    const updated = await okJson<TableView>(
      p.http('/api/tableView', {
        method: 'POST',
        token,
        json: {
          id: { entityType: 'TABLE_VIEW', id: created.id.id },
          name: 'Renamed',
          config: { ...base, date: null },
        },
      }),
    );
    expect(updated).toMatchObject({
      id: created.id,
      name: 'Renamed',
      columnLabels: ['Device', 'temperature'],
    });
    expect(updated.createdTime).toBe(created.createdTime);

    await okEmpty(p.http(`/api/tableView/${created.id.id}`, { method: 'DELETE', token }));
    await expectTbError(await p.http(`/api/tableView/${created.id.id}`, { token }), 404, 32, 'is not found');
    await expectTbError(
      await p.http(`/api/tableView/${created.id.id}`, { method: 'DELETE', token }),
      404,
      32,
    );
    await expectTbError(
      await p.http('/api/tableView', {
        method: 'POST',
        token,
        json: { id: { id: created.id.id }, name: 'Gone', config: base },
      }),
      404,
      32,
    );
    await okEmpty(p.http(`/api/tableView/${second.id.id}`, { method: 'DELETE', token }));
  });

  it('answers 400 naming the offending field', async () => {
    const p = platform();
    const bad = async (config: unknown, message: string | RegExp) =>
      expectTbError(
        await p.http('/api/tableView', { method: 'POST', token, json: { name: 'Bad', config } }),
        400,
        30,
        message,
      );
    await bad(
      { ...base, dimensions: [{ field: 'ATTRIBUTE' }] },
      "'config.dimensions[0].key' is required when field is ATTRIBUTE",
    );
    await bad(
      { ...base, dimensions: [{ field: 'DEVICE_NAME', key: 'x' }] },
      "'config.dimensions[0].key' is only for ATTRIBUTE",
    );
    await bad({ ...base, date: { grouping: 'WEEKLY' } }, "'body.config.date.grouping'");
    await bad(
      { ...base, measures: [{ key: 't', aggregation: 'MEDIAN' }] },
      "'body.config.measures.0.aggregation'",
    );
    await bad({ ...base, measures: [] }, "'body.config.measures'");
    await bad({ ...base, colour: 'red' }, "'body.config.colour' is not allowed");
    await bad(
      {
        ...base,
        dimensions: [{ field: 'DEVICE_NAME', label: 'x' }],
        measures: [{ key: 't', aggregation: 'AVG', label: 'x' }],
      },
      "'config.measures[0]' has the column label 'x' that 'config.dimensions[0]' already uses",
    );
    await bad(
      {
        ...base,
        filters: [
          { name: 'f', field: 'DEVICE_NAME', values: [] },
          { name: 'f', field: 'DEVICE_PROFILE', values: [] },
        ],
      },
      "'config.filters[1].name': another filter is already named 'f'",
    );
    await bad(
      { ...base, timeRange: { type: 'FIXED', startTs: 10, endTs: 10 } },
      "'config.timeRange': startTs must be before endTs",
    );
    await bad(
      { ...base, timeRange: { type: 'RELATIVE', last: 7, unit: 'FORTNIGHTS' } },
      "'body.config.timeRange.unit'",
    );
    await bad(
      { ...base, timeRange: { type: 'RELATIVE', last: 7 } },
      "'config.timeRange.unit' is required for a RELATIVE range",
    );
    await bad(
      { ...base, timeRange: { type: 'FIXED', startTs: 1, endTs: 2, last: 3 } },
      "'config.timeRange.last' is only for RELATIVE ranges",
    );
    await bad(
      { ...base, entities: { deviceProfileIds: ['0b3f3e38-1b1e-4c55-9a57-3f2f8a1c6a10'] } },
      "'config.entities.deviceProfileIds[0]': device profile [0b3f3e38-1b1e-4c55-9a57-3f2f8a1c6a10] is not found",
    );
    await bad(
      { ...base, entities: { deviceIds: [deviceId, '0b3f3e38-1b1e-4c55-9a57-3f2f8a1c6a10'] } },
      "'config.entities.deviceIds[1]'",
    );
    await bad({ ...base, timezoneOffsetMinutes: 900 }, "'body.config.timezoneOffsetMinutes'");
  });

  it('previews an unsaved view, cut at limit, with the range and filters of the request', async () => {
    const p = platform();
    const config: TableViewConfig = {
      ...base,
      date: { grouping: 'HOUR', label: 'Hour' },
      measures: [{ key: 'temperature', aggregation: 'COUNT', label: 'n' }],
      filters: [{ name: 'device', field: 'DEVICE_NAME', values: ['nobody'] }],
      timeRange: { type: 'RELATIVE', last: 1, unit: 'HOURS' },
    };
    const preview = await okJson<PreviewResponse>(
      p.http('/api/tableView/preview', {
        method: 'POST',
        token,
        json: {
          config,
          limit: 5,
          rangeStartTs: T0,
          rangeEndTs: T0 + 48 * HOUR,
          filters: { device: ['Thermo 1'] },
        },
      }),
    );
    expect(preview).toMatchObject({ columnLabels: ['Device', 'Hour', 'n'], truncated: true });
    expect(preview.dataTable).toEqual(
      [0, 1, 2, 3, 4].map((h) => ({ Device: 'Thermo 1', Hour: String(h), n: 2 })),
    );
    expect(preview.elapsedMs).toBeGreaterThan(0);
    // the view's own relative range (the last hour) holds nothing
    const empty = await okJson<PreviewResponse>(
      p.http('/api/tableView/preview', {
        method: 'POST',
        token,
        json: { config: { ...config, filters: [] } },
      }),
    );
    expect(empty).toMatchObject({ dataTable: [], truncated: false });
    await expectTbError(
      await p.http('/api/tableView/preview', {
        method: 'POST',
        token,
        json: { config: { ...config, dimensions: [{ field: 'ATTRIBUTE' }] } },
      }),
      400,
      30,
      "'config.dimensions[0].key'",
    );
    await expectTbError(
      await p.http('/api/tableView/preview', { method: 'POST', token, json: { config, limit: 0 } }),
      400,
      30,
      "'body.limit'",
    );
  });

  it('runs a saved view from the platform REST, with or without overrides', async () => {
    const p = platform();
    const view = await okJson<TableView>(
      p.http('/api/tableView', {
        method: 'POST',
        token,
        json: { name: 'Daily', config: { ...base, date: { grouping: 'FULL_DATE' } } },
      }),
    );
    const all = await okJson<ReportResponse>(
      p.http(`/api/tableView/${view.id.id}/report`, { method: 'POST', token }),
    );
    expect(all).toEqual({
      columnLabels: ['Device', 'Date', 'temperature'],
      dataTable: [
        { Device: 'Thermo 1', Date: String(T0), temperature: 31.5 },
        { Device: 'Thermo 1', Date: String(T0 + 24 * HOUR), temperature: 31.5 },
      ],
    });
    const one = await okJson<ReportResponse>(
      p.http(`/api/tableView/${view.id.id}/report`, {
        method: 'POST',
        token,
        json: { rangeStartTs: T0 + 24 * HOUR },
      }),
    );
    expect(one.dataTable).toEqual([all.dataTable[1]]);
    await expectTbError(
      await p.http('/api/tableView/0b3f3e38-1b1e-4c55-9a57-3f2f8a1c6a10/report', {
        method: 'POST',
        token,
        json: {},
      }),
      404,
      32,
    );
  });

  it('lets a customer user read and run views over its own devices, not change them', async () => {
    const p = platform();
    const view = await okJson<TableView>(
      p.http('/api/tableView', { method: 'POST', token, json: { name: 'For customers', config: base } }),
    );
    const customerId = await createCustomer(p, token, 'Views Customer');
    await okJson(
      p.http('/api/user', {
        method: 'POST',
        token,
        json: {
          email: 'views-customer@example.com',
          authority: 'CUSTOMER_USER',
          customerId: { entityType: 'CUSTOMER', id: customerId },
          password: 'customer-secret',
        },
      }),
    );
    const customer = await p.login('views-customer@example.com', 'customer-secret');
    expect((await okJson<TableView>(p.http(`/api/tableView/${view.id.id}`, { token: customer }))).name).toBe(
      'For customers',
    );
    // no device of the customer: nothing to show
    expect(
      (
        await okJson<ReportResponse>(
          p.http(`/api/tableView/${view.id.id}/report`, { method: 'POST', token: customer }),
        )
      ).dataTable,
    ).toEqual([]);
    await expectTbError(
      await p.http('/api/tableView', { method: 'POST', token: customer, json: { name: 'x', config: base } }),
      403,
      20,
    );
    await expectTbError(
      await p.http(`/api/tableView/${view.id.id}`, { method: 'DELETE', token: customer }),
      403,
      20,
    );
    await expectTbError(await p.http('/api/tableViews?pageSize=10&page=0'), 401, 10);
  });

  it('describes its routes in the OpenAPI document', async () => {
    const p = platform();
    const doc = await okJson<{ paths: Record<string, Record<string, { tags?: string[] }>> }>(
      p.http('/v3/api-docs'),
    );
    for (const [path, method] of [
      ['/api/tableView', 'post'],
      ['/api/tableView/{id}', 'get'],
      ['/api/tableView/{id}', 'delete'],
      ['/api/tableViews', 'get'],
      ['/api/tableView/preview', 'post'],
      ['/api/tableView/{id}/report', 'post'],
      ['/api/sandboard/demo/smart-building', 'post'],
      ['/api/sandboard/demo/smart-building', 'get'],
    ] as const) {
      expect(doc.paths[path]?.[method]?.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
    }
    expect(JSON.stringify(doc.paths['/api/tableView']!.post)).toContain('START_OF_WEEK');
  });
});
