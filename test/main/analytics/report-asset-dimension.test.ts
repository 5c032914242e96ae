/**
 * Reports grouped by asset: the ASSET dimension names the asset a device belongs to through relations
 * (building -Contains-> floor -Contains-> device), the nearest one or the nearest of a type.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { PreviewResponse, TableViewConfig } from '../../../shared/schemas/table-view.ts';
import { expectTbError, okJson, useSharedPlatform } from '../api/api-kit.ts';
import { createAsset, relate } from '../api/entity-kit.ts';

const T0 = Date.UTC(2024, 5, 3);
const HOUR = 3_600_000;

describe('the ASSET dimension of table views', () => {
  const platform = useSharedPlatform({ telemetryRetentionDays: 0 });
  let token: string;
  let profileId: string;

  const preview = (config: TableViewConfig) =>
    okJson<PreviewResponse>(
      platform().http('/api/tableView/preview', { method: 'POST', token, json: { config } }),
    );

  beforeAll(async () => {
    const p = platform();
    token = await p.login();
    const north = await createAsset(p, token, { name: 'North', type: 'building' });
    const south = await createAsset(p, token, { name: 'South', type: 'building' });
    const n1 = await createAsset(p, token, { name: 'North 1', type: 'floor' });
    const n2 = await createAsset(p, token, { name: 'North 2', type: 'floor' });
    await relate(p, token, north.id, n1.id);
    await relate(p, token, north.id, n2.id);
    // a device on each North floor, one directly in South, one nowhere
    const layout: [string, { entityType: string; id: string } | null, number][] = [
      ['Meter N1', n1.id, 10],
      ['Meter N2', n2.id, 20],
      ['Meter S', south.id, 5],
      ['Meter loose', null, 1],
    ];
    for (const [name, parent, kwh] of layout) {
      const d = await okJson<{ id: { entityType: string; id: string }; deviceProfileId: { id: string } }>(
        p.http('/api/device', { method: 'POST', token, json: { name, type: 'Energy meter' } }),
      );
      profileId = d.deviceProfileId.id;
      if (parent) await relate(p, token, parent, d.id);
      await okJson(
        p.http(`/api/plugins/telemetry/DEVICE/${d.id.id}/timeseries/ANY`, {
          method: 'POST',
          token,
          json: [0, 1].map((i) => ({ ts: T0 + i * HOUR, values: { energy: kwh } })),
        }),
      );
    }
  });

  const base = (dimensions: TableViewConfig['dimensions']): TableViewConfig => ({
    entities: { deviceProfileIds: [profileId] },
    dimensions,
    measures: [{ key: 'energy', aggregation: 'SUM' }],
    timeRange: { type: 'FIXED', startTs: T0, endTs: T0 + 24 * HOUR },
  });

  it('groups by building, two levels up, with devices in no building as null', async () => {
    const report = await preview(base([{ field: 'ASSET', assetType: 'building' }]));
    expect(report.columnLabels).toEqual(['building', 'energy']);
    const rows = report.dataTable.map((r) => [r.building, r.energy]).sort();
    expect(rows).toEqual(
      [
        ['North', 60],
        ['South', 10],
        [null, 2],
      ].sort(),
    );
  });

  it('groups by the nearest asset of any type, and filters by it', async () => {
    const nearest = await preview(base([{ field: 'ASSET', label: 'Where' }, { field: 'DEVICE_NAME' }]));
    expect(nearest.dataTable.map((r) => [r.Where, r.Device]).sort()).toEqual(
      [
        ['North 1', 'Meter N1'],
        ['North 2', 'Meter N2'],
        ['South', 'Meter S'],
        [null, 'Meter loose'],
      ].sort(),
    );
    const filtered = await preview({
      ...base([{ field: 'DEVICE_NAME' }]),
      filters: [{ name: 'building', field: 'ASSET', assetType: 'building', values: ['North'] }],
    });
    expect(filtered.dataTable.map((r) => r.Device).sort()).toEqual(['Meter N1', 'Meter N2']);
    const other = await preview(base([{ field: 'ASSET', relationType: 'Manages' }]));
    expect(other.dataTable).toEqual([{ Asset: null, energy: 72 }]);
  });

  it('refuses asset properties on other fields', async () => {
    await expectTbError(
      await platform().http('/api/tableView/preview', {
        method: 'POST',
        token,
        json: { config: base([{ field: 'DEVICE_NAME', assetType: 'building' }]) },
      }),
      400,
      30,
      "'config.dimensions[0].assetType' is only for ASSET fields",
    );
  });
});
