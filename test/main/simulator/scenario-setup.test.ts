/**
 * The "Smart building" scenario's setup over REST and real MQTT: starting it creates the building, floors
 * and rooms with their Contains relations and the room-climate profile's alarm rule, and its temperature
 * wave raises and clears the High Temperature alarm (propagated to the room); a bad setup is refused
 * naming each JSON path.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scenarioIssues, type Scenario } from '../../../shared/schemas/simulation.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { expectTbError, okJson } from '../api/api-kit.ts';
import { BASE, simulationApi } from './sim-kit.ts';

const BUILDING_FILE = new URL('../../../shared/scenarios/smart-building.json', import.meta.url);
const DASHBOARD_FILE = new URL('../../../shared/scenarios/smart-building.dashboard.json', import.meta.url);
const building = () => JSON.parse(readFileSync(BUILDING_FILE, 'utf8')) as Scenario;
const poll = { timeout: 20_000, interval: 100 };

type Relation = { from: { id: string }; to: { id: string; entityType: string }; type: string };
type AlarmPage = { data: { type: string; severity: string; status: string; details: { data?: string } }[] };

describe('scenario setup: the Smart building scenario', () => {
  it('is valid; a setup with an unknown parent, a device of no gateway, a bad alarm rule or a remote target is not', () => {
    expect(scenarioIssues(building())).toEqual([]);
    const bad = building();
    bad.setup!.assets![1]!.parent = 'HQ Annex';
    bad.setup!.assets![3]!.devices = ['HQ Room Climate 9'];
    (
      bad.setup!.deviceProfiles![0]!.alarms[0] as { createRules: { CRITICAL: { condition: unknown } } }
    ).createRules.CRITICAL.condition = {
      condition: [],
    };
    bad.setup!.assets!.push({ name: 'HQ Building' });
    expect(scenarioIssues(bad)).toEqual([
      {
        path: 'setup.deviceProfiles[0].alarms[0].createRules.CRITICAL.condition.condition',
        message: 'must have at least one key filter',
      },
      { path: 'setup.assets[1].parent', message: "'HQ Annex' is not an asset listed before this one" },
      {
        path: 'setup.assets[3].devices[0]',
        message: "'HQ Room Climate 9' is not a device of the scenario's gateways",
      },
      { path: 'setup.assets[7].name', message: "'HQ Building' is already setup.assets[0]" },
    ]);
    const remote = { ...building(), target: { kind: 'remote' as const, host: 'tb.local', port: 1883 } };
    remote.gateways[0]!.token = 'gw-token';
    expect(scenarioIssues(remote)).toEqual([{ path: 'setup', message: 'is only for the embedded target' }]);
  });

  it('sets up the site when started, and its temperature wave raises and clears the High Temperature alarm', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const api = simulationApi(p, token);
    const scenario = building();
    // a fast wave: above 28 °C within a second, below 26 °C a few seconds later
    const gateway = scenario.gateways[0]!;
    gateway.periodMs = 100;
    gateway.keys[0]!.generator = {
      kind: 'sine',
      min: 22,
      max: 30,
      periodMs: 4000,
      decimals: 1,
      deviceOffset: 0,
      devicePhase: false,
    };

    const refused = await p.http(BASE, {
      method: 'POST',
      token,
      json: { ...scenario, setup: { assets: [{ name: 'Room', devices: ['Nope'] }] } },
    });
    await expectTbError(refused, 400, 30, /setup\.assets\[0\]\.devices\[0\]/);

    const created = await api.create(scenario);
    await api.start(created.id);

    const assetId = async (name: string) =>
      (
        await okJson<{ id: { id: string } }>(
          p.http(`/api/tenant/asset?assetName=${encodeURIComponent(name)}`, { token }),
        )
      ).id.id;
    const contains = async (fromId: string) =>
      (await okJson<Relation[]>(p.http(`/api/relations?fromId=${fromId}&fromType=ASSET`, { token }))).filter(
        (r) => r.type === 'Contains',
      );
    const buildingId = await assetId('HQ Building');
    const floor1 = await assetId('HQ Floor 1');
    const room101 = await assetId('HQ Room 101');
    expect((await contains(buildingId)).map((r) => r.to.id).sort()).toEqual(
      [floor1, await assetId('HQ Floor 2')].sort(),
    );
    expect((await contains(floor1)).map((r) => r.to.id).sort()).toEqual(
      [room101, await assetId('HQ Room 102')].sort(),
    );
    const sensor = await api.deviceId('HQ Room Climate 1');
    expect(await contains(room101)).toEqual([
      expect.objectContaining({ to: { entityType: 'DEVICE', id: sensor } }),
    ]);
    const device = await okJson<{ type: string }>(p.http(`/api/device/${sensor}`, { token }));
    expect(device.type).toBe('room-climate');

    // the alarm comes from the profile's rule, is propagated to the room, and clears as the wave falls
    const alarms = (entity: string) =>
      okJson<AlarmPage>(p.http(`/api/alarm/${entity}?pageSize=10&page=0`, { token })).then((a) => a.data);
    await expect
      .poll(async () => (await alarms(`DEVICE/${sensor}`)).map((a) => [a.type, a.severity]), poll)
      .toContainEqual(['High Temperature', 'CRITICAL']);
    const [raised] = await alarms(`DEVICE/${sensor}`);
    // the wave peaks at 30 °C, shifted by up to the device offset (0.3) and noise (0.1)
    const reported = /^Room temperature is (\d+(?:\.\d)?) °C$/.exec(raised!.details.data as string);
    expect(Number(reported?.[1])).toBeGreaterThan(28);
    expect(Number(reported?.[1])).toBeLessThanOrEqual(30.4);
    expect((await alarms(`ASSET/${room101}`)).map((a) => a.type)).toContain('High Temperature');
    await expect
      .poll(async () => (await alarms(`DEVICE/${sensor}`)).map((a) => a.status), poll)
      .toContain('CLEARED_UNACK');

    // started again: the same site, nothing created twice
    await api.stop(created.id);
    await api.start(created.id);
    await api.stop(created.id);
    expect(await contains(buildingId)).toHaveLength(2);
    const assets = await okJson<{ totalElements: number }>(
      p.http('/api/tenant/assets?pageSize=100&page=0', { token }),
    );
    expect(assets.totalElements).toBe(7);
    // its shipped dashboard was created once, as the file beside the scenario holds it
    const dashboards = await okJson<{ data: { id: { id: string }; title: string }[] }>(
      p.http('/api/tenant/dashboards?pageSize=10&page=0', { token }),
    );
    expect(dashboards.data.map((d) => d.title)).toEqual(['Smart building']);
    const shipped = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as { configuration: unknown };
    const dashboard = await okJson<{ configuration: unknown }>(
      p.http(`/api/dashboard/${dashboards.data[0]!.id.id}`, { token }),
    );
    expect(dashboard.configuration).toEqual(shipped.configuration);
  });

  it('its rooms differ: each sensor stores its own series and raises its alarm at its own time', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const api = simulationApi(p, token);
    const scenario = building();
    const gateway = scenario.gateways[0]!;
    gateway.periodMs = 100;
    // the shipped wave, faster: the same per-device variation (seeded phase, offset, noise)
    const wave = gateway.keys[0]!.generator as Extract<
      Scenario['gateways'][0]['keys'][0]['generator'],
      { kind: 'sine' }
    >;
    wave.periodMs = 6000;
    const created = await api.create(scenario);
    await api.start(created.id);

    const sensors = await Promise.all([1, 2, 3, 4].map((n) => api.deviceId(`HQ Room Climate ${n}`)));
    const firstAlarm = async (id: string) =>
      (
        await okJson<{ data: { type: string; startTs: number }[] }>(
          p.http(`/api/alarm/DEVICE/${id}?pageSize=10&page=0&sortProperty=startTs&sortOrder=ASC`, { token }),
        )
      ).data.find((a) => a.type === 'High Temperature')?.startTs;
    await expect
      .poll(async () => (await Promise.all(sensors.map(firstAlarm))).every(Boolean), poll)
      .toBe(true);
    const starts = (await Promise.all(sensors.map(firstAlarm))) as number[];
    // one wave, four phases: the first alarms are spread over the period, not raised together
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThan(1000);

    const series = async (id: string) =>
      (
        await okJson<{ temperature?: { value: number }[] }>(
          p.http(
            `/api/plugins/telemetry/DEVICE/${id}/values/timeseries?keys=temperature&startTs=0&endTs=${Date.now()}&limit=20&useStrictDataTypes=true`,
            { token },
          ),
        )
      ).temperature?.map((v) => v.value) ?? [];
    const all = await Promise.all(sensors.map(series));
    for (const s of all) expect(s.length).toBeGreaterThan(5);
    expect(new Set(all.map((s) => JSON.stringify(s))).size).toBe(4);
    await api.stop(created.id);
  });
});
