/**
 * The report API on --analytics-port: JWT from the query or the header (403 otherwise), 415 for a
 * non-JSON body, 400 naming the field, 404 for an unknown view, 429 past the slots and the queue,
 * reports off the network thread, and reports that see every acknowledged write.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ReportResponse, TableViewConfig } from '../../../shared/schemas/table-view.ts';
import { JwtCodec, type JwtClaims } from '../../../main/platform/auth/jwt.ts';
import { loadOrCreateSigningKey } from '../../../main/platform/auth/signing-key.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import {
  decodeJwt,
  expectTbError,
  okJson,
  useSharedPlatform,
  withLoginPair,
  type ApiPlatform,
} from '../api/api-kit.ts';
import { buildReport, report, saveView } from './report-kit.ts';

const T0 = Date.UTC(2024, 4, 6); // a Monday

/** Two devices with a few readings and a view over them: building x FULL_DATE, SUM and LATEST. */
async function fixture(
  p: ApiPlatform,
  token: string,
): Promise<{ viewId: string; config: TableViewConfig; deviceId: string }> {
  const ids: string[] = [];
  for (const [name, building] of [
    ['Probe 1', 'North'],
    ['Probe 2', 'South'],
  ] as const) {
    const device = await okJson<{ id: { id: string } }>(
      p.http('/api/device', { method: 'POST', token, json: { name, type: 'Probe' } }),
    );
    ids.push(device.id.id);
    await okJson(
      p.http(`/api/plugins/telemetry/DEVICE/${device.id.id}/attributes/SERVER_SCOPE`, {
        method: 'POST',
        token,
        json: { building },
      }),
    );
    await okJson(
      p.http(`/api/plugins/telemetry/DEVICE/${device.id.id}/timeseries/ANY`, {
        method: 'POST',
        token,
        json: [0, 1, 2, 26, 50].map((h) => ({ ts: T0 + h * 3_600_000, values: { kwh: h + 0.5 } })),
      }),
    );
  }
  const config: TableViewConfig = {
    entities: { deviceIds: ids },
    dimensions: [{ field: 'ATTRIBUTE', key: 'building', label: 'Building' }],
    date: { grouping: 'FULL_DATE' },
    measures: [
      { key: 'kwh', aggregation: 'SUM', label: 'energy' },
      { key: 'kwh', aggregation: 'LATEST', label: 'last' },
    ],
    filters: [{ name: 'building', field: 'ATTRIBUTE', key: 'building', values: [] }],
    timeRange: { type: 'FIXED', startTs: T0, endTs: T0 + 7 * 86_400_000 },
  };
  const view = await saveView(p, token, 'Energy per building', config);
  return { viewId: view.id.id, config, deviceId: ids[0]! };
}

describe('report API', () => {
  const platform = useSharedPlatform({ telemetryRetentionDays: 0 });
  let token: string;
  let viewId: string;
  let deviceId: string;

  beforeAll(async () => {
    const p = platform();
    token = await p.login();
    ({ viewId, deviceId } = await fixture(p, token));
  });

  it("answers Trendz's report shape on both paths, with the JWT in the query or the header", async () => {
    const p = platform();
    const expected: ReportResponse = {
      columnLabels: ['Building', 'Date', 'energy', 'last'],
      dataTable: [
        { Building: 'North', Date: String(T0), energy: 0.5 + 1.5 + 2.5, last: 2.5 },
        { Building: 'North', Date: String(T0 + 86_400_000), energy: 26.5, last: 26.5 },
        { Building: 'North', Date: String(T0 + 2 * 86_400_000), energy: 50.5, last: 50.5 },
        { Building: 'South', Date: String(T0), energy: 4.5, last: 2.5 },
        { Building: 'South', Date: String(T0 + 86_400_000), energy: 26.5, last: 26.5 },
        { Building: 'South', Date: String(T0 + 2 * 86_400_000), energy: 50.5, last: 50.5 },
      ],
    };
    for (const path of ['/apiAnalytics/publicApi/buildReport', '/apiTrendz/publicApi/buildReport']) {
      for (const via of ['query', 'header'] as const) {
        const res = await buildReport(p, token, { viewConfigId: viewId }, { path, via });
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await okJson<ReportResponse>(res), `${path} ${via}`).toEqual(expected);
      }
    }
    // application/json with a charset is JSON too; filters and the range override the view's
    const res = await buildReport(
      p,
      token,
      {
        viewConfigId: viewId,
        rangeStartTs: T0 + 3_600_000,
        rangeEndTs: null,
        filters: { building: ['South'] },
      },
      { contentType: 'application/json; charset=UTF-8' },
    );
    expect((await okJson<ReportResponse>(res)).dataTable).toEqual([
      { Building: 'South', Date: String(T0), energy: 4, last: 2.5 },
      { Building: 'South', Date: String(T0 + 86_400_000), energy: 26.5, last: 26.5 },
      { Building: 'South', Date: String(T0 + 2 * 86_400_000), energy: 50.5, last: 50.5 },
    ]);
  });

  it('sees every acknowledged write at once (the workers follow the store)', async () => {
    const p = platform();
    const before = await report(p, token, { viewConfigId: viewId, filters: { building: ['North'] } });
    await okJson(
      p.http(`/api/plugins/telemetry/DEVICE/${deviceId}/timeseries/ANY`, {
        method: 'POST',
        token,
        json: { ts: T0 + 6 * 86_400_000, values: { kwh: 1000 } },
      }),
    );
    const after = await report(p, token, { viewConfigId: viewId, filters: { building: ['North'] } });
    expect(after.dataTable).toEqual([
      ...before.dataTable,
      { Building: 'North', Date: String(T0 + 6 * 86_400_000), energy: 1000, last: 1000 },
    ]);
    await okJson(
      p.http(
        `/api/plugins/telemetry/DEVICE/${deviceId}/timeseries/delete?keys=kwh&startTs=${T0 + 6 * 86_400_000}&endTs=${T0 + 7 * 86_400_000}&deleteAllDataForKeys=false`,
        {
          method: 'DELETE',
          token,
        },
      ),
    );
    expect(
      (await report(p, token, { viewConfigId: viewId, filters: { building: ['North'] } })).dataTable,
    ).toEqual(before.dataTable);
  });

  it("reports over calculated fields' packed results as over any time series", async () => {
    const p = platform();
    const num = p.services.directory.telemetryNum('DEVICE', deviceId);
    // what the calculated fields engine writes: entries of numbers only, stored one packed row each
    await p.services.telemetry.saveTimeseriesMany([
      {
        target: { id: deviceId, num, entityType: 'DEVICE' },
        entries: [0, 1, 2, 26, 50].map((h) => ({
          ts: T0 + h * 3_600_000,
          values: { cfKwh: h + 0.5, cfOn: 1 },
        })),
      },
    ]);
    expect(
      p.services.ctx.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM ts_pack WHERE entity_num = ?', [num])!
        .n,
    ).toBe(5);
    const view = await saveView(p, token, 'Calculated energy', {
      entities: { deviceIds: [deviceId] },
      dimensions: [{ field: 'ATTRIBUTE', key: 'building', label: 'Building' }],
      date: { grouping: 'FULL_DATE' },
      measures: [
        { key: 'cfKwh', aggregation: 'SUM', label: 'energy' },
        { key: 'cfKwh', aggregation: 'LATEST', label: 'last' },
      ],
      filters: [],
      timeRange: { type: 'FIXED', startTs: T0, endTs: T0 + 7 * 86_400_000 },
    });
    expect((await report(p, token, { viewConfigId: view.id.id })).dataTable).toEqual([
      { Building: 'North', Date: String(T0), energy: 0.5 + 1.5 + 2.5, last: 2.5 },
      { Building: 'North', Date: String(T0 + 86_400_000), energy: 26.5, last: 26.5 },
      { Building: 'North', Date: String(T0 + 2 * 86_400_000), energy: 50.5, last: 50.5 },
    ]);
  });

  it('answers 403 for a missing, invalid, expired, refresh or logged-out token', async () => {
    const p = platform();
    const body = { viewConfigId: viewId };
    await expectTbError(await buildReport(p, null, body), 403, 10, 'No JWT');
    await expectTbError(await buildReport(p, 'not-a-jwt', body), 403, 10, 'Invalid JWT token');
    await expectTbError(await buildReport(p, 'not-a-jwt', body, { via: 'header' }), 403, 10);
    // a token of this platform's key whose exp has passed
    const claims = decodeJwt(token).payload;
    const codec = new JwtCodec(loadOrCreateSigningKey(p.urls.dataDir));
    const expired = codec.sign({
      ...(claims as unknown as JwtClaims),
      iat: claims.iat - 100,
      exp: claims.iat - 10,
    });
    await expectTbError(await buildReport(p, expired, body), 403, 11, 'Token has expired');
    const pair = await p.loginPair();
    await expectTbError(await buildReport(p, pair.refreshToken, body), 403, 10, 'Invalid JWT token');
    await okJson(p.http('/api/auth/logout', { method: 'POST', token: pair.token }));
    await expectTbError(await buildReport(p, pair.token, body), 403, 10, 'revoked');
    // The platform REST keeps ThingsBoard's 401 for the same token
    await expectTbError(await p.http('/api/auth/user', { token: 'not-a-jwt' }), 401, 10);
  });

  it('answers 415 with the remedy for a body that is not application/json', async () => {
    const p = platform();
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', null]) {
      const res = await buildReport(p, token, contentType === null ? '' : `viewConfigId=${viewId}`, {
        contentType,
      });
      await expectTbError(res, 415, 31, 'Content-Type: application/json');
    }
  });

  it('answers 400 naming the field, 404 for an unknown view', async () => {
    const p = platform();
    await expectTbError(await buildReport(p, token, {}), 400, 30, "'body.viewConfigId' is required");
    await expectTbError(await buildReport(p, token, { viewConfigId: 42 }), 400, 30, "'body.viewConfigId'");
    await expectTbError(await buildReport(p, token, { viewConfigId: 'abc' }), 400, 30, 'uuid');
    await expectTbError(
      await buildReport(p, token, { viewConfigId: viewId, rangeStartTs: 'yesterday' }),
      400,
      30,
      "'body.rangeStartTs'",
    );
    await expectTbError(
      await buildReport(p, token, { viewConfigId: viewId, filters: { building: 'North' } }),
      400,
      30,
      "'body.filters.building'",
    );
    await expectTbError(await buildReport(p, token, '{"viewConfigId":'), 400, 31, 'Invalid JSON body');
    await expectTbError(
      await buildReport(p, token, { viewConfigId: viewId, filters: { floor: ['1'] } }),
      400,
      30,
      "Unknown filter 'floor': the view's filters are 'building'",
    );
    await expectTbError(
      await buildReport(p, token, { viewConfigId: viewId, rangeStartTs: T0 + 10, rangeEndTs: T0 + 10 }),
      400,
      30,
      'The range is empty',
    );
    await expectTbError(
      await buildReport(p, token, { viewConfigId: '0b3f3e38-1b1e-4c55-9a57-3f2f8a1c6a10' }),
      404,
      32,
      'Table view with id [0b3f3e38-1b1e-4c55-9a57-3f2f8a1c6a10] is not found',
    );
  });

  it('documents itself: OpenAPI with both paths and the jwt security schemes', async () => {
    const p = platform();
    const doc = await okJson<{
      paths: Record<string, { post?: { requestBody?: unknown; responses?: Record<string, unknown> } }>;
      components: { securitySchemes: Record<string, { in: string; name: string }> };
    }>(fetch(`${p.urls.analytics}/v3/api-docs`));
    for (const path of ['/apiAnalytics/publicApi/buildReport', '/apiTrendz/publicApi/buildReport']) {
      const op = doc.paths[path]?.post;
      expect(JSON.stringify(op?.requestBody)).toContain('viewConfigId');
      expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['200', '403', '415', '429']));
    }
    expect(Object.values(doc.components.securitySchemes)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: 'query', name: 'jwt' }),
        expect.objectContaining({ in: 'header', name: 'jwt' }),
      ]),
    );
  });

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    const p = platform();
    const { rawRequest } = await import('../api/api-kit.ts');
    const res = await rawRequest(p.urls.analytics, {
      method: 'POST',
      path: `/apiAnalytics/publicApi/buildReport?jwt=${token}`,
      headers: { host: 'evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ viewConfigId: viewId }),
    });
    expect(res.status).toBe(421);
    expect(res.body).toContain('is not allowed');
  });
});

describe('report slots and queue', () => {
  it('runs at most pool reports, queues at most capacity, and answers 429 past that, without stalling the platform', async () => {
    const p = withLoginPair(
      await startTestPlatform({
        telemetryRetentionDays: 0,
        reportPoolSize: 1,
        reportQueueCapacity: 2,
        analyticsTestHooks: { reportDelayMs: 1200 },
      }),
    );
    const token = await p.login();
    const { viewId } = await fixture(p, token);
    const order: string[] = [];
    const send = (tag: string) =>
      buildReport(p, token, { viewConfigId: viewId }).then(async (res) => {
        order.push(`${tag}:${res.status}`);
        return { status: res.status, text: await res.text() };
      });
    const reports = [send('a'), send('b'), send('c'), send('d')];
    // While the slow report holds the only slot the platform answers at once (reports run off its thread).
    const user = await p.http('/api/auth/user', { token });
    expect(user.status).toBe(200);
    order.push('rest:200');
    const results = await Promise.all(reports);
    const refused = results.filter((r) => r.status === 429);
    expect(refused, order.join(' ')).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    const error = JSON.parse(refused[0]!.text) as { status: number; errorCode: number; message: string };
    expect(error).toMatchObject({ status: 429, errorCode: 33 });
    expect(error.message).toContain('SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY=2');
    // the 429 comes at once, before any report of the burst is done; so does the platform's answer
    expect(order[0]).toMatch(/:429$|^rest/);
    expect(order.slice(0, 2).sort()).toEqual(['rest:200', expect.stringMatching(/:429$/)].sort());
    // the slots are shared with the platform REST, and free again afterwards
    const again = await p.http(`/api/tableView/${viewId}/report`, { method: 'POST', token, json: {} });
    expect(again.status).toBe(200);
  });
});
