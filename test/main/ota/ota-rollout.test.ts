import { afterEach, describe, expect, it } from 'vitest';
import { OtaFleet } from '../../../main/simulator/ota-fleet.ts';
import { OTA_FAIL_ERRORS } from '../../../main/simulator/ota-device.ts';
import { okJson } from '../api/api-kit.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { createPackage, packageBytes } from './ota-kit.ts';

const DEVICES = 1_000;
let fleet: OtaFleet | undefined;
afterEach(async () => {
  await fleet?.stop();
  fleet = undefined;
});

describe('an OTA rollout to simulated devices', () => {
  it('1,000 devices of a profile update themselves; exactly the 5% failing on purpose show as FAILED', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const profile = await okJson<{ id: { id: string } } & Record<string, unknown>>(
      p.http('/api/deviceProfile', { method: 'POST', token, json: { name: 'ota-fleet' } }),
    );
    const tokens = Array.from({ length: DEVICES }, (_, i) => `ota-fleet-${i}`);
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < DEVICES) {
          const i = next++;
          await okJson(
            p.http(`/api/device?accessToken=${tokens[i]}`, {
              method: 'POST',
              token,
              json: {
                name: `ota-fleet-${i}`,
                deviceProfileId: { entityType: 'DEVICE_PROFILE', id: profile.id.id },
              },
            }),
          );
        }
      }),
    );
    const data = packageBytes(20_000, 99);
    const pkg = await createPackage(p as never, token, {
      profileId: profile.id.id,
      title: 'fleet-fw',
      version: '3.0',
      data,
    });

    fleet = new OtaFleet({
      url: p.urls.mqtt,
      tokens,
      failShare: 0.05,
      failReason: 'checksum',
      chunkSize: 8 * 1024,
    });
    await fleet.start();
    // the profile gets the package: every device of it without its own is sent the update
    const saved = await okJson<Record<string, unknown>>(
      p.http(`/api/deviceProfile/${profile.id.id}`, { token }),
    );
    await okJson(
      p.http('/api/deviceProfile', {
        method: 'POST',
        token,
        json: { ...saved, firmwareId: { entityType: 'OTA_PACKAGE', id: pkg.id.id } },
      }),
    );
    const reported = await fleet.whenFinished();
    expect(reported).toEqual({ UPDATED: 950, FAILED: 50 });
    expect(fleet.bytes()).toBe(DEVICES * data.length);

    const rollout = await okJson<{
      devices: number;
      states: Record<string, number>;
      failures: Record<string, number>;
    }>(p.http(`/api/sandboard/otaPackage/${pkg.id.id}/rollout`, { token }));
    expect(rollout.devices).toBe(DEVICES);
    expect(rollout.states).toMatchObject({
      UPDATED: 950,
      FAILED: 50,
      QUEUED: 0,
      INITIATED: 0,
      DOWNLOADING: 0,
    });
    expect(rollout.failures).toEqual({ [OTA_FAIL_ERRORS.checksum]: 50 });
  }, 240_000);
});
