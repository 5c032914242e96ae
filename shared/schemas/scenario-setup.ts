/**
 * What an embedded scenario sets up on this platform before its gateways connect: device profiles with
 * alarm rules (ThingsBoard's profileData.alarms), and assets that Contain their child assets and the
 * scenario's devices, so a simulated site has its hierarchy and raises alarms of its own.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { alarmRulesIssues } from './device-profile-alarms.ts';
import { joinPath, type JsonPathIssue } from './json-path-issues.ts';

export const SETUP_LIMITS = { deviceProfiles: 20, assets: 1000, devicesPerAsset: 1000 } as const;

const obj = <T extends Record<string, TSchema>>(properties: T, description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });
const Name = Type.String({ minLength: 1, maxLength: 255 });

export const SetupDeviceProfile = obj(
  {
    name: Name,
    alarms: Type.Array(Type.Unknown(), {
      maxItems: 100,
      description: "the profile's alarm rules, as ThingsBoard's profileData.alarms",
    }),
  },
  "a device profile created when missing; its alarm rules are set at each start (name it in a gateway's deviceType)",
);
export const SetupAsset = obj(
  {
    name: Name,
    type: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'asset profile (default "default")' }),
    ),
    parent: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'an asset listed before it, which Contains it',
      }),
    ),
    devices: Type.Optional(
      Type.Array(Name, {
        maxItems: SETUP_LIMITS.devicesPerAsset,
        description: "names of the scenario's devices the asset Contains",
      }),
    ),
  },
  'an asset created when missing',
);
export const ScenarioSetup = obj(
  {
    deviceProfiles: Type.Optional(Type.Array(SetupDeviceProfile, { maxItems: SETUP_LIMITS.deviceProfiles })),
    assets: Type.Optional(Type.Array(SetupAsset, { maxItems: SETUP_LIMITS.assets })),
  },
  'embedded target only: device profiles and assets set up on this platform before the gateways connect',
);
export type ScenarioSetup = Static<typeof ScenarioSetup>;

/** What the schema cannot see: unique names, parents listed before, devices of the scenario, alarm rules. */
export function setupIssues(
  setup: ScenarioSetup,
  devices: ReadonlySet<string>,
  remote: boolean,
): JsonPathIssue[] {
  if (remote) return [{ path: 'setup', message: 'is only for the embedded target' }];
  const issues: JsonPathIssue[] = [];
  const profiles = new Map<string, number>();
  setup.deviceProfiles?.forEach((p, i) => {
    const path = `setup.deviceProfiles[${i}]`;
    const first = profiles.get(p.name);
    if (first !== undefined)
      issues.push({ path: `${path}.name`, message: `'${p.name}' is already setup.deviceProfiles[${first}]` });
    else profiles.set(p.name, i);
    issues.push(...alarmRulesIssues(p.alarms, joinPath(path, 'alarms')));
  });
  const assets = new Map<string, number>();
  setup.assets?.forEach((a, i) => {
    const path = `setup.assets[${i}]`;
    if (a.parent !== undefined && !assets.has(a.parent))
      issues.push({
        path: `${path}.parent`,
        message: `'${a.parent}' is not an asset listed before this one`,
      });
    const first = assets.get(a.name);
    if (first !== undefined)
      issues.push({ path: `${path}.name`, message: `'${a.name}' is already setup.assets[${first}]` });
    else assets.set(a.name, i);
    a.devices?.forEach((d, j) => {
      if (!devices.has(d))
        issues.push({
          path: `${path}.devices[${j}]`,
          message: `'${d}' is not a device of the scenario's gateways`,
        });
    });
  });
  return issues;
}
