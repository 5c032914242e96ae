import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { parseScenario } from '../../../main/simulator/scenario.ts';
import {
  readShippedCatalogue,
  readShippedSandbox,
  SANDBOXES_DIR,
} from '../../../main/api/shipped-sandboxes.ts';
import type {
  LoadShippedSandboxResult,
  ShippedSandboxList,
} from '../../../shared/schemas/shipped-sandbox.ts';
import { startTestPlatform } from '../../helpers/platform.ts';

describe('the shipped sandbox catalogue', () => {
  it('has the four sandboxes, each manifest valid, its files there and its scenario runnable', () => {
    const ids = readdirSync(SANDBOXES_DIR);
    expect(ids.sort()).toEqual(['factory-line', 'fleet-trackers', 'smart-building', 'thingsboard-101']);
    for (const s of readShippedCatalogue()) {
      const m = s.manifest;
      for (const file of [m.scenario, m.dashboard, m.ruleChain, m.restConnector?.config].filter(Boolean))
        expect(existsSync(new URL(`${m.id}/${file}`, SANDBOXES_DIR)), `${m.id}: ${file}`).toBe(true);
      expect(() => parseScenario(s.scenario), m.id).not.toThrow();
      expect(s.dashboard.title, m.id).toBeTruthy();
      const devices = s.scenario.gateways.flatMap((g) => g.deviceNamePattern ?? '');
      if (m.tourDevice) expect(devices.join(), m.id).toBeTruthy();
      for (const step of m.tour) expect(step.path.startsWith('/'), `${m.id}/${step.id}`).toBe(true);
      // step ids are unique, so a saved position names one step
      expect(new Set(m.tour.map((t) => t.id)).size).toBe(m.tour.length);
    }
  });

  it('ThingsBoard 101 teaches one concept per step: device, telemetry, attributes, RPC, rule chain, alarm, dashboard', () => {
    const tb = readShippedSandbox('thingsboard-101').manifest;
    expect(tb.tour.map((t) => t.id)).toEqual([
      'device',
      'telemetry',
      'attributes',
      'rpc',
      'rule-chain',
      'alarm',
      'dashboard',
    ]);
  });

  it('refuses a manifest that breaks the schema, naming the file and the path', () => {
    const root = new URL('../../fixtures/shipped-sandboxes/', import.meta.url);
    expect(() => readShippedSandbox('bad', root)).toThrow(/bad\/manifest.json: \/tour/);
  });
});

describe('loading a shipped sandbox', () => {
  it('creates its entities, imports its dashboard, starts its simulation; a second load creates nothing', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const list = async () =>
      (await (await p.http('/api/sandboard/sandboxes/shipped', { token })).json()) as ShippedSandboxList;
    const before = await list();
    expect(before.firstRun).toBe(true);
    expect(before.data.map((s) => s.id)).toContain('fleet-trackers');
    expect(before.data.find((s) => s.id === 'fleet-trackers')!.status.state).toBe('NOT_LOADED');

    const load = async () => {
      const res = await p.http('/api/sandboard/sandboxes/shipped/fleet-trackers/load', {
        method: 'POST',
        token,
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as LoadShippedSandboxResult;
    };
    const first = await load();
    const created = first.created.map((c) => `${c.type}:${c.name}`);
    expect(created).toEqual(
      expect.arrayContaining([
        'DEVICE_PROFILE:tracker',
        'ASSET:Depot zone',
        'DEVICE:Van 1',
        'DEVICE:Van 4',
        'DASHBOARD:Fleet trackers',
        'SIMULATION:Fleet trackers',
      ]),
    );
    expect(first.status.state).toBe('LOADED');
    expect(first.status.dashboardId).toBeTruthy();

    // the simulation runs: Van 1's position changes, and its insideZone is computed
    const vanId = first.status.deviceId!;
    const latest = async () =>
      (await (
        await p.http(`/api/plugins/telemetry/DEVICE/${vanId}/values/timeseries?keys=latitude,insideZone`, {
          token,
        })
      ).json()) as Record<string, { value: unknown }[]>;
    await vi.waitFor(async () => expect((await latest()).latitude?.[0]).toBeDefined(), { timeout: 15_000 });
    const lat0 = (await latest()).latitude![0]!.value;
    await vi.waitFor(async () => expect((await latest()).latitude![0]!.value).not.toEqual(lat0), {
      timeout: 15_000,
    });
    expect(['true', 'false', true, false]).toContain((await latest()).insideZone![0]!.value);

    // the geofence's perimeter is on the zone asset, for the map widget
    const zone = (await (await p.http('/api/tenant/assets?assetName=Depot%20zone', { token })).json()) as {
      id: { id: string };
    };
    const attrs = (await (
      await p.http(
        `/api/plugins/telemetry/ASSET/${zone.id.id}/values/attributes/SERVER_SCOPE?keys=perimeter`,
        {
          token,
        },
      )
    ).json()) as { key: string; value: string }[];
    expect(JSON.parse(attrs[0]!.value)).toHaveLength(4);

    const second = await load();
    expect(second.created).toEqual([]);
    expect(second.existing.map((c) => `${c.type}:${c.name}`)).toEqual(expect.arrayContaining(created));
    const devices = (await (
      await p.http('/api/tenant/devices?pageSize=100&page=0&type=tracker', { token })
    ).json()) as { totalElements: number };
    expect(devices.totalElements).toBe(4);
    const dashboards = (await (
      await p.http('/api/tenant/dashboards?pageSize=100&page=0&textSearch=Fleet', { token })
    ).json()) as { totalElements: number };
    expect(dashboards.totalElements).toBe(1);
    expect((await list()).firstRun).toBe(false);
  });

  it('loads the factory line with its gateways, REST connector and edge, and ThingsBoard 101 with its rule chain', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const load = async (id: string) => {
      const res = await p.http(`/api/sandboard/sandboxes/shipped/${id}/load`, { method: 'POST', token });
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as LoadShippedSandboxResult;
    };
    const factory = await load('factory-line');
    expect(factory.created.map((c) => `${c.type}:${c.name}`)).toEqual(
      expect.arrayContaining([
        'REST_CONNECTOR:Factory quality station',
        'EDGE:Factory edge',
        'ASSET:Line 1',
        'DEVICE:Press 3',
        'DEVICE:Conveyor 2',
      ]),
    );
    const connectors = (await (await p.http('/api/sandboard/restConnectors', { token })).json()) as {
      name: string;
      state: string;
    }[];
    expect(connectors.find((c) => c.name === 'Factory quality station')?.state).toBe('running');
    const tb = await load('thingsboard-101');
    expect(tb.created.map((c) => `${c.type}:${c.name}`)).toEqual(
      expect.arrayContaining(['RULE_CHAIN:ThingsBoard 101 chain', 'DEVICE:Thermometer 101']),
    );
    const building = await load('smart-building');
    expect(building.created.map((c) => `${c.type}:${c.name}`)).toEqual(
      expect.arrayContaining(['ASSET:HQ Building', 'DEVICE:HQ Room Climate 4', 'DASHBOARD:Smart building']),
    );
    expect((await load('factory-line')).created).toEqual([]);
    expect((await load('thingsboard-101')).created).toEqual([]);

    const unknown = await p.http('/api/sandboard/sandboxes/shipped/nope/load', { method: 'POST', token });
    expect(unknown.status).toBe(404);
  });
});
