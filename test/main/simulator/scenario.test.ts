import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  gatewayPlan,
  parseScenario,
  parseScenarioText,
  ScenarioError,
} from '../../../main/simulator/scenario.ts';
import {
  deviceNames,
  scenarioIssues,
  formatIssue,
  type Scenario,
} from '../../../shared/schemas/simulation.ts';

const SAMPLE_PATH = new URL('../../../shared/scenarios/smart-building-gateway.json', import.meta.url);

function sample(): Scenario {
  return JSON.parse(readFileSync(SAMPLE_PATH, 'utf8')) as Scenario;
}

/** The messages parseScenario gives for a value. */
function problems(value: unknown): string[] {
  try {
    parseScenario(value);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioError);
    return (err as ScenarioError).issues.map(formatIssue);
  }
}

const minimal = (gateway: Record<string, unknown> = {}) => ({
  name: 'S',
  gateways: [{ name: 'G', devicesCount: 2, keys: [], ...gateway }],
});

describe('scenario validation', () => {
  it('accepts the sample scenario and fills in defaults', () => {
    const s = parseScenario(sample());
    expect(s.gateways).toHaveLength(2);
    const plan = gatewayPlan(s.gateways[0]!);
    expect(plan.devices).toEqual([1, 2, 3, 4, 5].map((n) => `Building A Floor ${n} Climate`));
    expect(gatewayPlan(minimal().gateways[0] as Scenario['gateways'][number])).toMatchObject({
      protocolVersion: 5,
      qos: 1,
      periodMs: 1000,
      deviceType: 'default',
      devices: ['G Device 1', 'G Device 2'],
      rpc: [],
      attributes: {},
    });
  });

  it('names the JSON path of a wrong type', () => {
    const s = sample() as unknown as { gateways: { keys: { generator: Record<string, unknown> }[] }[] };
    s.gateways[0]!.keys[2]!.generator.min = 'low';
    expect(problems(s)).toEqual(['gateways[0].keys[2].generator.min: must be a number']);
  });

  it('names missing fields, unknown fields, bad enums and unknown generator kinds', () => {
    expect(problems({})).toEqual(['name: is required', 'gateways: is required']);
    expect(problems([])).toEqual(['(scenario): must be an object']);
    expect(
      problems({
        name: 'S',
        colour: 'red',
        gateways: [
          {
            name: 'G',
            devicesCount: 1,
            qos: 2,
            keys: [
              { key: 't', generator: { kind: 'gauss' } },
              { key: 'u', generator: { kind: 'sine', min: 0, max: 1 } },
              { key: 'v', generator: { kind: 'constant', value: null } },
            ],
            rpc: [{ method: 'm', responder: { kind: 'delay' } }],
          },
        ],
      }),
    ).toEqual([
      'colour: is not allowed here',
      'gateways[0].qos: must be 0 or 1',
      "gateways[0].keys[0].generator.kind: must be one of 'constant', 'random', 'sine', 'daily', 'randomWalk', 'counter' or 'csv'",
      'gateways[0].keys[1].generator.periodMs: is required',
      'gateways[0].keys[2].generator.value: must be a number, a string or a boolean',
      'gateways[0].rpc[0].responder.ms: is required',
    ]);
    expect(problems(minimal({ periodMs: 5 }))).toEqual(['gateways[0].periodMs: must be >= 10']);
    expect(problems({ name: 'S', gateways: [] })).toEqual(['gateways: must not have fewer than 1 items']);
    expect(problems({ ...minimal(), target: { kind: 'remote', host: 'h' } })).toEqual([
      'target.port: is required',
    ]);
  });

  it('checks what the schema cannot: ranges, unique names, tokens for a remote target, CSV texts', () => {
    expect(
      problems({
        name: 'S',
        target: { kind: 'remote', host: 'tb.example.com', port: 1883 },
        gateways: [
          {
            name: 'G',
            token: 't1',
            devicesCount: 3,
            deviceNamePattern: 'Sensor',
            keys: [
              { key: 'a', generator: { kind: 'random', min: 5, max: 1 } },
              { key: 'a', generator: { kind: 'randomWalk', start: 0, step: 1, min: 1, max: 2 } },
              { key: 'c', generator: { kind: 'csv', csv: 'x,y\n1,2', column: 'z' } },
            ],
          },
          { name: 'G', devicesCount: 0, keys: [] },
        ],
      }),
    ).toEqual([
      'gateways[0].deviceNamePattern: must contain ${n} when devicesCount > 1 (device names must differ)',
      'gateways[0].keys[0].generator.max: must be >= min (5)',
      "gateways[0].keys[1].key: 'a' is already keys[0]",
      'gateways[0].keys[1].generator.start: must be within [min, max]',
      "gateways[1].name: 'G' is already the name of gateways[0]",
      'gateways[1].token: is required for a remote target (the gateway access token)',
    ]);
    // CSV problems come once the rest is valid, with the field they are about
    expect(
      problems(minimal({ keys: [{ key: 'c', generator: { kind: 'csv', csv: 'x,y\n1,2', column: 'z' } }] })),
    ).toEqual(["gateways[0].keys[0].generator.column: 'z' is not a column of the CSV (columns: x, y)"]);
    // a column per device: device 3 has none
    expect(
      problems(
        minimal({
          devicesCount: 3,
          keys: [{ key: 'c', generator: { kind: 'csv', csv: 'd1,d2\n1,2', column: 'd${n}' } }],
        }),
      ),
    ).toEqual(["gateways[0].keys[0].generator.column: 'd3' is not a column of the CSV (columns: d1, d2)"]);
    // the variation fields are checked with their path
    expect(
      problems(
        minimal({
          keys: [
            {
              key: 't',
              generator: {
                kind: 'sine',
                min: 0,
                max: 1,
                periodMs: 10,
                noise: -1,
                spikes: { probability: 2 },
              },
            },
          ],
        }),
      ),
    ).toEqual([
      'gateways[0].keys[0].generator.noise: must be >= 0',
      'gateways[0].keys[0].generator.spikes.size: is required',
      'gateways[0].keys[0].generator.spikes.probability: must be <= 1',
    ]);
    expect(problems({ ...minimal(), seed: { x: 1 } })).toEqual(['seed: must be an integer or a string']);
    // faults name a gateway and a device of the scenario, with their own fields
    expect(
      problems({
        ...minimal(),
        faults: [
          { kind: 'drop', gateway: 'Nope' },
          { kind: 'rpcSilent', device: 'G Device 9' },
          { kind: 'latency' },
          { kind: 'explode' },
          { kind: 'duplicate', share: 1.5, device: 'G Device 1' },
        ],
      }),
    ).toEqual([
      'faults[2].latencyMs: is required',
      expect.stringMatching(
        /^faults\[3\]\.kind: must be one of 'disconnect', 'reconnectStorm', .* or 'burst'$/,
      ),
      'faults[4].share: must be <= 1',
    ]);
    expect(
      problems({
        ...minimal(),
        faults: [
          { kind: 'drop', gateway: 'Nope' },
          { kind: 'rpcSilent', device: 'G Device 9' },
        ],
      }),
    ).toEqual([
      "faults[0].gateway: 'Nope' is not a gateway of the scenario",
      "faults[1].device: 'G Device 9' is not a device of the scenario",
    ]);
    expect(
      problems({
        name: 'S',
        gateways: [
          { name: 'A', devicesCount: 2, keys: [] },
          { name: 'B', devicesCount: 1, deviceNamePattern: 'A Device ${n}', keys: [] },
        ],
      }),
    ).toEqual(["gateways[1].deviceNamePattern: device 'A Device 1' is also a device of gateway 'A'"]);
  });

  it('reads JSON text, reporting a syntax error as such', () => {
    expect(parseScenarioText(JSON.stringify(minimal())).name).toBe('S');
    expect(() => parseScenarioText('{"name":')).toThrow(/is not valid JSON/);
  });

  it('shares its checks with the UI through shared/ (no server needed)', () => {
    expect(scenarioIssues(sample())).toEqual([]);
    expect(deviceNames({ name: 'GW', devicesCount: 2, deviceNamePattern: 'Sensor ${gateway}-${n}' })).toEqual(
      ['Sensor GW-1', 'Sensor GW-2'],
    );
  });
});
