/**
 * Sets up a scenario's site on the embedded platform before its gateways connect (the services' public
 * face, as a tenant administrator): device profiles with their alarm rules, assets, and the Contains
 * relations from each asset to its child assets and devices. Runs at every start and changes only what
 * differs, so a scenario started again finds its site as it left it.
 */
import { deviceNames, type Scenario } from '../../shared/schemas/simulation.ts';
import type { SaveDeviceProfileRequest } from '../../shared/schemas/entities.ts';
import type { ScenarioSetup } from '../../shared/schemas/scenario-setup.ts';
import type { Principal } from '../platform/auth/principal.ts';
import { DEFAULT_PROFILE_DATA } from '../platform/device-profiles.ts';
import { PlatformError } from '../platform/errors.ts';
import type { Services } from '../platform/services.ts';
import { ensureScenarioDashboard } from './scenario-dashboards.ts';

const CONTAINS = 'Contains';

async function ensureProfile(
  services: Services,
  actor: Principal,
  spec: NonNullable<ScenarioSetup['deviceProfiles']>[number],
): Promise<void> {
  const row = services.profiles.findRowByName(spec.name);
  if (!row) {
    await services.profiles.save(
      { name: spec.name, type: 'DEFAULT', profileData: { ...DEFAULT_PROFILE_DATA, alarms: spec.alarms } },
      actor,
    );
    return;
  }
  const profile = services.profiles.get(row.id);
  if (JSON.stringify(profile.profileData.alarms ?? null) === JSON.stringify(spec.alarms)) return;
  const request = { ...profile, profileData: { ...profile.profileData, alarms: spec.alarms } };
  await services.profiles.save(request as SaveDeviceProfileRequest, actor);
}

/** The id of the asset of that name, or null. */
export function findAsset(services: Services, name: string, actor: Principal): string | null {
  try {
    return services.assets.getByName(name, actor).id.id;
  } catch (err) {
    if (err instanceof PlatformError && err.status === 404) return null;
    throw err;
  }
}

/**
 * The scenario's setup; the devices an asset Contains are created (of their gateway's profile) when
 * missing. A shipped scenario also gets its dashboard.
 */
export async function applySetup(services: Services, scenario: Scenario, actor: Principal): Promise<void> {
  await ensureScenarioDashboard(services, scenario, actor);
  const setup = scenario.setup;
  if (!setup) return;
  for (const profile of setup.deviceProfiles ?? []) await ensureProfile(services, actor, profile);
  const profileOfDevice = new Map<string, string | undefined>();
  for (const g of scenario.gateways)
    for (const name of deviceNames(g)) profileOfDevice.set(name, g.deviceType);
  const assetIds = new Map<string, string>();
  for (const a of setup.assets ?? []) {
    const id =
      findAsset(services, a.name, actor) ??
      (await services.assets.save({ name: a.name, ...(a.type ? { type: a.type } : {}) }, actor)).id.id;
    assetIds.set(a.name, id);
    const contains = (to: { entityType: 'ASSET' | 'DEVICE'; id: string }, from = id) =>
      services.relations.save({ from: { entityType: 'ASSET', id: from }, to, type: CONTAINS }, actor);
    const parent = a.parent === undefined ? undefined : assetIds.get(a.parent);
    if (parent) await contains({ entityType: 'ASSET', id }, parent);
    for (const name of a.devices ?? []) {
      const type = profileOfDevice.get(name);
      const deviceId =
        services.devices.findRowByName(name)?.id ??
        (await services.devices.save({ name, ...(type ? { type } : {}) }, actor)).id.id;
      await contains({ entityType: 'DEVICE', id: deviceId });
    }
  }
}
