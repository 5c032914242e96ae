/**
 * A scenario's devices that update themselves (scenario.ota) on the embedded platform: their profile
 * (created when missing), the devices with their own tokens, and the optional package made at start and
 * assigned to the profile, so that a headless run has an update to follow.
 */
import { createHash } from 'node:crypto';
import { otaDeviceNames, type OtaScenario, type Scenario } from '../../shared/schemas/simulation.ts';
import type { SaveDeviceProfileRequest } from '../../shared/schemas/entities.ts';
import type { Principal } from '../platform/auth/principal.ts';
import { DEFAULT_PROFILE_DATA } from '../platform/device-profiles.ts';
import type { Services } from '../platform/services.ts';
import type { OtaFleetOptions } from './ota-fleet.ts';

/** Devices created (or found) at once. */
const CREATE_CONCURRENCY = 8;

async function ensureProfile(services: Services, name: string, actor: Principal): Promise<string> {
  const row = services.profiles.findRowByName(name);
  if (row) return row.id;
  const saved = await services.profiles.save(
    { name, type: 'DEFAULT', profileData: { ...DEFAULT_PROFILE_DATA } },
    actor,
  );
  return saved.id.id;
}

/** The access tokens of the OTA devices, created of the profile when missing (in name order). */
async function ensureDevices(
  services: Services,
  ota: OtaScenario,
  profile: string,
  actor: Principal,
): Promise<string[]> {
  const names = otaDeviceNames(ota);
  const tokens: string[] = new Array<string>(names.length);
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const i = next++;
      const name = names[i]!;
      const id =
        services.devices.findRowByName(name)?.id ??
        (await services.devices.save({ name, type: profile }, actor)).id.id;
      tokens[i] = services.devices.getCredentials(id, actor).credentialsId;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CREATE_CONCURRENCY, names.length) }, worker));
  return tokens;
}

/** Seeded bytes: the same title, version and size give the same file (and checksum). */
export function generatedFirmware(title: string, version: string, size: number): Buffer {
  const out = Buffer.alloc(size);
  let block = createHash('sha256').update(`${title}\u0000${version}`).digest();
  for (let at = 0; at < size; at += block.length) {
    block.copy(out, at);
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

/** The scenario's package on the profile: made when the profile has none of that title and version, then assigned. */
async function ensurePackage(
  services: Services,
  spec: NonNullable<OtaScenario['package']>,
  profileId: string,
  actor: Principal,
): Promise<void> {
  const existing = services.otaPackages
    .pageForProfile(profileId, 'FIRMWARE', { pageSize: 1000, page: 0, textSearch: spec.title })
    .data.find((p) => p.title === spec.title && p.version === spec.version);
  let packageId = existing?.id.id;
  if (!packageId) {
    const info = await services.otaPackages.saveInfo(
      {
        title: spec.title,
        version: spec.version,
        type: 'FIRMWARE',
        deviceProfileId: { entityType: 'DEVICE_PROFILE', id: profileId },
      },
      actor,
    );
    packageId = info.id.id;
    const data = generatedFirmware(spec.title, spec.version, spec.sizeBytes);
    const fileName = `${spec.title}-${spec.version}.bin`;
    await services.otaPackages.saveData(
      packageId,
      { fileName, contentType: 'application/octet-stream', data },
      'SHA256',
      undefined,
      actor,
    );
  }
  const profile = services.profiles.get(profileId);
  if (profile.firmwareId?.id === packageId) return;
  const request = { ...profile, firmwareId: { entityType: 'OTA_PACKAGE', id: packageId } };
  await services.profiles.save(request as SaveDeviceProfileRequest, actor);
}

/**
 * The OTA fleet of a scenario on the embedded platform (undefined: the scenario has no ota section).
 * The devices connect to `url`; the package, when the scenario names one, is assigned after they exist.
 */
export async function otaFleetPlan(
  services: Services,
  scenario: Scenario,
  url: string,
  actor: Principal,
): Promise<OtaFleetOptions | undefined> {
  const ota = scenario.ota;
  if (!ota) return undefined;
  const profileName = ota.deviceType ?? 'default';
  const profileId = await ensureProfile(services, profileName, actor);
  const tokens = await ensureDevices(services, ota, profileName, actor);
  if (ota.package) await ensurePackage(services, ota.package, profileId, actor);
  return {
    url,
    tokens,
    failShare: ota.failShare ?? 0,
    failReasons: ota.failReasons ?? ['checksum'],
    seed: `ota:${String(scenario.seed ?? scenario.name)}`,
    ...(ota.chunkSize !== undefined ? { chunkSize: ota.chunkSize } : {}),
  };
}
