import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Scenario, SimulationReport } from '../../../shared/schemas/simulation.ts';
import { OTA_FAIL_ERRORS } from '../../../main/simulator/ota-device.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { expectTbError, okJson } from '../api/api-kit.ts';
import { createPackage, packageBytes } from '../ota/ota-kit.ts';
import { BASE, simulateCli, simulationApi } from './sim-kit.ts';

const poll = { timeout: 30_000, interval: 100 };
const OTA_ROLLOUT = new URL('../../../shared/scenarios/ota-rollout.json', import.meta.url);

const gateway = {
  name: 'OTA Site Gateway',
  periodMs: 1000,
  devicesCount: 1,
  keys: [{ key: 'temperature', generator: { kind: 'random', min: 0, max: 30 } }],
};

describe('a scenario with devices that update themselves (scenario.ota)', () => {
  it('the devices follow a package assigned to their profile; exactly round(share × N) fail, by the chosen reasons', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const api = simulationApi(p, token);
    const scenario: Scenario = {
      name: 'OTA rollout',
      gateways: [gateway as Scenario['gateways'][number]],
      ota: {
        devicesCount: 20,
        deviceType: 'ota-sim',
        failShare: 0.25,
        failReasons: ['checksum', 'download', 'update'],
        chunkSize: 4096,
      },
    };
    const created = await api.create(scenario);
    expect(created.scenario.ota).toEqual(scenario.ota);
    await api.start(created.id);

    // connected, nothing to update yet: the profile (created at start) has no package
    const idle = await api.status(created.id);
    expect(idle.ota).toMatchObject({
      devices: 20,
      connected: 20,
      failingOnPurpose: 5,
      updated: 0,
      failed: 0,
    });
    const device = await okJson<{ type: string }>(
      p.http(`/api/device/${await api.deviceId('OTA Device 7')}`, { token }),
    );
    expect(device.type).toBe('ota-sim');

    // the OTA page's steps: a package for the profile, then the profile gets it
    const profile = await okJson<{ id: { id: string } } & Record<string, unknown>>(
      p.http(`/api/deviceProfile/${await profileId(p, token, 'ota-sim')}`, { token }),
    );
    const data = packageBytes(30_000, 3);
    const pkg = await createPackage(p as never, token, {
      profileId: profile.id.id,
      title: 'sim-fw',
      version: '2.0',
      data,
    });
    await okJson(
      p.http('/api/deviceProfile', {
        method: 'POST',
        token,
        json: { ...profile, firmwareId: { entityType: 'OTA_PACKAGE', id: pkg.id.id } },
      }),
    );

    await expect
      .poll(async () => {
        const o = (await api.status(created.id)).ota!;
        return o.updated + o.failed;
      }, poll)
      .toBe(20);
    const done = (await api.status(created.id)).ota!;
    expect(done).toMatchObject({ updated: 15, failed: 5 });
    // the 5 failing devices take the reasons in turn
    expect(done.failedByReason).toEqual({
      [OTA_FAIL_ERRORS.checksum]: 2,
      [OTA_FAIL_ERRORS.download]: 2,
      [OTA_FAIL_ERRORS.update]: 1,
    });
    expect(done.bytes).toBeGreaterThanOrEqual(15 * data.length);

    // the OTA page's rollout shows the same, from what the devices reported
    const rollout = await okJson<{ devices: number; states: Record<string, number>; failures: unknown }>(
      p.http(`/api/sandboard/otaPackage/${pkg.id.id}/rollout`, { token }),
    );
    expect(rollout.devices).toBe(20);
    expect(rollout.states).toMatchObject({ UPDATED: 15, FAILED: 5 });
    expect(rollout.failures).toEqual(done.failedByReason);

    // the report counts the outcomes, and its JUnit test passes (only the planned failures)
    const report = await okJson<SimulationReport>(p.http(`${BASE}/${created.id}/report`, { token }));
    expect(report.ota).toMatchObject({ devices: 20, updated: 15, failed: 5, failingOnPurpose: 5 });
    const junit = await (await p.http(`${BASE}/${created.id}/report/junit`, { token })).text();
    expect(junit).toMatch(/name="OTA devices update, failing only on purpose" time="0">\s*<system-out>/);
    await api.stop(created.id);
  });

  it('refuses an ota section it cannot run, naming the JSON path; the API document describes the section', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const doc = JSON.stringify(await okJson<unknown>(p.http('/v3/api-docs')));
    expect(doc).toContain('failReasons');
    expect(doc).toContain('round(failShare × devicesCount)');
    const post = (scenario: unknown) => p.http(BASE, { method: 'POST', token, json: scenario });
    await expectTbError(
      await post({
        name: 'remote OTA',
        target: { kind: 'remote', host: 'example.com', port: 1883 },
        gateways: [{ ...gateway, token: 'gw' }],
        ota: { devicesCount: 2 },
      }),
      400,
      30,
      /ota: is only for the embedded target/,
    );
    await expectTbError(
      await post({
        name: 'same names',
        gateways: [gateway],
        ota: { devicesCount: 3, deviceNamePattern: 'fw' },
      }),
      400,
      30,
      /ota\.deviceNamePattern: must contain \$\{n\}/,
    );
    await expectTbError(
      await post({ name: 'bad share', gateways: [gateway], ota: { devicesCount: 3, failShare: 1.5 } }),
      400,
      30,
      /ota\.failShare/,
    );
    await expectTbError(
      await post({
        name: 'bad reason',
        gateways: [gateway],
        ota: { devicesCount: 3, failReasons: ['power'] },
      }),
      400,
      30,
      /ota\.failReasons\[0\]/,
    );
  });

  it('sandboard simulate runs the shipped OTA rollout headless: the package it brings, 2 of 20 failing, reported', async () => {
    const dir = tempDir();
    const reportFile = join(dir, 'report.json');
    const junitFile = join(dir, 'junit.xml');
    const { code, stdout, stderr } = await simulateCli([
      fileURLToPath(OTA_ROLLOUT),
      '--data-dir',
      join(dir, 'data'),
      '--report',
      reportFile,
      '--junit',
      junitFile,
    ]);
    expect(code, stderr).toBe(0);
    // the run waited for the update (messages: 1 alone would end it at once)
    expect(stdout).toContain('OTA: 18 of 20 updated, 2 failed');
    expect(stdout).toContain('2 failing on purpose');
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as SimulationReport;
    expect(report.ota).toMatchObject({ devices: 20, updated: 18, failed: 2, failingOnPurpose: 2 });
    expect(report.ota!.failedByReason).toEqual({
      [OTA_FAIL_ERRORS.checksum]: 1,
      [OTA_FAIL_ERRORS.download]: 1,
    });
    const junit = readFileSync(junitFile, 'utf8');
    expect(junit).toContain('<property name="otaUpdated" value="18"/>');
    expect(junit).toContain('failures="0"');
  });
});

async function profileId(
  p: Awaited<ReturnType<typeof startTestPlatform>>,
  token: string,
  name: string,
): Promise<string> {
  const page = await okJson<{ data: { id: { id: string }; name: string }[] }>(
    p.http(`/api/deviceProfiles?pageSize=100&page=0&textSearch=${encodeURIComponent(name)}`, { token }),
  );
  return page.data.find((d) => d.name === name)!.id.id;
}
