import { randomUUID } from 'node:crypto';
import {
  EDGE_SIMULATOR_DEFAULTS,
  EDGE_SIMULATOR_LIMITS,
  type CutOffEdgeRequest,
  type EdgeReceiveFaults,
  type EdgeSimulatorDetails,
  type EdgeSimulatorSummary,
  type SetEdgeSimulatorRateRequest,
  type StartEdgeSimulatorRequest,
} from '../../shared/schemas/edge-simulator.ts';
import type { EdgeService } from '../platform/edges.ts';
import { ErrorCode, invalidArgument, notFound, PlatformError } from '../platform/errors.ts';
import { EdgeSimulator } from './edge-simulator.ts';

export interface EdgeSimulatorManagerOptions {
  edges: EdgeService;
  /** the platform's own HTTP base URL, known once it listens */
  baseUrl: () => string | undefined;
}

interface Entry {
  id: string;
  edgeId: string;
  edgeName: string;
  routingKey: string;
  startedTime: number;
  simulator: EdgeSimulator;
}

const conflict = (message: string) => new PlatformError(409, ErrorCode.GENERAL, message);

/**
 * The app's simulated edges, several at once (one per edge): each pulls its edge's queue from this
 * platform over real HTTP. Kept in memory only; close() stops them all (the platform's HTTP server calls it
 * when it closes).
 */
export class EdgeSimulatorManager {
  private readonly edges: EdgeService;
  private readonly baseUrl: () => string | undefined;
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  constructor(options: EdgeSimulatorManagerOptions) {
    this.edges = options.edges;
    this.baseUrl = options.baseUrl;
  }

  list(): EdgeSimulatorSummary[] {
    return [...this.entries.values()]
      .sort((a, b) => a.startedTime - b.startedTime || a.id.localeCompare(b.id))
      .map((e) => this.summary(e));
  }

  status(id: string): EdgeSimulatorDetails {
    const entry = this.entry(id);
    return { ...this.summary(entry), recentEvents: entry.simulator.recentEvents() };
  }

  /** Starts a simulated edge; 400 if the edge or its secret is wrong, 409 if the edge already has one. */
  start(request: StartEdgeSimulatorRequest): EdgeSimulatorDetails {
    if (this.closed) throw conflict('The platform is stopping');
    const row = this.edges.findRow(request.edgeId);
    if (!row) throw notFound(`Edge with id [${request.edgeId}] is not found`);
    try {
      this.edges.authenticate(row.routing_key, request.secret);
    } catch {
      throw invalidArgument(
        "'secret' is not the secret of this edge (it is shown once, when the edge is created)",
      );
    }
    for (const e of this.entries.values()) {
      if (e.edgeId === row.id) throw conflict(`Edge [${row.name}] already has a simulator (${e.id})`);
    }
    if (this.entries.size >= EDGE_SIMULATOR_LIMITS.simulators) {
      throw conflict(`At most ${EDGE_SIMULATOR_LIMITS.simulators} edge simulators run at once`);
    }
    const baseUrl = this.baseUrl();
    if (!baseUrl) throw new PlatformError(503, ErrorCode.GENERAL, 'The HTTP server is not listening yet');
    const simulator = new EdgeSimulator({
      baseUrl,
      routingKey: row.routing_key,
      secret: request.secret,
      ratePerSec: request.ratePerSec ?? EDGE_SIMULATOR_DEFAULTS.ratePerSec,
      batchSize: request.batchSize ?? EDGE_SIMULATOR_DEFAULTS.batchSize,
      waitMs: request.waitMs ?? EDGE_SIMULATOR_DEFAULTS.waitMs,
      logSize: request.logSize ?? EDGE_SIMULATOR_DEFAULTS.logSize,
    });
    const entry: Entry = {
      id: randomUUID(),
      edgeId: row.id,
      edgeName: row.name,
      routingKey: row.routing_key,
      startedTime: Date.now(),
      simulator,
    };
    this.entries.set(entry.id, entry);
    return this.status(entry.id);
  }

  /** Resolves once the simulator stopped pulling (a pull in progress finishes and is acknowledged first). */
  async pause(id: string): Promise<EdgeSimulatorSummary> {
    const entry = this.entry(id);
    await entry.simulator.pause();
    return this.summary(entry);
  }

  resume(id: string): EdgeSimulatorSummary {
    const entry = this.entry(id);
    entry.simulator.resume();
    return this.summary(entry);
  }

  setRate(id: string, request: SetEdgeSimulatorRateRequest): EdgeSimulatorSummary {
    const entry = this.entry(id);
    entry.simulator.setRate(request.ratePerSec, request.batchSize);
    return this.summary(entry);
  }

  /** Cuts the edge off for a while; answers once no pull is in progress. */
  async cutOff(id: string, request: CutOffEdgeRequest): Promise<EdgeSimulatorSummary> {
    const entry = this.entry(id);
    if (entry.simulator.state === 'error') throw conflict('The simulated edge stopped on an error');
    await entry.simulator.cutOff(request.durationMs);
    return this.summary(entry);
  }

  /** Faults on the receiving side from now on (replacing the previous ones; {} clears them). */
  setFaults(id: string, faults: EdgeReceiveFaults): EdgeSimulatorSummary {
    const entry = this.entry(id);
    entry.simulator.setReceiveFaults(faults);
    return this.summary(entry);
  }

  /** Stops a simulator and forgets it. */
  async stop(id: string): Promise<void> {
    const entry = this.entry(id);
    this.entries.delete(id);
    await entry.simulator.stop();
  }

  /** Stops every simulator; no new one starts afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((e) => e.simulator.stop()));
  }

  private entry(id: string): Entry {
    const entry = this.entries.get(id);
    if (!entry) throw notFound(`Edge simulator [${id}] is not found`);
    return entry;
  }

  private summary(e: Entry): EdgeSimulatorSummary {
    const s = e.simulator;
    return {
      id: e.id,
      edgeId: e.edgeId,
      edgeName: e.edgeName,
      routingKey: e.routingKey,
      state: s.state,
      ratePerSec: s.ratePerSec,
      batchSize: s.batchSize,
      waitMs: s.waitMs,
      startedTime: e.startedTime,
      lastError: s.lastError,
      counters: s.counterValues(),
      faults: s.receiveFaults,
      cutOff: s.cutOffState(),
    };
  }
}
