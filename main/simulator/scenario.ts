import { availableParallelism } from 'node:os';
import {
  deviceNames,
  SIMULATION_LIMITS,
  formatIssue,
  scenarioIssues,
  type GatewaySpec,
  type KeySpec,
  type RpcRule,
  type Scenario,
  type ScenarioIssue,
  type TelemetryValue,
} from '../../shared/schemas/simulation.ts';
import { CsvError, csvSeries } from './csv.ts';
import { deviceColumn } from './generators.ts';

/** A scenario that does not validate; the message lists each problem with its JSON path. */
export class ScenarioError extends Error {
  readonly issues: ScenarioIssue[];
  constructor(issues: ScenarioIssue[], prefix = 'Invalid scenario') {
    const shown = issues.slice(0, 10).map(formatIssue);
    if (issues.length > shown.length) shown.push(`... and ${issues.length - shown.length} more`);
    super(`${prefix}: ${shown.join('; ')}`);
    this.issues = issues;
  }
}

/** What the schema cannot see: CSV texts that do not parse, a column that is not there. */
function csvIssues(s: Scenario): ScenarioIssue[] {
  const issues: ScenarioIssue[] = [];
  s.gateways.forEach((g, gi) =>
    g.keys.forEach((k, ki) => {
      const gen = k.generator;
      if (gen.kind !== 'csv') return;
      const columns = new Set(
        deviceNames(g).map((device, i) => deviceColumn(gen.column, { device, n: i + 1 })),
      );
      if (columns.size === 0) columns.add(gen.column);
      for (const column of columns) {
        try {
          csvSeries({ csv: gen.csv, ...(column !== undefined ? { column } : {}) });
        } catch (err) {
          const field = err instanceof CsvError ? err.field : 'csv';
          issues.push({
            path: `gateways[${gi}].keys[${ki}].generator.${field}`,
            message: (err as Error).message,
          });
          return;
        }
      }
    }),
  );
  return issues;
}

/** Validates a would-be scenario; throws ScenarioError naming each bad JSON path. */
export function parseScenario(value: unknown): Scenario {
  const issues = scenarioIssues(value);
  if (issues.length === 0) issues.push(...csvIssues(value as Scenario));
  if (issues.length) throw new ScenarioError(issues);
  return value as Scenario;
}

/** Parses scenario JSON text (a file); a syntax error is reported as such. */
export function parseScenarioText(text: string): Scenario {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    throw new ScenarioError([{ path: '', message: `is not valid JSON (${(err as Error).message})` }]);
  }
  return parseScenario(value);
}

/** One gateway with every default filled in. */
export interface GatewayPlan {
  name: string;
  /** the scenario's seed: with the device name and the key, it seeds each device's values */
  seed: string | number;
  token?: string;
  protocolVersion: 4 | 5;
  qos: 0 | 1;
  periodMs: number;
  deviceType: string;
  devices: string[];
  keys: KeySpec[];
  rpc: RpcRule[];
  attributes: Record<string, TelemetryValue>;
  /** the devices' script (device-script.ts) */
  script?: string;
}

export function gatewayPlan(g: GatewaySpec, seed: string | number = g.name): GatewayPlan {
  return {
    name: g.name,
    seed,
    ...(g.token ? { token: g.token } : {}),
    protocolVersion: g.protocolVersion ?? 5,
    qos: g.qos ?? 1,
    periodMs: g.periodMs ?? 1000,
    deviceType: g.deviceType ?? 'default',
    devices: deviceNames(g),
    keys: g.keys,
    rpc: g.rpc ?? [],
    attributes: g.attributes ?? {},
    ...(g.script ? { script: g.script } : {}),
  };
}

/** "embedded", "host:port" or "mqtts://host:port". */
export function targetLabel(s: Scenario): string {
  const t = s.target;
  if (!t || t.kind === 'embedded') return 'embedded';
  return `${t.tls ? 'mqtts://' : ''}${t.host}:${t.port}`;
}

/** The seed of a scenario's values: its own, else its name. */
export const scenarioSeed = (s: Scenario): string | number => s.seed ?? s.name;

export function deviceCount(s: Scenario): number {
  return s.gateways.reduce((n, g) => n + g.devicesCount, 0);
}

/** Fleets of this many devices or more are spread over worker threads unless the scenario says otherwise. */
export const SPREAD_FROM_DEVICES = 2000;

/**
 * The worker threads a run uses: as asked (the start's override, else the scenario's), else for a large
 * fleet one per core (less one for a platform in the same process), never more than its gateways.
 */
export function runWorkers(s: Scenario, asked: number | undefined, platformInProcess: boolean): number {
  const wanted =
    asked ??
    s.workers ??
    (deviceCount(s) < SPREAD_FROM_DEVICES
      ? 0
      : Math.max(1, availableParallelism() - (platformInProcess ? 1 : 0)));
  return Math.min(wanted, s.gateways.length, SIMULATION_LIMITS.workers);
}
