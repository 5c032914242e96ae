/**
 * The smart-building demo: started over REST, progress readable while it loads, idempotent, kept
 * across a restart, and a report to show well within a minute of the first start.
 */
import { describe, expect, it } from 'vitest';
import type { DemoStatus, ReportResponse, TableView } from '../../../shared/schemas/table-view.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { createCustomer, expectTbError, okJson, withLoginPair, type PageJson } from '../api/api-kit.ts';
import { report } from './report-kit.ts';

const DEMO = '/api/sandboard/demo/smart-building';

describe('smart-building demo data', () => {
  it('loads 60 meters with 30 days of readings and three views, reports at once, and is idempotent', async () => {
    const started = performance.now();
    const dataDir = tempDir();
    const p = await startTestPlatform({ dataDir });
    const token = await p.login();
    expect(await okJson<DemoStatus>(p.http(DEMO, { token }))).toMatchObject({
      state: 'NOT_LOADED',
      percent: 0,
      rowsWritten: 0,
      totalRows: 108_000,
      totalDevices: 60,
      viewIds: [],
    });

    // POST answers at once with the progress; a second POST joins the same load and waits for it
    const first = await okJson<DemoStatus>(p.http(DEMO, { method: 'POST', token }));
    expect(first.state).toBe('RUNNING');
    expect(first.percent).toBeLessThan(100);
    const done = await okJson<DemoStatus>(p.http(`${DEMO}?wait=true`, { method: 'POST', token, json: {} }));
    expect(done).toMatchObject({
      state: 'DONE',
      percent: 100,
      rowsWritten: 108_000,
      devices: 60,
      error: null,
    });
    expect(done.viewIds).toHaveLength(3);
    expect(done.finishedTs! - done.startedTs!).toBeLessThan(60_000);
    expect(await okJson(p.http(DEMO, { token }))).toEqual(done);

    const devices = await okJson<PageJson<{ name: string; type: string }>>(
      p.http('/api/tenant/devices?pageSize=100&page=0&sortProperty=name&sortOrder=ASC', { token }),
    );
    expect(devices.totalElements).toBe(60);
    expect(new Set(devices.data.map((d) => d.type))).toEqual(new Set(['Energy Meter', 'Water Meter']));
    const attributes = await okJson<{ key: string; value: unknown }[]>(
      p.http(
        `/api/plugins/telemetry/DEVICE/${(devices.data[0] as unknown as { id: { id: string } }).id.id}/values/attributes/SERVER_SCOPE`,
        { token },
      ),
    );
    expect(Object.fromEntries(attributes.map((a) => [a.key, a.value]))).toEqual({
      building: 'Building A',
      apartment: 'Apt 101',
      floor: 1,
    });
    expect(p.services.ctx.telemetry.countDatapoints()).toBe(108_000);

    // The views report at once
    const views = await okJson<PageJson<TableView>>(
      p.http('/api/tableViews?pageSize=10&page=0&sortProperty=name&sortOrder=ASC', { token }),
    );
    expect(views.data.map((v) => v.name)).toEqual([
      'Energy by building per day',
      'Energy by hour of day',
      'Water by apartment per week',
    ]);
    const daily = await report(p, token, { viewConfigId: views.data[0]!.id.id });
    expect(daily.columnLabels).toEqual(['Building', 'Date', 'Energy, kWh', 'Voltage, V']);
    expect(new Set(daily.dataTable.map((r) => r.Building))).toEqual(
      new Set(['Building A', 'Building B', 'Building C']),
    );
    expect(daily.dataTable.length).toBeGreaterThanOrEqual(90); // 3 buildings x 30 or 31 days
    for (const row of daily.dataTable) {
      expect(typeof row['Energy, kWh']).toBe('number');
      expect(row['Voltage, V']).toBeGreaterThan(227);
    }
    const water: ReportResponse = await report(p, token, {
      viewConfigId: views.data[2]!.id.id,
      filters: { building: ['Building B'], floor: ['2'] },
    });
    expect(new Set(water.dataTable.map((r) => `${r.Building} ${r.Apartment}`))).toEqual(
      new Set(['Building B Apt 201', 'Building B Apt 202']),
    );
    expect(performance.now() - started).toBeLessThan(60_000);

    // Loading again changes nothing; so does a restart
    expect(await okJson(p.http(DEMO, { method: 'POST', token }))).toEqual(done);
    expect(p.services.ctx.telemetry.countDatapoints()).toBe(108_000);
    await p.stop();
    const again = await startTestPlatform({ dataDir });
    const token2 = await again.login();
    expect(await okJson(again.http(DEMO, { token: token2 }))).toEqual(done);
    expect(await okJson(again.http(`${DEMO}?wait=true`, { method: 'POST', token: token2 }))).toEqual(done);
    expect(
      (await okJson<PageJson<unknown>>(again.http('/api/tableViews?pageSize=10&page=0', { token: token2 })))
        .totalElements,
    ).toBe(3);
  });

  it('is for tenant administrators', async () => {
    const p = withLoginPair(await startTestPlatform());
    const token = await p.login();
    const customerId = await createCustomer(p, token, 'Demo Customer');
    await okJson(
      p.http('/api/user', {
        method: 'POST',
        token,
        json: {
          email: 'demo-customer@example.com',
          authority: 'CUSTOMER_USER',
          customerId: { entityType: 'CUSTOMER', id: customerId },
          password: 'customer-secret',
        },
      }),
    );
    const customer = await p.login('demo-customer@example.com', 'customer-secret');
    await expectTbError(await p.http(DEMO, { method: 'POST', token: customer }), 403, 20);
    await expectTbError(await p.http(DEMO, { token: customer }), 403, 20);
    expect((await okJson<DemoStatus>(p.http(DEMO, { token }))).state).toBe('NOT_LOADED');
  });
});
