import type {
  AttributeLogEntry,
  Fault,
  FaultCount,
  FaultMarker,
  GatewayStatus,
  OtaRunCounts,
  RateSample,
  RpcLogEntry,
  ScriptErrorEntry,
  SimulationCounters,
  SimulationState,
  SimulatorCost,
  ThreadCost,
} from '../../shared/schemas/simulation.ts';
import { Meter, RingLog } from './counters.ts';
import { FaultBook } from './faults.ts';
import { ConnectError, loadMqttModules, openFileLimitReached } from './mqtt-connection.ts';
import { OtaFleet, type OtaFleetOptions } from './ota-fleet.ts';
import type { RunGateway } from './run-shard-protocol.ts';
import { RunShard, type WorkerGateway } from './run-shard.ts';
import { SimulatedGateway } from './simulated-gateway.ts';
import { threadCpuUs } from './thread-cpu.ts';

export type FinishReason = 'stopped' | 'duration' | 'messages' | 'error' | 'shutdown';

export type { RunGateway } from './run-shard-protocol.ts';

export interface RunOptions {
  gateways: RunGateway[];
  /** stop after this long (0/undefined: until stopped) */
  durationMs?: number;
  /** each gateway stops after this many periods (0/undefined: no limit) */
  maxPeriods?: number;
  /** the scenario's faults */
  faults?: Fault[];
  /** the scenario's devices that update themselves (scenario.ota) */
  ota?: OtaFleetOptions;
  /** an update is sure to come (the scenario brings its package): a run ending by messages waits for it */
  awaitOta?: boolean;
  /** worker threads the gateways are spread over (0/undefined: all in this thread) */
  workers?: number;
  /** this thread also runs the platform (its CPU is not the simulator's alone) */
  sharedWithPlatform?: boolean;
  /** a gateway sent its last period or gave up (a worker thread reports it at once) */
  onGatewayEnded?: () => void;
}

/** A gateway as the run sees it: driven in this thread, or mirrored from a worker thread. */
export type RunGatewayView = SimulatedGateway | WorkerGateway;

/** Splits gateways into n groups of about as many devices each; each group keeps the scenario's order. */
export function shardGateways<T extends { plan: { devices: unknown[] } }>(
  gateways: T[],
  n: number,
): number[][] {
  const groups: { devices: number; members: number[] }[] = Array.from({ length: n }, () => ({
    devices: 0,
    members: [],
  }));
  const bySize = gateways
    .map((g, i) => i)
    .sort((a, b) => gateways[b]!.plan.devices.length - gateways[a]!.plan.devices.length);
  for (const i of bySize) {
    const least = groups.reduce((a, b) => (b.devices < a.devices ? b : a));
    least.devices += gateways[i]!.plan.devices.length;
    least.members.push(i);
  }
  return groups.filter((g) => g.members.length > 0).map((g) => g.members.sort((a, b) => a - b));
}

export interface RunStatus {
  state: SimulationState;
  startedAt: number | null;
  stoppedAt: number | null;
  finishReason: FinishReason | null;
  lastError: string | null;
  elapsedMs: number;
  counters: SimulationCounters;
  gatewayStatus: GatewayStatus[];
  history: RateSample[];
  attributeLog: AttributeLogEntry[];
  rpcLog: RpcLogEntry[];
  faults: FaultCount[];
  faultMarkers: FaultMarker[];
  scriptErrors: ScriptErrorEntry[];
  ota?: OtaRunCounts;
  cost: SimulatorCost;
}

/** One run of a scenario: its gateways, shared counters and logs, a duration timer, and how it ended. */
export class SimulationRun {
  state: SimulationState = 'stopped';
  startedAt: number | null = null;
  stoppedAt: number | null = null;
  finishReason: FinishReason | null = null;
  lastError: string | null = null;
  readonly meter = new Meter();
  readonly attributeLog = new RingLog<Omit<AttributeLogEntry, 'seq'>>();
  readonly rpcLog = new RingLog<Omit<RpcLogEntry, 'seq'>>();
  readonly scriptLog = new RingLog<Omit<ScriptErrorEntry, 'seq'>>();
  readonly faults: FaultBook;
  readonly gateways: RunGatewayView[];
  /** the worker threads, when the gateways are spread over some */
  readonly shards: RunShard[] = [];
  readonly ota: OtaFleet | null;
  private readonly sharedWithPlatform: boolean;
  private readonly onGatewayEnded: (() => void) | undefined;
  /** CPU of this thread and each worker, and what they had sent, at the last cost() (for the % now) */
  private costMark: { at: number; cpuUs: number[] } | null = null;
  private readonly cpuAtStart = threadCpuUs();
  private otaPending: boolean;
  private readonly durationMs: number;
  private durationTimer: NodeJS.Timeout | null = null;
  private stopping: Promise<void> | null = null;
  private readonly ended: Promise<void>;
  private resolveEnded: () => void = () => undefined;

  constructor(options: RunOptions) {
    this.durationMs = options.durationMs ?? 0;
    this.faults = new FaultBook(options.faults);
    this.ota = options.ota ? new OtaFleet(options.ota) : null;
    this.otaPending = this.ota !== null && options.awaitOta === true;
    this.sharedWithPlatform = options.sharedWithPlatform ?? false;
    this.onGatewayEnded = options.onGatewayEnded;
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
    const startedAt = Date.now();
    this.startedAt = startedAt;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the hooks read the run's start as it is reset
    const run = this;
    const hooks = {
      get startedAt() {
        return run.startedAt ?? startedAt;
      },
      maxPeriods: options.maxPeriods,
      attributeLog: this.attributeLog,
      rpcLog: this.rpcLog,
      scriptLog: this.scriptLog,
      faults: this.faults,
      onFinished: () => {
        this.onGatewayEnded?.();
        this.checkDone();
      },
      onFailed: (gw: SimulatedGateway, err: Error) => {
        this.lastError = `Gateway '${gw.plan.name}': ${err.message}`;
        this.onGatewayEnded?.();
        this.checkDone();
      },
    };
    const workers = Math.min(options.workers ?? 0, options.gateways.length);
    if (workers < 1) {
      this.gateways = options.gateways.map(
        (g) =>
          new SimulatedGateway({
            plan: g.plan,
            connection: g.connection,
            deviceId: g.deviceId ?? null,
            meter: new Meter(this.meter),
            hooks,
          }),
      );
      return;
    }
    const views: RunGatewayView[] = [];
    const sinks = {
      meter: this.meter,
      attributeLog: this.attributeLog,
      rpcLog: this.rpcLog,
      scriptLog: this.scriptLog,
      faults: this.faults,
      onChange: () => this.checkDone(),
      onError: (message: string) => {
        this.lastError = message;
      },
    };
    for (const members of shardGateways(options.gateways, workers)) {
      const shard = new RunShard(
        this.shards.length,
        members.map((i) => options.gateways[i]!),
        {
          ...(options.maxPeriods ? { maxPeriods: options.maxPeriods } : {}),
          ...(options.faults ? { faults: options.faults } : {}),
        },
        sinks,
      );
      members.forEach((at, i) => (views[at] = shard.gateways[i]!));
      this.shards.push(shard);
    }
    this.gateways = views;
  }

  /**
   * Connects every gateway of this thread (a worker's share); the outcomes, in order. The caller decides
   * what a failure means (start does, for the whole run).
   */
  async connectGateways(): Promise<PromiseSettledResult<void>[]> {
    this.state = 'starting';
    this.startedAt = Date.now();
    this.meter.reset();
    if (this.shards.length === 0) {
      loadMqttModules();
      return Promise.allSettled(this.gateways.map((g) => (g as SimulatedGateway).start()));
    }
    await Promise.all(this.shards.map((s) => s.ready));
    const outcomes = await Promise.all(this.shards.map((s) => s.start()));
    const results: PromiseSettledResult<void>[] = [];
    this.shards.forEach((shard, s) =>
      shard.gateways.forEach((g, i) => (results[this.gateways.indexOf(g)] = outcomes[s]![i]!)),
    );
    return results;
  }

  /** The run is under way (its start decided): from now on it ends when its gateways are done. */
  markRunning(): void {
    if (this.state !== 'starting') return;
    this.state = 'running';
    for (const shard of this.shards) shard.send({ op: 'run' });
    this.checkDone();
  }

  /** What the simulator's threads cost: CPU per publish and per value since the start, % of a core now. */
  cost(): SimulatorCost {
    const now = performance.now();
    const main = threadCpuUs() - this.cpuAtStart;
    const cpus = [main, ...this.shards.map((s) => s.cpuUs)];
    const mark = this.costMark;
    const pct = (i: number) =>
      mark && now > mark.at
        ? Math.round(((cpus[i]! - mark.cpuUs[i]!) / 1000 / (now - mark.at)) * 1000) / 10
        : 0;
    if (!mark || now - mark.at >= 1000) this.costMark = { at: now, cpuUs: cpus };
    const per = (us: number, n: number) => (n > 0 ? Math.round((us / n) * 100) / 100 : null);
    const m = this.meter;
    const mainSent = this.shards.length ? 0 : m.sent;
    const mainValues = this.shards.length ? 0 : m.datapoints;
    const threads: ThreadCost[] = [
      {
        thread: 'main',
        gateways: this.shards.length ? 0 : this.gateways.length,
        sent: mainSent,
        datapoints: mainValues,
        cpuPct: pct(0),
        cpuUsPerPublish: per(main, mainSent),
        cpuUsPerValue: per(main, mainValues),
      },
      ...this.shards.map((s, i) => ({
        thread: `worker ${i + 1}`,
        gateways: s.gateways.length,
        sent: s.sent,
        datapoints: s.datapoints,
        cpuPct: pct(i + 1),
        cpuUsPerPublish: per(s.cpuUs, s.sent),
        cpuUsPerValue: per(s.cpuUs, s.datapoints),
      })),
    ];
    return { workers: this.shards.length, sharedWithPlatform: this.sharedWithPlatform, threads };
  }

  /** The first connection refused for the open-file limit, in this thread or a worker. */
  openFileLimitReached(): string | null {
    return openFileLimitReached() ?? this.shards.find((s) => s.openFileLimit)?.openFileLimit ?? null;
  }

  /**
   * Starts every gateway. One that cannot connect for a reason that may pass is retried with backoff
   * while the rest run; a final refusal, or no gateway connecting at all, stops the others and rejects.
   */
  async start(): Promise<void> {
    if (this.state !== 'stopped' || this.stoppedAt !== null) throw new Error('A run starts only once');
    const results = await this.connectGateways();
    if ((this.state as SimulationState) !== 'starting') return; // stopped meanwhile
    const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [i] : []));
    // A gateway that could not connect for a reason that may pass is retried with backoff while the
    // others run; the run fails at once only when a refusal is final or no gateway reached the broker.
    // A broker that accepted a gateway before its connection failed is there, only busy (creating
    // devices, say): then every gateway is retried, even when none came through at first.
    const reason = (i: number) => (results[i] as PromiseRejectedResult).reason as unknown;
    const passing = (i: number) => {
      const r = reason(i);
      return r instanceof ConnectError && !r.permanent;
    };
    const reached = failed.some((i) => (reason(i) as { afterConnack?: unknown }).afterConnack === true);
    const failedAt =
      failed.find((i) => !passing(i)) ??
      (failed.length === this.gateways.length && !reached ? failed[0]! : -1);
    if (failedAt >= 0) {
      const reason = (results[failedAt] as PromiseRejectedResult).reason as Error;
      this.lastError = `Gateway '${this.gateways[failedAt]!.plan.name}': ${reason.message}`;
      await this.stop('error');
      throw new Error(this.lastError);
    }
    for (const i of failed)
      this.gateways[i]!.retryLater((results[i] as PromiseRejectedResult).reason as Error);
    if (this.ota) {
      try {
        await this.ota.start();
      } catch (err) {
        this.lastError = `OTA devices: ${(err as Error).message}`;
        await this.stop('error');
        throw new Error(this.lastError, { cause: err });
      }
      if ((this.state as SimulationState) !== 'starting') return;
      if (this.otaPending)
        void this.ota.whenFinished().then(() => {
          this.otaPending = false;
          this.checkDone();
        });
    }
    if (this.durationMs > 0)
      this.durationTimer = setTimeout(() => void this.stop('duration'), this.durationMs);
    this.markRunning();
  }

  /** Stops every gateway (idempotent); resolves once all are disconnected. */
  stop(reason: FinishReason = 'stopped'): Promise<void> {
    if (this.stopping) return this.stopping;
    if (this.state === 'stopped' || this.state === 'failed') return Promise.resolve();
    this.state = 'stopping';
    this.meter.halt();
    if (this.durationTimer) clearTimeout(this.durationTimer);
    const stops = [
      ...(this.shards.length
        ? this.shards.map((s) => s.stop())
        : this.gateways.map((g) => (g as SimulatedGateway).stop())),
      this.ota?.stop(),
    ];
    this.stopping = Promise.all(stops).then(() => {
      for (const g of this.gateways) g.releaseScript();
      this.stoppedAt = Date.now();
      this.finishReason = reason;
      this.state = reason === 'error' ? 'failed' : 'stopped';
      this.resolveEnded();
    });
    return this.stopping;
  }

  /** Resolves when the run has ended: stopped, finished (duration or messages) or failed. */
  whenEnded(): Promise<void> {
    return this.ended;
  }

  elapsedMs(): number {
    if (this.startedAt === null) return 0;
    return (this.stoppedAt ?? Date.now()) - this.startedAt;
  }

  status(): RunStatus {
    return {
      state: this.state,
      startedAt: this.startedAt,
      stoppedAt: this.stoppedAt,
      finishReason: this.finishReason,
      lastError: this.lastError,
      elapsedMs: this.elapsedMs(),
      counters: this.meter.snapshot(),
      gatewayStatus: this.gateways.map((g) => g.status()),
      history: this.meter.history(),
      attributeLog: this.attributeLog.list(),
      rpcLog: this.rpcLog.list(),
      faults: this.faults.list(),
      faultMarkers: this.faults.markers.list(),
      scriptErrors: this.scriptLog.list(),
      ...(this.ota ? { ota: this.otaCounts()! } : {}),
      cost: this.cost(),
    };
  }

  /** How the OTA devices' updates went (undefined: the scenario has none). */
  otaCounts(): OtaRunCounts | undefined {
    const fleet = this.ota;
    if (!fleet) return undefined;
    const states = fleet.states();
    return {
      devices: fleet.devices.length,
      connected: fleet.connected(),
      failingOnPurpose: fleet.failing,
      states,
      updated: states.UPDATED ?? 0,
      failed: states.FAILED ?? 0,
      failedByReason: fleet.failures(),
      bytes: fleet.bytes(),
    };
  }

  /** Ends the run once no gateway has anything left to do (nor an OTA device an awaited update). */
  private checkDone(): void {
    if (this.state !== 'running' || this.otaPending) return;
    const states = this.gateways.map((g) => g.state);
    if (!states.every((s) => s === 'finished' || s === 'failed')) return;
    void this.stop(states.includes('finished') ? 'messages' : 'error');
  }
}
