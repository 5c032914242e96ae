/**
 * The main side of a run's worker thread (run-shard-worker.ts): it starts the thread with its share of
 * the gateways, adds what the thread counts to the run's meter, logs and faults, and mirrors each of its
 * gateways so that the run reads their state as it reads its own.
 */
import { Worker } from 'node:worker_threads';
import type {
  AttributeLogEntry,
  FaultCount,
  GatewayState,
  GatewayStatus,
  RpcLogEntry,
  ScriptErrorEntry,
} from '../../shared/schemas/simulation.ts';
import { ZERO_COUNTERS, type Meter, type RingLog } from './counters.ts';
import type { FaultBook } from './faults.ts';
import { ConnectError } from './mqtt-connection.ts';
import type {
  ConnectOutcome,
  RunGateway,
  ShardData,
  ShardMessage,
  ShardRequest,
  ShardTick,
} from './run-shard-protocol.ts';
import type { GatewayPlan } from './scenario.ts';

const WORKER_URL = new URL(
  `./run-shard-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);
/** a worker that does not end within this after the stop is terminated */
const STOP_MS = 15_000;

/** What the run shares with its workers: the totals they add to. */
export interface ShardSinks {
  meter: Meter;
  attributeLog: RingLog<Omit<AttributeLogEntry, 'seq'>>;
  rpcLog: RingLog<Omit<RpcLogEntry, 'seq'>>;
  scriptLog: RingLog<Omit<ScriptErrorEntry, 'seq'>>;
  faults: FaultBook;
  /** a gateway's state or the run's last error changed */
  onChange(): void;
  onError(message: string): void;
}

/** A gateway driven by a worker thread, as the run sees it: its last reported state. */
export class WorkerGateway {
  readonly plan: GatewayPlan;
  state: GatewayState = 'stopped';
  connectRetries = 0;
  private last: GatewayStatus | null = null;
  private readonly shard: RunShard;
  private readonly index: number;

  constructor(plan: GatewayPlan, shard: RunShard, index: number) {
    this.plan = plan;
    this.shard = shard;
    this.index = index;
  }

  update(status: GatewayStatus, connectRetries: number): void {
    this.last = status;
    this.state = status.state;
    this.connectRetries = connectRetries;
  }

  status(): GatewayStatus {
    return (
      this.last ?? {
        name: this.plan.name,
        state: this.state,
        error: null,
        deviceId: null,
        protocolVersion: this.plan.protocolVersion,
        qos: this.plan.qos,
        periodMs: this.plan.periodMs,
        devicesCount: this.plan.devices.length,
        connectedDevices: 0,
        deviceNames: this.plan.devices.slice(0, 100),
        scriptedDevicesStopped: 0,
        counters: { ...ZERO_COUNTERS, failedByReason: {} },
      }
    );
  }

  get scriptedDevicesStopped(): number {
    return this.last?.scriptedDevicesStopped ?? 0;
  }

  retryLater(err: Error): void {
    this.state = 'reconnecting';
    this.shard.send({ op: 'retry', gateway: this.index, message: err.message });
  }

  releaseScript(): void {
    // the worker frees its scripts when it stops
  }
}

/** One worker thread of a run and the gateways it drives. */
export class RunShard {
  readonly index: number;
  readonly gateways: WorkerGateway[];
  /** the thread's CPU since it started (µs), and what it sent, as of its last tick */
  cpuUs = 0;
  sent = 0;
  datapoints = 0;
  openFileLimit: string | null = null;
  private readonly worker: Worker;
  private readonly sinks: ShardSinks;
  private faultCounts: FaultCount[] = [];
  private connected: ((outcomes: ConnectOutcome[]) => void) | null = null;
  private readonly stopped: Promise<void>;
  private ended: string | null = null;
  private resolveStopped: () => void = () => undefined;
  private resolveReady: () => void = () => undefined;
  /** resolves once the thread has loaded its modules (or has ended) */
  readonly ready: Promise<void>;

  constructor(
    index: number,
    gateways: RunGateway[],
    options: Omit<ShardData, 'index' | 'gateways'>,
    sinks: ShardSinks,
  ) {
    this.index = index;
    this.sinks = sinks;
    this.gateways = gateways.map((g, i) => new WorkerGateway(g.plan, this, i));
    this.stopped = new Promise((resolve) => (this.resolveStopped = resolve));
    this.ready = new Promise((resolve) => (this.resolveReady = resolve));
    this.worker = new Worker(WORKER_URL, {
      workerData: { index, gateways, ...options } satisfies ShardData,
      name: `simulator worker ${index + 1}`,
    });
    this.worker.on('message', (m: ShardMessage) => this.onMessage(m));
    this.worker.on('error', (err) => this.end(`simulator worker ${index + 1} failed: ${err.message}`));
    this.worker.on('exit', (code) => this.end(`simulator worker ${index + 1} exited (code ${code})`));
  }

  send(request: ShardRequest): void {
    if (this.ended === null) this.worker.postMessage(request);
  }

  /** Connects the thread's gateways; one outcome per gateway, in order. */
  start(): Promise<PromiseSettledResult<void>[]> {
    return new Promise<ConnectOutcome[]>((resolve) => {
      const ended = this.ended;
      if (ended !== null) {
        resolve(this.allFailed(ended));
        return;
      }
      for (const g of this.gateways) g.state = 'connecting';
      this.connected = resolve;
      this.send({ op: 'start' });
    }).then((outcomes) =>
      outcomes.map((o) =>
        o.ok
          ? { status: 'fulfilled', value: undefined }
          : { status: 'rejected', reason: new ConnectError(o.message, o.permanent, o.afterConnack) },
      ),
    );
  }

  /** Stops the thread's gateways and ends the thread; resolves with its last counts in. */
  async stop(): Promise<void> {
    this.send({ op: 'stop' });
    const timer = setTimeout(() => void this.worker.terminate(), STOP_MS);
    await this.stopped;
    clearTimeout(timer);
  }

  private onMessage(m: ShardMessage): void {
    switch (m.kind) {
      case 'ready':
        this.resolveReady();
        return;
      case 'connected':
        this.connected?.(m.outcomes);
        this.connected = null;
        return;
      case 'tick':
        this.apply(m.tick);
        return;
      case 'stopped':
        this.apply(m.tick);
        this.ended = 'stopped';
        this.resolveStopped();
        // its last counts are in: a script sandbox's thread must not keep it alive
        void this.worker.terminate();
        return;
      case 'failed':
        this.sinks.onError(m.error);
        return;
    }
  }

  private apply(t: ShardTick): void {
    const s = this.sinks;
    s.meter.absorb(t.delta);
    this.sent += t.delta.sent;
    this.datapoints += t.delta.datapoints;
    this.cpuUs = t.cpuUs;
    this.openFileLimit ??= t.openFileLimit;
    t.gateways.forEach((g, i) => this.gateways[i]?.update(g.status, g.connectRetries));
    for (const e of t.attributeLog) s.attributeLog.push(e);
    for (const e of t.rpcLog) s.rpcLog.push(e);
    for (const e of t.scriptLog) s.scriptLog.push(e);
    for (const m of t.faultMarkers) s.faults.markers.push(m);
    for (const f of t.faults) {
      const before = this.faultCounts[f.index];
      if (f.injected > (before?.injected ?? 0))
        s.faults.injected(f.index, f.injected - (before?.injected ?? 0));
      for (const [answer, n] of Object.entries(f.answers)) {
        const was = before?.answers[answer] ?? 0;
        if (n > was) s.faults.answered(f.index, answer, n - was);
      }
    }
    this.faultCounts = t.faults;
    if (t.lastError) s.onError(t.lastError);
    s.onChange();
  }

  /** every gateway of the thread refused for good, for a thread that has ended */
  private allFailed(message: string): ConnectOutcome[] {
    return this.gateways.map(() => ({ ok: false, message, permanent: true, afterConnack: false }));
  }

  private end(reason: string): void {
    if (this.ended !== null) return;
    this.ended = reason;
    for (const g of this.gateways) if (g.state !== 'finished') g.state = 'failed';
    this.connected?.(this.allFailed(reason));
    this.connected = null;
    this.sinks.onError(reason);
    this.resolveReady();
    this.resolveStopped();
    this.sinks.onChange();
  }
}
