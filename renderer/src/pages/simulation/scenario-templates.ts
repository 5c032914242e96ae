import ota from '../../../../shared/scenarios/ota-rollout.json';
import sample from '../../../../shared/scenarios/smart-building-gateway.json';
import thermostats from '../../../../shared/scenarios/scripted-thermostats.json';
import building from '../../../../shared/scenarios/smart-building.json';
import { deviceNames, type Scenario } from '../../../../shared/schemas/simulation.ts';

export interface ScenarioTemplate {
  id: string;
  label: string;
  description: string;
  scenario: Scenario;
}

const minimal: Scenario = {
  name: 'Single gateway',
  description: 'One gateway with one device sending a temperature sine wave and a counter.',
  target: { kind: 'embedded' },
  gateways: [
    {
      name: 'Gateway 1',
      protocolVersion: 5,
      qos: 1,
      periodMs: 1000,
      devicesCount: 1,
      deviceNamePattern: '${gateway} Device ${n}',
      keys: [
        { key: 'temperature', generator: { kind: 'sine', min: 18, max: 26, periodMs: 30000, decimals: 1 } },
        { key: 'counter', generator: { kind: 'counter' } },
      ],
      rpc: [{ method: '*', responder: { kind: 'echo' } }],
    },
  ],
};

export const TEMPLATES: ScenarioTemplate[] = [
  {
    id: 'smart-building',
    label: 'Smart building (sample)',
    description:
      'Two gateways, five devices each: climate sensors over MQTT 5 and energy meters over MQTT 3.1.1, with RPC responders.',
    scenario: sample as unknown as Scenario,
  },
  {
    id: 'smart-building-alarms',
    label: 'Smart building: rooms and alarms',
    description:
      'A building, its floors and rooms as assets, a climate sensor per room, and an alarm rule: High Temperature above 28 °C, cleared below 26 °C.',
    scenario: building as unknown as Scenario,
  },
  {
    id: 'scripted-thermostats',
    label: 'Scripted thermostats',
    description:
      'Three thermostats run by a device script: each moves toward the targetTemp shared attribute it is sent, and answers the RPC getState and setTarget.',
    scenario: thermostats as unknown as Scenario,
  },
  {
    id: 'ota-rollout',
    label: 'OTA rollout',
    description:
      'Twenty devices that update themselves to a firmware package the run makes and assigns; 10% fail on purpose. The OTA updates page follows the rollout.',
    scenario: ota as unknown as Scenario,
  },
  {
    id: 'minimal',
    label: 'Single gateway',
    description: 'One gateway, one device, two keys: a quick start to edit.',
    scenario: minimal,
  },
];

/** The name, or the name with " (2)", " (3)"… when it is taken. */
export function uniqueName(name: string, taken: Iterable<string>): string {
  const names = new Set(taken);
  if (!names.has(name)) return name;
  for (let i = 2; ; i++) if (!names.has(`${name} (${i})`)) return `${name} (${i})`;
}

/** A template made concrete: its name, and every gateway's period and device count set. */
export function fromTemplate(
  template: ScenarioTemplate,
  options: { name: string; periodMs?: number; devicesCount?: number },
): Scenario {
  const copy = structuredClone(template.scenario);
  const gateways = copy.gateways.map((g) => ({
    ...g,
    ...(options.periodMs !== undefined ? { periodMs: options.periodMs } : {}),
    ...(options.devicesCount !== undefined ? { devicesCount: options.devicesCount } : {}),
  }));
  const made: Scenario = { ...copy, name: options.name, gateways };
  // fewer devices: the setup's assets contain only those that are left
  if (copy.setup?.assets) {
    const names = new Set(gateways.flatMap(deviceNames));
    made.setup = {
      ...copy.setup,
      assets: copy.setup.assets.map((a) =>
        a.devices ? { ...a, devices: a.devices.filter((d) => names.has(d)) } : a,
      ),
    };
  }
  return made;
}
