/**
 * Gateway simulation: the scenario file (what `sandboard simulate` runs and the UI saves, exports and
 * imports) and the REST shapes of /api/sandboard/simulations. Pure TypeBox: the server and the UI share it.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import {
  isRecord,
  joinPath,
  oneOf,
  schemaIssues,
  type JsonPathIssue,
  type SchemaNode as Schema,
  type UnionExplainer,
} from './json-path-issues.ts';
import { ScenarioSetup, setupIssues } from './scenario-setup.ts';

export const SIMULATION_LIMITS = {
  gateways: 100,
  devicesPerGateway: 10_000,
  devicesPerScenario: 100_000,
  keysPerGateway: 100,
  rpcRulesPerGateway: 100,
  minPeriodMs: 10,
  csvChars: 1_000_000,
  faults: 100,
  scriptChars: 50_000,
  scriptedDevicesPerScenario: 10_000,
  otaDevices: 10_000,
  otaPackageBytes: 16 * 1024 * 1024,
  workers: 16,
} as const;

export const DEFAULT_DEVICE_NAME_PATTERN = '${gateway} Device ${n}';

const obj = <T extends Record<string, TSchema>>(properties: T, description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });

export const TelemetryValue = Type.Union([Type.Number(), Type.String(), Type.Boolean()], {
  description: 'a number, a string or a boolean',
});
export type TelemetryValue = Static<typeof TelemetryValue>;

const Decimals = Type.Integer({ minimum: 0, maximum: 10, description: 'digits after the point (default 2)' });

export const ConstantGenerator = obj({ kind: Type.Literal('constant'), value: TelemetryValue });

/**
 * How the devices of one key differ: each device draws its own offset and phase from its seed (the
 * scenario's seed and the device name), and its values get noise and spikes from the same seeded stream.
 */
const Variation = {
  deviceOffset: Type.Optional(
    Type.Number({
      minimum: 0,
      description:
        "each device's values are shifted by its own fixed amount in [-deviceOffset, deviceOffset] (a counter's start: [0, deviceOffset]); default 5% of max - min (randomWalk without bounds: 10 steps; counter: 100 steps); 0: no offset",
    }),
  ),
  devicePhase: Type.Optional(
    Type.Boolean({
      description:
        'each device starts at its own point of the wave (sine: anywhere in the period; daily: within an hour either way; csv: at its own row); default true',
    }),
  ),
  noise: Type.Optional(
    Type.Number({
      minimum: 0,
      description: 'each value moves by a random amount in [-noise, noise] (default 0)',
    }),
  ),
  spikes: Type.Optional(
    obj(
      {
        probability: Type.Number({ minimum: 0, maximum: 1, description: 'chance of a spike per value' }),
        size: Type.Number({ description: 'added to the value when it spikes (negative: a dip)' }),
      },
      'occasional outliers',
    ),
  ),
};

export const RandomGenerator = obj(
  {
    kind: Type.Literal('random'),
    min: Type.Number(),
    max: Type.Number(),
    decimals: Type.Optional(Decimals),
    ...Variation,
  },
  'uniform random value in [min, max]',
);
export const SineGenerator = obj(
  {
    kind: Type.Literal('sine'),
    min: Type.Number(),
    max: Type.Number(),
    periodMs: Type.Integer({ minimum: 1 }),
    phaseMs: Type.Optional(Type.Number({ description: 'shift of the wave (default 0: starts mid-range)' })),
    decimals: Type.Optional(Decimals),
    ...Variation,
  },
  'min + (max - min) * (1 + sin(2π (elapsed + phaseMs) / periodMs)) / 2',
);
export const DailyGenerator = obj(
  {
    kind: Type.Literal('daily'),
    min: Type.Number(),
    max: Type.Number(),
    peakHour: Type.Optional(
      Type.Number({ minimum: 0, maximum: 24, description: 'local hour of the maximum (default 15)' }),
    ),
    decimals: Type.Optional(Decimals),
    ...Variation,
  },
  'a daily cycle in real local time: max at peakHour, min twelve hours away',
);
export const RandomWalkGenerator = obj(
  {
    kind: Type.Literal('randomWalk'),
    start: Type.Number(),
    step: Type.Number({ minimum: 0, description: 'largest change per message' }),
    min: Type.Optional(Type.Number()),
    max: Type.Optional(Type.Number()),
    decimals: Type.Optional(Decimals),
    ...Variation,
  },
  'starts at start, then moves by a random amount in [-step, step], kept within [min, max]',
);
export const CounterGenerator = obj(
  {
    kind: Type.Literal('counter'),
    start: Type.Optional(Type.Number({ description: 'default 0' })),
    step: Type.Optional(Type.Number({ description: 'default 1' })),
    ...Variation,
  },
  'start, start + step, start + 2 step, ...',
);
export const CsvGenerator = obj(
  {
    kind: Type.Literal('csv'),
    csv: Type.String({
      minLength: 1,
      maxLength: SIMULATION_LIMITS.csvChars,
      description:
        'inline CSV with a header row; with a "ts" column the rows replay on their own timeline, else one row per message',
    }),
    column: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'column to replay (default: "value", else the first column that is not "ts"); ${n} and ${device} expand, for a column per device (e.g. "floor${n}")',
      }),
    ),
    loop: Type.Optional(Type.Boolean({ description: 'start over at the end (default true)' })),
    ...Variation,
  },
  'replay of a CSV column',
);

export const Generator = Type.Union([
  ConstantGenerator,
  RandomGenerator,
  SineGenerator,
  DailyGenerator,
  RandomWalkGenerator,
  CounterGenerator,
  CsvGenerator,
]);
export type Generator = Static<typeof Generator>;
export type GeneratorKind = Generator['kind'];

export const KeySpec = obj({
  key: Type.String({ minLength: 1, maxLength: 255 }),
  generator: Generator,
});
export type KeySpec = Static<typeof KeySpec>;

export const Responder = Type.Union([
  obj({ kind: Type.Literal('echo') }, 'answers with the request params'),
  obj({ kind: Type.Literal('fixed'), reply: Type.Unknown() }, 'answers with reply'),
  obj(
    {
      kind: Type.Literal('delay'),
      ms: Type.Integer({ minimum: 0, maximum: 600_000 }),
      reply: Type.Optional(Type.Unknown({ description: 'default: the request params' })),
    },
    'answers after ms milliseconds',
  ),
  obj({ kind: Type.Literal('error'), error: Type.String() }, 'answers {"error": error}'),
]);
export type Responder = Static<typeof Responder>;

export const RpcRule = obj({
  method: Type.String({ minLength: 1, maxLength: 255, description: "RPC method, or '*' for any other" }),
  responder: Responder,
});
export type RpcRule = Static<typeof RpcRule>;

export const GatewaySpec = obj({
  name: Type.String({ minLength: 1, maxLength: 255, description: 'name of the gateway device' }),
  token: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'access token of the gateway device (the MQTT user name); required for a remote target. Embedded: the gateway device is created with it, or found by name',
    }),
  ),
  protocolVersion: Type.Optional(
    Type.Union([Type.Literal(4), Type.Literal(5)], { description: '4 = MQTT 3.1.1, 5 = MQTT 5 (default 5)' }),
  ),
  qos: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)], { description: 'default 1' })),
  periodMs: Type.Optional(
    Type.Integer({
      minimum: SIMULATION_LIMITS.minPeriodMs,
      maximum: 86_400_000,
      description: 'telemetry publish period (default 1000)',
    }),
  ),
  devicesCount: Type.Integer({ minimum: 0, maximum: SIMULATION_LIMITS.devicesPerGateway }),
  deviceNamePattern: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: `device names: \${gateway} is the gateway name, \${n} counts from 1 (default "${DEFAULT_DEVICE_NAME_PATTERN}")`,
    }),
  ),
  deviceType: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'device profile (default "default")' }),
  ),
  keys: Type.Array(KeySpec, { maxItems: SIMULATION_LIMITS.keysPerGateway }),
  rpc: Type.Optional(Type.Array(RpcRule, { maxItems: SIMULATION_LIMITS.rpcRulesPerGateway })),
  attributes: Type.Optional(
    Type.Record(Type.String(), TelemetryValue, {
      description: 'client attributes each device sends at connect; ${gateway}, ${device} and ${n} expand',
    }),
  ),
  script: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: SIMULATION_LIMITS.scriptChars,
      description:
        "JavaScript run for each device in the QuickJS sandbox (the rule engine's limits): hooks onTick(ctx) (returns the telemetry to publish), onRpc(method, params, ctx) (returns the reply), onAttributes(shared, ctx); ctx.state is kept per device across calls; ctx.now, ctx.elapsedMs, ctx.device {name, n, gateway, type}, ctx.shared, ctx.random() (seeded), ctx.publish(values), ctx.publishAttributes(values). Its telemetry comes with that of keys",
    }),
  ),
});
export type GatewaySpec = Static<typeof GatewaySpec>;

// ---------------------------------------------------------------------------------------------------------
// Faults on purpose: scheduled in the scenario, injected by the simulated gateways, counted with the
// platform's answer.

export const FAULT_KINDS = [
  'disconnect',
  'reconnectStorm',
  'latency',
  'drop',
  'duplicate',
  'reorder',
  'clockSkew',
  'futureTimestamps',
  'pastTimestamps',
  'malformed',
  'oversized',
  'rpcSilent',
  'noConnect',
  'burst',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What every fault has: when, for how long, and whom it hits. */
const FaultScope = {
  atMs: Type.Optional(
    Type.Integer({ minimum: 0, description: 'when it starts, in ms from the start of the run (default 0)' }),
  ),
  durationMs: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: 'how long it lasts (default: a disconnect 5000, a storm 10000, the others until the end)',
    }),
  ),
  gateway: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: "one gateway's name (default: every gateway)" }),
  ),
  device: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'one device of the gateways (default: all)' }),
  ),
  share: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1,
      description: "the share of the devices it hits, picked by the scenario's seed (default 1: all)",
    }),
  ),
};
const probability = Type.Optional(
  Type.Number({ minimum: 0, maximum: 1, description: 'chance per message (default 1)' }),
);
const fault = <K extends FaultKind, P extends Record<string, TSchema>>(
  kind: K,
  description: string,
  props: P,
) => obj({ kind: Type.Literal(kind), ...FaultScope, ...props }, description);

export const Fault = Type.Union([
  fault(
    'disconnect',
    'the gateway drops its connection (a device: the gateway disconnects it) and comes back after durationMs',
    {},
  ),
  fault('reconnectStorm', 'the gateway drops and reopens its connection every intervalMs during durationMs', {
    intervalMs: Type.Optional(Type.Integer({ minimum: 50, maximum: 600_000, description: 'default 1000' })),
  }),
  fault('latency', "the devices' telemetry is sent latencyMs late", {
    latencyMs: Type.Integer({ minimum: 1, maximum: 600_000 }),
  }),
  fault('drop', "the devices' telemetry is not sent", { probability }),
  fault('duplicate', "the devices' telemetry is sent twice (the same ts)", { probability }),
  fault('reorder', "the devices' telemetry is sent after the next period's", { probability }),
  fault('clockSkew', "the devices' clocks are off by skewMs (telemetry ts)", {
    skewMs: Type.Integer({ minimum: -31_536_000_000, maximum: 31_536_000_000 }),
  }),
  fault('futureTimestamps', 'telemetry stamped in the future', {
    offsetMs: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3_153_600_000_000, description: 'default one day' }),
    ),
  }),
  fault('pastTimestamps', 'telemetry stamped in the past', {
    offsetMs: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3_153_600_000_000, description: 'default one year' }),
    ),
  }),
  fault('malformed', 'telemetry that is not JSON, at atMs', {
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'default 1' })),
  }),
  fault('oversized', 'telemetry larger than the broker takes, at atMs', {
    bytes: Type.Optional(
      Type.Integer({ minimum: 1024, maximum: 16_777_216, description: 'payload size (default 1 MiB)' }),
    ),
  }),
  fault('rpcSilent', 'the devices do not answer RPC', {}),
  fault(
    'noConnect',
    'the gateway does not send v1/gateway/connect for the devices before their telemetry',
    {},
  ),
  fault('burst', "telemetry as fast as it goes at atMs, to pass the tenant's rate limits", {
    messages: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'default 1000' })),
  }),
]);
export type Fault = Static<typeof Fault>;

// ---------------------------------------------------------------------------------------------------------
// Devices that update themselves (OTA): directly connected, each on its own MQTT session with its own token
// (ThingsBoard serves packages to a device's own session only), following the Python SDK's firmware flow.

export const OTA_FAIL_REASONS = ['checksum', 'download', 'update'] as const;
export type OtaFailReason = (typeof OTA_FAIL_REASONS)[number];
export const DEFAULT_OTA_DEVICE_NAME_PATTERN = 'OTA Device ${n}';

export const OtaScenarioPackage = obj(
  {
    title: Type.String({ minLength: 1, maxLength: 255 }),
    version: Type.String({ minLength: 1, maxLength: 255 }),
    sizeBytes: Type.Integer({
      minimum: 1,
      maximum: SIMULATION_LIMITS.otaPackageBytes,
      description: 'size of the generated firmware file',
    }),
  },
  "a firmware package made at start (seeded bytes, SHA256) and assigned to the devices' profile, unless that profile has one with this title and version already",
);

export const OtaScenario = obj(
  {
    devicesCount: Type.Integer({ minimum: 1, maximum: SIMULATION_LIMITS.otaDevices }),
    deviceNamePattern: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: `device names: \${n} counts from 1 (default "${DEFAULT_OTA_DEVICE_NAME_PATTERN}")`,
      }),
    ),
    deviceType: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          'device profile (default "default"; created when missing): assign a package to it on the OTA page',
      }),
    ),
    failShare: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description:
          "share of the devices that fail on purpose: exactly round(failShare × devicesCount), picked by the scenario's seed (default 0)",
      }),
    ),
    failReasons: Type.Optional(
      Type.Array(Type.Union([Type.Literal('checksum'), Type.Literal('download'), Type.Literal('update')]), {
        minItems: 1,
        maxItems: OTA_FAIL_REASONS.length,
        description:
          "how the failing devices fail, taken in turn: 'checksum' (a corrupted download), 'download' (a chunk never asked for), 'update' (the install) (default ['checksum'])",
      }),
    ),
    chunkSize: Type.Optional(
      Type.Integer({
        minimum: 256,
        maximum: 1_048_576,
        description: 'bytes per chunk request (default 16384)',
      }),
    ),
    package: Type.Optional(OtaScenarioPackage),
  },
  'embedded target only: devices of their own (not behind a gateway) that update themselves when their profile or they get a firmware package',
);
export type OtaScenario = Static<typeof OtaScenario>;

/** Names of a scenario's OTA devices, in order. */
export function otaDeviceNames(ota: Pick<OtaScenario, 'devicesCount' | 'deviceNamePattern'>): string[] {
  const pattern = ota.deviceNamePattern ?? DEFAULT_OTA_DEVICE_NAME_PATTERN;
  return Array.from({ length: ota.devicesCount }, (_, i) => pattern.replaceAll('${n}', String(i + 1)));
}

export const EmbeddedTarget = obj({ kind: Type.Literal('embedded') }, "this Sandboard's own MQTT broker");
export const RemoteTarget = obj(
  {
    kind: Type.Literal('remote'),
    host: Type.String({ minLength: 1, maxLength: 255 }),
    port: Type.Integer({ minimum: 1, maximum: 65_535 }),
    tls: Type.Optional(Type.Boolean({ description: 'MQTT over TLS (default false)' })),
    ca: Type.Optional(Type.String({ description: 'PEM of the CA that signed the server certificate' })),
    rejectUnauthorized: Type.Optional(
      Type.Boolean({ description: 'verify the server certificate (default true)' }),
    ),
  },
  'any ThingsBoard-compatible MQTT host',
);
export type RemoteTarget = Static<typeof RemoteTarget>;
export const Target = Type.Union([EmbeddedTarget, RemoteTarget]);
export type Target = Static<typeof Target>;

export const Scenario = obj(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    description: Type.Optional(Type.String({ maxLength: 4096 })),
    target: Type.Optional(Target),
    seed: Type.Optional(
      Type.Union([Type.Integer(), Type.String({ maxLength: 255 })], {
        description:
          "seed of every device's values (with the device name): the same seed gives the same series (default: the scenario name)",
      }),
    ),
    gateways: Type.Array(GatewaySpec, { minItems: 1, maxItems: SIMULATION_LIMITS.gateways }),
    durationMs: Type.Optional(
      Type.Integer({ minimum: 1, description: 'stop after this long (default: run until stopped)' }),
    ),
    messages: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'each gateway stops after this many telemetry messages (default: no limit)',
      }),
    ),
    setup: Type.Optional(ScenarioSetup),
    faults: Type.Optional(
      Type.Array(Fault, { maxItems: SIMULATION_LIMITS.faults, description: 'faults injected on purpose' }),
    ),
    ota: Type.Optional(OtaScenario),
    workers: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: SIMULATION_LIMITS.workers,
        description:
          "worker threads the gateways are spread over (0: all in the simulator's main thread; default: from the CPU cores for 2,000 devices or more, else 0)",
      }),
    ),
  },
  'A gateway simulation scenario (default target: embedded)',
);
export type Scenario = Static<typeof Scenario>;

// ---------------------------------------------------------------------------------------------------------
// Validation: errors name the JSON path, e.g. "gateways[0].keys[2].generator.min: must be a number".

/** JSON path such as gateways[0].keys[2].generator.min ("" for the scenario itself) */
export type ScenarioIssue = JsonPathIssue;

export function formatIssue(issue: ScenarioIssue): string {
  return `${issue.path || '(scenario)'}: ${issue.message}`;
}

/** A union of branches told apart by `kind` (generators, targets) names the kind it expects. */
const explainKind: UnionExplainer = (schema, value, path, explain) => {
  const branches = schema.anyOf!;
  const kinds = branches.map((b) => b.properties?.kind?.const);
  if (!kinds.every((k): k is string => typeof k === 'string')) return undefined;
  if (!isRecord(value)) return [{ path, message: 'must be an object' }];
  const allowed = oneOf(kinds.map((k) => `'${k}'`));
  if (value.kind === undefined)
    return [{ path: joinPath(path, 'kind'), message: `is required (one of ${allowed})` }];
  const branch = typeof value.kind === 'string' ? branches[kinds.indexOf(value.kind)] : undefined;
  if (!branch) return [{ path: joinPath(path, 'kind'), message: `must be one of ${allowed}` }];
  return explain(branch, value, path);
};

const explain = (schema: Schema, value: unknown, path: string): ScenarioIssue[] =>
  schemaIssues(schema, value, path, explainKind);

/** Device names of one gateway, in order. */
export function deviceNames(
  gateway: Pick<GatewaySpec, 'name' | 'devicesCount' | 'deviceNamePattern'>,
): string[] {
  const pattern = gateway.deviceNamePattern ?? DEFAULT_DEVICE_NAME_PATTERN;
  const names: string[] = [];
  for (let n = 1; n <= gateway.devicesCount; n++)
    names.push(pattern.replaceAll('${gateway}', gateway.name).replaceAll('${n}', String(n)));
  return names;
}

/** Checks a scenario's values that the schema cannot: ranges, uniqueness, tokens for a remote target. */
function semanticIssues(s: Scenario): ScenarioIssue[] {
  const issues: ScenarioIssue[] = [];
  const gatewayAt = new Map<string, number>();
  const deviceOwner = new Map<string, string>();
  let devices = 0;
  s.gateways.forEach((g, gi) => {
    const gp = `gateways[${gi}]`;
    const first = gatewayAt.get(g.name);
    if (first !== undefined)
      issues.push({ path: `${gp}.name`, message: `'${g.name}' is already the name of gateways[${first}]` });
    else gatewayAt.set(g.name, gi);
    if (s.target?.kind === 'remote' && !g.token)
      issues.push({
        path: `${gp}.token`,
        message: 'is required for a remote target (the gateway access token)',
      });
    const pattern = g.deviceNamePattern ?? DEFAULT_DEVICE_NAME_PATTERN;
    if (g.devicesCount > 1 && !pattern.includes('${n}')) {
      issues.push({
        path: `${gp}.deviceNamePattern`,
        message: 'must contain ${n} when devicesCount > 1 (device names must differ)',
      });
    } else {
      devices += g.devicesCount;
      if (devices <= SIMULATION_LIMITS.devicesPerScenario) {
        for (const name of deviceNames(g)) {
          const owner = deviceOwner.get(name);
          if (owner !== undefined && owner !== g.name) {
            issues.push({
              path: `${gp}.deviceNamePattern`,
              message: `device '${name}' is also a device of gateway '${owner}'`,
            });
            break;
          }
          deviceOwner.set(name, g.name);
        }
      }
    }
    const keyAt = new Map<string, number>();
    g.keys.forEach((k, ki) => {
      const kp = `${gp}.keys[${ki}]`;
      const dup = keyAt.get(k.key);
      if (dup !== undefined)
        issues.push({ path: `${kp}.key`, message: `'${k.key}' is already keys[${dup}]` });
      else keyAt.set(k.key, ki);
      const gen = k.generator;
      if ((gen.kind === 'random' || gen.kind === 'sine' || gen.kind === 'daily') && gen.max < gen.min)
        issues.push({ path: `${kp}.generator.max`, message: `must be >= min (${gen.min})` });
      if (gen.kind === 'randomWalk') {
        if (gen.min !== undefined && gen.max !== undefined && gen.max < gen.min)
          issues.push({ path: `${kp}.generator.max`, message: `must be >= min (${gen.min})` });
        else if (
          (gen.min !== undefined && gen.start < gen.min) ||
          (gen.max !== undefined && gen.start > gen.max)
        )
          issues.push({ path: `${kp}.generator.start`, message: 'must be within [min, max]' });
      }
    });
  });
  const scripted = s.gateways.reduce((n, g) => n + (g.script ? g.devicesCount : 0), 0);
  if (scripted > SIMULATION_LIMITS.scriptedDevicesPerScenario)
    issues.push({
      path: 'gateways',
      message: `must have at most ${SIMULATION_LIMITS.scriptedDevicesPerScenario} scripted devices in all (has ${scripted})`,
    });
  if (devices > SIMULATION_LIMITS.devicesPerScenario)
    issues.push({
      path: 'gateways',
      message: `must have at most ${SIMULATION_LIMITS.devicesPerScenario} devices in all (has ${devices})`,
    });
  for (const [name] of gatewayAt) {
    const owner = deviceOwner.get(name);
    if (owner !== undefined)
      issues.push({
        path: `gateways[${gatewayAt.get(owner)}].deviceNamePattern`,
        message: `device '${name}' has the name of a gateway`,
      });
  }
  s.faults?.forEach((f, fi) => {
    const fp = `faults[${fi}]`;
    if (f.gateway !== undefined && !gatewayAt.has(f.gateway))
      issues.push({ path: `${fp}.gateway`, message: `'${f.gateway}' is not a gateway of the scenario` });
    else if (f.device !== undefined) {
      const owner = deviceOwner.get(f.device);
      if (owner === undefined || (f.gateway !== undefined && owner !== f.gateway))
        issues.push({
          path: `${fp}.device`,
          message: `'${f.device}' is not a device of ${f.gateway !== undefined ? `gateway '${f.gateway}'` : 'the scenario'}`,
        });
    }
  });
  if (s.setup) issues.push(...setupIssues(s.setup, new Set(deviceOwner.keys()), s.target?.kind === 'remote'));
  if (s.ota) issues.push(...otaIssues(s.ota, s.target?.kind === 'remote', gatewayAt, deviceOwner));
  return issues;
}

function otaIssues(
  ota: OtaScenario,
  remote: boolean,
  gateways: ReadonlyMap<string, number>,
  devices: ReadonlyMap<string, string>,
): ScenarioIssue[] {
  if (remote)
    return [
      {
        path: 'ota',
        message: 'is only for the embedded target (its devices are created here with their tokens)',
      },
    ];
  const pattern = ota.deviceNamePattern ?? DEFAULT_OTA_DEVICE_NAME_PATTERN;
  if (ota.devicesCount > 1 && !pattern.includes('${n}'))
    return [
      {
        path: 'ota.deviceNamePattern',
        message: 'must contain ${n} when devicesCount > 1 (device names must differ)',
      },
    ];
  const issues: ScenarioIssue[] = [];
  for (const name of otaDeviceNames(ota)) {
    const owner = gateways.has(name)
      ? 'a gateway'
      : devices.has(name)
        ? `a device of gateway '${devices.get(name)}'`
        : null;
    if (owner) {
      issues.push({ path: 'ota.deviceNamePattern', message: `device '${name}' has the name of ${owner}` });
      break;
    }
  }
  const reasons = ota.failReasons ?? [];
  const twice = reasons.find((r, i) => reasons.indexOf(r) !== i);
  if (twice) issues.push({ path: 'ota.failReasons', message: `'${twice}' is listed twice` });
  return issues;
}

let compiled: { Check(value: unknown): boolean } | null | undefined;

function fastCheck(value: unknown): boolean {
  if (compiled === undefined) {
    try {
      compiled = Compile(Scenario);
    } catch {
      compiled = null; // no code generation here (a strict CSP): the dynamic checker does the same
    }
  }
  return compiled ? compiled.Check(value) : Value.Check(Scenario, value);
}

/** Every problem of a would-be scenario, each naming its JSON path; empty when the scenario is valid. */
export function scenarioIssues(value: unknown): ScenarioIssue[] {
  if (!fastCheck(value)) {
    const issues = explain(Scenario as unknown as Schema, value, '');
    return issues.length ? issues : [{ path: '', message: 'is not a valid scenario' }];
  }
  return semanticIssues(value as Scenario);
}

// ---------------------------------------------------------------------------------------------------------
// REST shapes of /api/sandboard/simulations.

export const SIMULATION_STATES = ['stopped', 'starting', 'running', 'stopping', 'failed'] as const;
export type SimulationState = (typeof SIMULATION_STATES)[number];
export const SimulationState = Type.Union(
  [
    Type.Literal('stopped'),
    Type.Literal('starting'),
    Type.Literal('running'),
    Type.Literal('stopping'),
    Type.Literal('failed'),
  ],
  { description: 'stopped (never started, stopped, or finished), starting, running, stopping, failed' },
);

export const GATEWAY_STATES = [
  'stopped',
  'connecting',
  'connected',
  'reconnecting',
  'stopping',
  'finished',
  'failed',
] as const;
export type GatewayState = (typeof GATEWAY_STATES)[number];
export const GatewayState = Type.Union([
  Type.Literal('stopped'),
  Type.Literal('connecting'),
  Type.Literal('connected'),
  Type.Literal('reconnecting'),
  Type.Literal('stopping'),
  Type.Literal('finished'),
  Type.Literal('failed'),
]);

export const RPC_LOG_STATUSES = ['pending', 'answered', 'ignored', 'failed'] as const;
export type RpcLogStatus = (typeof RPC_LOG_STATUSES)[number];

/** Labels of the keys of failedByReason: MQTT 5 PUBACK reason codes and connection failures. */
export const FAILURE_REASONS: Record<string, string> = {
  '0x80': 'Unspecified error',
  '0x83': 'Implementation specific error (a device past a rate limit is disconnected with it)',
  '0x87': 'Not authorized',
  '0x90': 'Topic name invalid',
  '0x91': 'Packet identifier in use',
  '0x93': 'Receive maximum exceeded',
  '0x95': 'Packet too large',
  '0x96': 'Message rate too high (rate limit: the gateway was disconnected)',
  '0x97': 'Quota exceeded (a transport rate limit, or the device limit)',
  '0x99': 'Payload format invalid',
  'connection-lost': 'Connection closed before the acknowledgement (MQTT 3.1.1: the server rejected it)',
};

export const SimulationCounters = Type.Object({
  sent: Type.Integer({
    description: 'MQTT publishes written (telemetry, device connects, attributes, RPC replies)',
  }),
  acknowledged: Type.Integer({ description: 'QoS 1 publishes acknowledged with success' }),
  failed: Type.Integer({ description: 'publishes that failed (sum of failedByReason)' }),
  failedByReason: Type.Record(Type.String(), Type.Integer(), {
    description: "reason -> count; reasons: PUBACK codes '0x80'..'0x99' (MQTT 5), 'connection-lost'",
  }),
  inFlight: Type.Integer({ description: 'QoS 1 publishes waiting for their PUBACK' }),
  skipped: Type.Integer({ description: 'telemetry periods skipped: not connected, or too many in flight' }),
  telemetryMessages: Type.Integer(),
  datapoints: Type.Integer({ description: 'telemetry values sent' }),
  rpcRequests: Type.Integer(),
  attributeUpdates: Type.Integer(),
  scriptCalls: Type.Integer({ description: "calls of the devices' script hooks that ran" }),
  scriptErrors: Type.Integer({
    description:
      'script calls that failed: a throw, a syntax error, past the time or memory limit, a bad result',
  }),
  messagesPerSecond: Type.Number({ description: 'publishes per second over the last 5 s' }),
});
export type SimulationCounters = Static<typeof SimulationCounters>;

/** The counters of a run that has not started. */
export const ZERO_COUNTERS: SimulationCounters = {
  sent: 0,
  acknowledged: 0,
  failed: 0,
  failedByReason: {},
  inFlight: 0,
  skipped: 0,
  telemetryMessages: 0,
  datapoints: 0,
  rpcRequests: 0,
  attributeUpdates: 0,
  scriptCalls: 0,
  scriptErrors: 0,
  messagesPerSecond: 0,
};

export const SimulationSummary = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  createdTime: Type.Integer(),
  updatedTime: Type.Integer(),
  state: SimulationState,
  target: Type.String({ description: '"embedded" or "host:port" (with "mqtts://" when TLS)' }),
  gateways: Type.Integer(),
  devices: Type.Integer(),
  startedAt: Type.Union([Type.Integer(), Type.Null()]),
  stoppedAt: Type.Union([Type.Integer(), Type.Null()]),
  finishReason: Type.Union([Type.String(), Type.Null()], {
    description: 'why the last run ended: stopped, duration, messages, error, shutdown',
  }),
  lastError: Type.Union([Type.String(), Type.Null()]),
  counters: SimulationCounters,
});
export type SimulationSummary = Static<typeof SimulationSummary>;

export const SimulationDetails = Type.Object({ ...SimulationSummary.properties, scenario: Scenario });
export type SimulationDetails = Static<typeof SimulationDetails>;

export const GatewayStatus = Type.Object({
  name: Type.String(),
  state: GatewayState,
  error: Type.Union([Type.String(), Type.Null()]),
  deviceId: Type.Union([Type.String(), Type.Null()], {
    description: 'id of the gateway device (embedded target)',
  }),
  protocolVersion: Type.Integer(),
  qos: Type.Integer(),
  periodMs: Type.Integer(),
  devicesCount: Type.Integer(),
  connectedDevices: Type.Integer(),
  deviceNames: Type.Array(Type.String(), { description: 'the first 100 device names' }),
  scriptedDevicesStopped: Type.Integer({
    description: 'devices whose script was stopped (a syntax error, past the time or memory limit)',
  }),
  counters: SimulationCounters,
});
export type GatewayStatus = Static<typeof GatewayStatus>;

export const RateSample = Type.Object({
  ts: Type.Integer({ description: 'start of the second (epoch ms)' }),
  sent: Type.Integer(),
  acknowledged: Type.Integer(),
  failed: Type.Integer(),
});
export type RateSample = Static<typeof RateSample>;

export const AttributeLogEntry = Type.Object({
  seq: Type.Integer(),
  ts: Type.Integer(),
  gateway: Type.String(),
  device: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown()),
  deleted: Type.Optional(Type.Array(Type.String())),
});
export type AttributeLogEntry = Static<typeof AttributeLogEntry>;

export const RpcLogEntry = Type.Object({
  seq: Type.Integer(),
  ts: Type.Integer(),
  gateway: Type.String(),
  device: Type.String(),
  id: Type.Integer(),
  method: Type.String(),
  params: Type.Unknown(),
  responder: Type.Union([Type.String(), Type.Null()], {
    description: "responder kind, or 'script' (the device script's onRpc); null: no rule matched",
  }),
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('answered'),
    Type.Literal('ignored'),
    Type.Literal('failed'),
  ]),
  reply: Type.Optional(Type.Unknown()),
  answeredAt: Type.Optional(Type.Integer()),
});
export type RpcLogEntry = Static<typeof RpcLogEntry>;

export const SCRIPT_HOOKS = ['onTick', 'onRpc', 'onAttributes'] as const;
export type ScriptHook = (typeof SCRIPT_HOOKS)[number];

export const ScriptErrorEntry = Type.Object({
  seq: Type.Integer(),
  ts: Type.Integer(),
  gateway: Type.String(),
  device: Type.Union([Type.String(), Type.Null()], {
    description: 'the device; null: every device of the gateway (a syntax error)',
  }),
  hook: Type.Union([Type.String(), Type.Null()], {
    description: 'onTick, onRpc, onAttributes; null: loading',
  }),
  line: Type.Union([Type.Integer(), Type.Null()], { description: "the script's line, when known" }),
  message: Type.String(),
  stopped: Type.Boolean({ description: 'the device runs its script no more (else it skipped this call)' }),
});
export type ScriptErrorEntry = Static<typeof ScriptErrorEntry>;

/** What the platform answered to injected faults, besides the PUBACK reason codes of FAILURE_REASONS. */
export const FAULT_ANSWERS: Record<string, string> = {
  acknowledged: 'PUBACK success (QoS 1)',
  sent: 'written (QoS 0: no answer expected)',
  'not-sent': 'held back by the fault (nothing reached the platform)',
  reconnected: 'the platform accepted the connection again',
  'no-answer': 'an RPC request left unanswered (the platform times it out)',
};

export const FaultCount = Type.Object({
  index: Type.Integer({ description: 'the fault of the scenario (faults[index])' }),
  kind: Type.String(),
  target: Type.String({ description: 'whom it hits, in words' }),
  injected: Type.Integer({ description: 'messages, connections or requests the fault changed' }),
  answers: Type.Record(Type.String(), Type.Integer(), {
    description:
      "what the platform answered -> count: 'acknowledged', 'sent', 'not-sent', 'reconnected', 'no-answer', a PUBACK or DISCONNECT reason code, or 'connection-lost'",
  }),
});
export type FaultCount = Static<typeof FaultCount>;

export const FaultMarker = Type.Object({
  seq: Type.Integer(),
  ts: Type.Integer(),
  index: Type.Integer(),
  kind: Type.String(),
  gateway: Type.String(),
  phase: Type.Union([Type.Literal('start'), Type.Literal('end')]),
  note: Type.String(),
});
export type FaultMarker = Static<typeof FaultMarker>;

export const OtaRunCounts = Type.Object(
  {
    devices: Type.Integer({ description: "the scenario's OTA devices" }),
    connected: Type.Integer(),
    failingOnPurpose: Type.Integer({ description: 'round(failShare × devices)' }),
    states: Type.Record(Type.String(), Type.Integer(), {
      description: 'devices per fw_state they last reported (IDLE: no update yet)',
    }),
    updated: Type.Integer({ description: 'devices that reported UPDATED' }),
    failed: Type.Integer({ description: 'devices that reported FAILED' }),
    failedByReason: Type.Record(Type.String(), Type.Integer(), { description: 'fw_error -> devices' }),
    bytes: Type.Integer({ description: 'package bytes downloaded' }),
  },
  { description: "the scenario's OTA devices (scenario.ota): how their updates went" },
);
export type OtaRunCounts = Static<typeof OtaRunCounts>;

export const ThreadCost = Type.Object(
  {
    thread: Type.String({ description: '"main" or "worker N"' }),
    gateways: Type.Integer({ description: 'gateways this thread drives' }),
    sent: Type.Integer({ description: 'publishes this thread sent' }),
    datapoints: Type.Integer({ description: 'telemetry values this thread sent' }),
    cpuPct: Type.Number({ description: "this thread's CPU over the last seconds, in % of one core" }),
    cpuUsPerPublish: Type.Union([Type.Number(), Type.Null()], {
      description: 'CPU microseconds of this thread per publish since the start (null before one)',
    }),
    cpuUsPerValue: Type.Union([Type.Number(), Type.Null()], {
      description: 'CPU microseconds of this thread per telemetry value since the start',
    }),
  },
  { description: "one simulator thread's own cost" },
);
export type ThreadCost = Static<typeof ThreadCost>;

export const SimulatorCost = Type.Object(
  {
    workers: Type.Integer({ description: 'worker threads of the run (0: it runs in the main thread)' }),
    sharedWithPlatform: Type.Boolean({
      description: "the main thread also runs the platform: its CPU is not the simulator's alone",
    }),
    threads: Type.Array(ThreadCost),
  },
  { description: "what driving the fleet costs the simulator's own threads" },
);
export type SimulatorCost = Static<typeof SimulatorCost>;

export const SimulationStatus = Type.Object({
  ...SimulationSummary.properties,
  elapsedMs: Type.Integer({ description: 'running time of the current (or last) run' }),
  gatewayStatus: Type.Array(GatewayStatus),
  history: Type.Array(RateSample, { description: 'last 60 one-second samples, oldest first' }),
  attributeLog: Type.Array(AttributeLogEntry, {
    description: 'last 100 shared attribute updates, newest first',
  }),
  rpcLog: Type.Array(RpcLogEntry, { description: 'last 100 RPC requests, newest first' }),
  faults: Type.Array(FaultCount, {
    description: "the scenario's faults: injected, and the platform's answers",
  }),
  faultMarkers: Type.Array(FaultMarker, {
    description: 'where faults started and ended (the last 200, newest first)',
  }),
  scriptErrors: Type.Array(ScriptErrorEntry, {
    description: "errors of the devices' scripts (the last 100, newest first)",
  }),
  ota: Type.Optional(OtaRunCounts),
  cost: Type.Optional(SimulatorCost),
});
export type SimulationStatus = Static<typeof SimulationStatus>;

export const StartSimulationRequest = Type.Union(
  [
    Type.Object({
      durationMs: Type.Optional(
        Type.Integer({ minimum: 0, description: "overrides the scenario's durationMs; 0: until stopped" }),
      ),
      messages: Type.Optional(
        Type.Integer({ minimum: 0, description: "overrides the scenario's messages; 0: no limit" }),
      ),
      workers: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: SIMULATION_LIMITS.workers,
          description: "overrides the scenario's workers (worker threads; 0: none)",
        }),
      ),
    }),
    Type.Null(),
  ],
  { description: 'optional; an empty body runs the scenario as saved' },
);
export type StartSimulationRequest = { durationMs?: number; messages?: number; workers?: number } | null;

export const LatencyPercentiles = Type.Object(
  {
    count: Type.Integer({ description: 'acknowledged publishes' }),
    p50: Type.Number(),
    p90: Type.Number(),
    p99: Type.Number(),
    max: Type.Number(),
  },
  { description: 'from a publish to its PUBACK, in ms' },
);

export const SimulationReport = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  target: Type.String(),
  state: SimulationState,
  finishReason: Type.Union([Type.String(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  startedAt: Type.Integer(),
  stoppedAt: Type.Union([Type.Integer(), Type.Null()], { description: 'null while it runs' }),
  durationMs: Type.Integer(),
  gateways: Type.Integer(),
  devices: Type.Integer(),
  sent: Type.Integer(),
  acknowledged: Type.Integer(),
  refused: Type.Integer({ description: 'publishes that failed' }),
  refusedByReason: Type.Record(Type.String(), Type.Integer()),
  telemetryMessages: Type.Integer(),
  datapoints: Type.Integer(),
  faultsInjected: Type.Integer(),
  faults: Type.Array(FaultCount),
  alarmsRaised: Type.Union([Type.Integer(), Type.Null()], {
    description:
      "alarms raised by the scenario's devices during the run (embedded target; null for a remote one)",
  }),
  rpcRequests: Type.Integer(),
  rpcAnswered: Type.Integer(),
  scriptCalls: Type.Integer({ description: 'script hook calls that ran' }),
  scriptErrors: Type.Integer({ description: 'script hook calls that failed' }),
  scriptedDevicesStopped: Type.Integer({ description: 'devices whose script was stopped' }),
  latencyMs: Type.Union([LatencyPercentiles, Type.Null()]),
  ota: Type.Optional(OtaRunCounts),
});
export type SimulationReport = Static<typeof SimulationReport>;
