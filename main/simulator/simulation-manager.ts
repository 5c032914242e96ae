import type {
  Scenario,
  SimulationReport,
  SimulationDetails,
  SimulationStatus,
  SimulationSummary,
  StartSimulationRequest,
} from '../../shared/schemas/simulation.ts';
import { ErrorCode, invalidArgument, notFound, PlatformError } from '../platform/errors.ts';
import type { Services } from '../platform/services.ts';
import type { ScenarioRecord, ScenarioService } from '../platform/scenarios.ts';
import { deviceNames } from '../../shared/schemas/simulation.ts';
import { deviceCount, parseScenario, runWorkers, ScenarioError, targetLabel } from './scenario.ts';
import { ZERO_COUNTERS } from './counters.ts';
import { runReport } from './simulation-report.ts';
import { SimulationRun } from './simulation-run.ts';
import { embeddedUrl, remoteTarget, runGateways, runOtaFleet, type ResolvedTarget } from './targets.ts';

export interface SimulationManagerOptions {
  services: Services;
  /** the embedded broker's URL (mqtt://host:port), once it listens */
  mqttUrl: () => string | undefined;
}

/** Alarms are counted for a report up to this many devices. */
const MAX_REPORT_DEVICES = 5000;

const conflict = (message: string) => new PlatformError(409, ErrorCode.GENERAL, message);

function validated(value: unknown): Scenario {
  try {
    return parseScenario(value);
  } catch (err) {
    if (err instanceof ScenarioError) throw invalidArgument(err.message);
    throw err;
  }
}

/**
 * The app's simulations: saved scenarios (durable, in the platform store) and, per scenario, its current
 * or last run. Gateways of an embedded scenario are provisioned on this platform and use its broker.
 */
export class SimulationManager {
  private readonly services: Services;
  private readonly mqttUrl: () => string | undefined;
  private readonly store: ScenarioService;
  private readonly runs = new Map<string, SimulationRun>();
  /** a start in progress (provisioning and connecting), per simulation */
  private readonly starting = new Map<string, Promise<void>>();
  private readonly startErrors = new Map<string, string>();
  private closed = false;

  constructor(options: SimulationManagerOptions) {
    this.services = options.services;
    this.mqttUrl = options.mqttUrl;
    this.store = options.services.scenarios;
  }

  list(): SimulationSummary[] {
    return this.store.list().map((r) => this.summary(r));
  }

  get(id: string): SimulationDetails {
    const record = this.record(id);
    return { ...this.summary(record), scenario: record.scenario };
  }

  async create(value: unknown): Promise<SimulationDetails> {
    const record = await this.store.insert(validated(value));
    return this.get(record.id);
  }

  /** Like create; a name already taken gets " (2)", " (3)", ... */
  async import(value: unknown): Promise<SimulationDetails> {
    const scenario = validated(value);
    const names = this.store.names();
    let name = scenario.name;
    for (let i = 2; names.has(name); i++) name = `${scenario.name} (${i})`;
    const record = await this.store.insert({ ...scenario, name });
    return this.get(record.id);
  }

  async update(id: string, value: unknown): Promise<SimulationDetails> {
    this.record(id);
    const scenario = validated(value);
    if (this.isActive(id)) throw conflict('Stop the simulation before changing its scenario');
    await this.store.update(id, scenario);
    return this.get(id);
  }

  async delete(id: string): Promise<void> {
    this.record(id);
    await this.starting.get(id)?.catch(() => undefined);
    await this.runs.get(id)?.stop('stopped');
    this.runs.delete(id);
    this.startErrors.delete(id);
    await this.store.delete(id);
  }

  /** The scenario exactly as saved, for a download. */
  export(id: string): Scenario {
    return this.record(id).scenario;
  }

  /** Starts a run; resolves once every gateway is connected (502 with the reason when one cannot be). */
  async start(id: string, overrides: StartSimulationRequest = null): Promise<SimulationSummary> {
    const record = this.record(id);
    if (this.closed) throw new PlatformError(503, ErrorCode.GENERAL, 'The platform is stopping');
    if (this.isActive(id)) throw conflict('The simulation is already running');
    const scenario = validated(record.scenario);
    const starting = this.startRun(id, scenario, overrides ?? {});
    this.starting.set(id, starting);
    try {
      await starting;
    } finally {
      this.starting.delete(id);
    }
    return this.summary(this.record(id));
  }

  async stop(id: string): Promise<SimulationSummary> {
    const record = this.record(id);
    await this.starting.get(id)?.catch(() => undefined);
    await this.runs.get(id)?.stop('stopped');
    return this.summary(record);
  }

  status(id: string): SimulationStatus {
    const record = this.record(id);
    const run = this.runs.get(id);
    const summary = this.summary(record);
    if (!run)
      return {
        ...summary,
        elapsedMs: 0,
        gatewayStatus: [],
        history: [],
        attributeLog: [],
        rpcLog: [],
        faults: [],
        faultMarkers: [],
        scriptErrors: [],
      };
    const s = run.status();
    return {
      ...summary,
      elapsedMs: s.elapsedMs,
      gatewayStatus: s.gatewayStatus,
      history: s.history,
      attributeLog: s.attributeLog,
      rpcLog: s.rpcLog,
      faults: s.faults,
      faultMarkers: s.faultMarkers,
      scriptErrors: s.scriptErrors,
      ...(s.ota ? { ota: s.ota } : {}),
      cost: s.cost,
    };
  }

  /** The summary of the current or last run (404 before the first). */
  report(id: string): SimulationReport {
    const record = this.record(id);
    const run = this.runs.get(id);
    if (!run || run.startedAt === null)
      throw notFound(`Simulation with id [${id}] has not run yet: start it to get a report`);
    const scenario = record.scenario;
    return runReport(
      run,
      {
        id,
        name: record.name,
        target: targetLabel(scenario),
        gateways: scenario.gateways.length,
        devices: deviceCount(scenario),
      },
      scenario.target?.kind === 'remote' ? null : this.alarmsRaised(scenario, run),
    );
  }

  /** Alarms the scenario's devices raised during the run, on this platform (null past a size). */
  private alarmsRaised(scenario: Scenario, run: SimulationRun): number | null {
    if (deviceCount(scenario) > MAX_REPORT_DEVICES) return null;
    const ids: string[] = [];
    for (const g of scenario.gateways)
      for (const name of deviceNames(g)) {
        const row = this.services.devices.findRowByName(name);
        if (row) ids.push(row.id);
      }
    if (ids.length === 0) return 0;
    return this.services.alarms.count({
      originatorIds: ids,
      startTime: run.startedAt ?? 0,
      endTime: run.stoppedAt ?? Date.now(),
    });
  }

  /** Stops every run (the platform is stopping); later starts are refused. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.starting.values()].map((p) => p.catch(() => undefined)));
    await Promise.all([...this.runs.values()].map((r) => r.stop('shutdown')));
  }

  private isActive(id: string): boolean {
    const state = this.runs.get(id)?.state;
    return this.starting.has(id) || state === 'starting' || state === 'running' || state === 'stopping';
  }

  private async startRun(
    id: string,
    scenario: Scenario,
    overrides: { durationMs?: number; messages?: number; workers?: number },
  ): Promise<void> {
    this.startErrors.delete(id);
    let run: SimulationRun;
    try {
      const target = this.target(scenario);
      const gateways = await runGateways(scenario, target);
      const ota = await runOtaFleet(scenario, target);
      run = new SimulationRun({
        gateways,
        ...(ota ? { ota, awaitOta: scenario.ota?.package !== undefined } : {}),
        durationMs: overrides.durationMs ?? scenario.durationMs,
        maxPeriods: overrides.messages ?? scenario.messages,
        // the app's simulator runs beside the platform: worker threads keep it off the platform's loop
        workers: runWorkers(scenario, overrides.workers, true),
        sharedWithPlatform: true,
        ...(scenario.faults ? { faults: scenario.faults } : {}),
      });
    } catch (err) {
      this.startErrors.set(id, (err as Error).message);
      throw err;
    }
    this.runs.set(id, run);
    try {
      await run.start();
    } catch (err) {
      throw new PlatformError(502, ErrorCode.GENERAL, (err as Error).message);
    }
  }

  private target(scenario: Scenario): ResolvedTarget {
    const t = scenario.target;
    if (t?.kind === 'remote') return remoteTarget(t);
    const url = this.mqttUrl();
    if (!url)
      throw new PlatformError(503, ErrorCode.GENERAL, 'The embedded MQTT broker is not listening yet');
    return { url: embeddedUrl(url), services: this.services };
  }

  private record(id: string): ScenarioRecord {
    const record = this.store.get(id);
    if (!record) throw notFound(`Simulation with id [${id}] is not found`);
    return record;
  }

  private summary(record: ScenarioRecord): SimulationSummary {
    const run = this.runs.get(record.id);
    const starting = this.starting.has(record.id) && (!run || run.state === 'stopped');
    return {
      id: record.id,
      name: record.name,
      createdTime: record.createdTime,
      updatedTime: record.updatedTime,
      state: starting ? 'starting' : this.startErrors.has(record.id) ? 'failed' : (run?.state ?? 'stopped'),
      target: targetLabel(record.scenario),
      gateways: record.scenario.gateways?.length ?? 0,
      devices: deviceCount(record.scenario),
      startedAt: run?.startedAt ?? null,
      stoppedAt: run?.stoppedAt ?? null,
      finishReason: run?.finishReason ?? null,
      lastError: this.startErrors.get(record.id) ?? run?.lastError ?? null,
      counters: run ? run.meter.snapshot() : ZERO_COUNTERS,
    };
  }
}
