import type { RateSample, SimulationCounters } from '../../shared/schemas/simulation.ts';

export { ZERO_COUNTERS } from '../../shared/schemas/simulation.ts';

const RATE_WINDOW_SEC = 5;
const HISTORY_SEC = 60;
/** PUBACK latencies kept for the percentiles (a uniform sample of the run: reservoir sampling) */
const LATENCY_SAMPLES = 10_000;

/** A fixed-size uniform sample of a run's PUBACK latencies, for percentiles. */
export class LatencySample {
  private readonly values: number[] = [];
  private seen = 0;

  add(ms: number): void {
    this.seen++;
    if (this.values.length < LATENCY_SAMPLES) this.values.push(ms);
    else {
      const i = Math.floor(Math.random() * this.seen);
      if (i < LATENCY_SAMPLES) this.values[i] = ms;
    }
  }

  clear(): void {
    this.values.length = 0;
    this.seen = 0;
  }

  /** p50, p90, p99 and max in ms (nearest rank); null before the first acknowledgement. */
  percentiles(): { count: number; p50: number; p90: number; p99: number; max: number } | null {
    if (this.values.length === 0) return null;
    const sorted = [...this.values].sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
    return { count: this.seen, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.at(-1)! };
  }
}

/** The counts a meter adds up, as one thread hands them to another. */
const COUNTS = [
  'sent',
  'acknowledged',
  'inFlight',
  'skipped',
  'telemetryMessages',
  'datapoints',
  'rpcRequests',
  'attributeUpdates',
  'rpcAnswered',
  'scriptCalls',
  'scriptErrors',
] as const;

/** PUBACK latencies a worker hands over per delta, at most (the run keeps a sample anyway). */
const MAX_DELTA_LATENCIES = 2000;

/** What a meter counted since the last delta: a worker thread's share, added to the run's meter. */
export type MeterDelta = Record<(typeof COUNTS)[number], number> & {
  failedByReason: Record<string, number>;
  latencies: number[];
};

interface Bucket {
  sent: number;
  acknowledged: number;
  failed: number;
}

/**
 * Counters of a gateway or of a whole simulation: every count also goes to the parent. Per-second
 * buckets give msgs/s over a sliding window and the chart's last 60 samples.
 */
export class Meter {
  sent = 0;
  acknowledged = 0;
  inFlight = 0;
  skipped = 0;
  telemetryMessages = 0;
  datapoints = 0;
  rpcRequests = 0;
  attributeUpdates = 0;
  rpcAnswered = 0;
  scriptCalls = 0;
  scriptErrors = 0;
  readonly latency = new LatencySample();
  readonly failedByReason = new Map<string, number>();
  private readonly buckets = new Map<number, Bucket>();
  private readonly parent: Meter | undefined;
  private readonly now: () => number;
  private startedAt: number;
  /** when the run or gateway was told to stop: from then on the rate is zero and nothing enters the chart */
  private haltedAt: number | null = null;
  /** the counts at the last delta() and the latencies since (a worker's meter) */
  private tapped: {
    counts: Record<string, number>;
    failed: Map<string, number>;
    latencies: number[];
  } | null = null;

  constructor(parent?: Meter, now: () => number = Date.now) {
    this.parent = parent;
    this.now = now;
    this.startedAt = now();
  }

  /** Zeroes everything for a new run. */
  reset(): void {
    this.sent = this.acknowledged = this.inFlight = this.skipped = 0;
    this.telemetryMessages = this.datapoints = this.rpcRequests = this.attributeUpdates = 0;
    this.rpcAnswered = this.scriptCalls = this.scriptErrors = 0;
    this.latency.clear();
    this.failedByReason.clear();
    this.buckets.clear();
    this.startedAt = this.now();
    this.haltedAt = null;
  }

  /**
   * Stopped means zero at once: the rate reads 0 and the chart ends here, though the totals still count
   * what a stop itself sends (the devices' disconnect messages) and the last acknowledgements.
   */
  halt(): void {
    this.haltedAt ??= this.now();
  }

  get failed(): number {
    let n = 0;
    for (const v of this.failedByReason.values()) n += v;
    return n;
  }

  private bucket(): Bucket {
    if (this.haltedAt !== null) return { sent: 0, acknowledged: 0, failed: 0 };
    const sec = Math.floor(this.now() / 1000);
    let b = this.buckets.get(sec);
    if (!b) {
      b = { sent: 0, acknowledged: 0, failed: 0 };
      this.buckets.set(sec, b);
      for (const key of this.buckets.keys()) if (key <= sec - HISTORY_SEC - 1) this.buckets.delete(key);
    }
    return b;
  }

  recordSent(qos: 0 | 1): void {
    this.sent++;
    if (qos === 1) this.inFlight++;
    this.bucket().sent++;
    this.parent?.recordSent(qos);
  }

  /** latencyMs: from the publish to its PUBACK */
  recordAck(latencyMs?: number): void {
    this.acknowledged++;
    this.inFlight--;
    this.bucket().acknowledged++;
    if (latencyMs !== undefined) {
      this.latency.add(latencyMs);
      const tap = this.tapped?.latencies;
      if (tap && tap.length < MAX_DELTA_LATENCIES) tap.push(latencyMs);
    }
    this.parent?.recordAck(latencyMs);
  }

  recordFailure(reason: string, qos: 0 | 1): void {
    this.failedByReason.set(reason, (this.failedByReason.get(reason) ?? 0) + 1);
    if (qos === 1) this.inFlight--;
    this.bucket().failed++;
    this.parent?.recordFailure(reason, qos);
  }

  recordSkipped(): void {
    this.skipped++;
    this.parent?.recordSkipped();
  }

  recordTelemetry(datapoints: number): void {
    this.telemetryMessages++;
    this.datapoints += datapoints;
    this.parent?.recordTelemetry(datapoints);
  }

  recordRpc(): void {
    this.rpcRequests++;
    this.parent?.recordRpc();
  }

  recordRpcAnswered(): void {
    this.rpcAnswered++;
    this.parent?.recordRpcAnswered();
  }

  recordScriptCall(): void {
    this.scriptCalls++;
    this.parent?.recordScriptCall();
  }

  recordScriptError(): void {
    this.scriptErrors++;
    this.parent?.recordScriptError();
  }

  recordAttributeUpdate(): void {
    this.attributeUpdates++;
    this.parent?.recordAttributeUpdate();
  }

  /** What was counted since the last call (the first: since the start); a worker thread sends it on. */
  delta(): MeterDelta {
    const last = (this.tapped ??= { counts: {} as Record<string, number>, failed: new Map(), latencies: [] });
    const out = { failedByReason: {}, latencies: last.latencies } as unknown as MeterDelta;
    for (const k of COUNTS) {
      out[k] = this[k] - (last.counts[k] ?? 0);
      last.counts[k] = this[k];
    }
    for (const [reason, n] of this.failedByReason) {
      const d = n - (last.failed.get(reason) ?? 0);
      if (d) out.failedByReason[reason] = d;
      last.failed.set(reason, n);
    }
    last.latencies = [];
    return out;
  }

  /** Adds a worker thread's delta, as if counted here (its second for the rate and the chart is now). */
  absorb(d: MeterDelta): void {
    for (const k of COUNTS) this[k] += d[k];
    for (const [reason, n] of Object.entries(d.failedByReason))
      this.failedByReason.set(reason, (this.failedByReason.get(reason) ?? 0) + n);
    for (const ms of d.latencies) this.latency.add(ms);
    const b = this.bucket();
    b.sent += d.sent;
    b.acknowledged += d.acknowledged;
    let failed = 0;
    for (const n of Object.values(d.failedByReason)) failed += n;
    b.failed += failed;
  }

  /** Publishes per second: the last 5 whole seconds (fewer just after the start). */
  messagesPerSecond(): number {
    if (this.haltedAt !== null) return 0;
    const now = this.now();
    const sec = Math.floor(now / 1000);
    const startSec = Math.floor(this.startedAt / 1000);
    const whole = Math.min(RATE_WINDOW_SEC, sec - startSec - 1);
    if (whole < 1) {
      const elapsed = (now - this.startedAt) / 1000;
      return elapsed > 0 ? Math.round((this.sent / Math.max(elapsed, 1)) * 10) / 10 : 0;
    }
    let sum = 0;
    for (let s = sec - whole; s < sec; s++) sum += this.buckets.get(s)?.sent ?? 0;
    return Math.round((sum / whole) * 10) / 10;
  }

  /** Up to the last 60 whole seconds since the start, oldest first, zero-filled; a halted one ends with a zero. */
  history(): RateSample[] {
    const halted = this.haltedAt !== null ? Math.floor(this.haltedAt / 1000) : null;
    const sec = halted ?? Math.floor(this.now() / 1000);
    const from = Math.max(Math.floor(this.startedAt / 1000), sec - HISTORY_SEC);
    const samples: RateSample[] = [];
    for (let s = from; s < sec; s++) {
      const b = this.buckets.get(s);
      samples.push({
        ts: s * 1000,
        sent: b?.sent ?? 0,
        acknowledged: b?.acknowledged ?? 0,
        failed: b?.failed ?? 0,
      });
    }
    if (halted !== null) samples.push({ ts: this.haltedAt!, sent: 0, acknowledged: 0, failed: 0 });
    return samples;
  }

  snapshot(): SimulationCounters {
    return {
      sent: this.sent,
      acknowledged: this.acknowledged,
      failed: this.failed,
      failedByReason: Object.fromEntries(this.failedByReason),
      inFlight: this.inFlight,
      skipped: this.skipped,
      telemetryMessages: this.telemetryMessages,
      datapoints: this.datapoints,
      rpcRequests: this.rpcRequests,
      attributeUpdates: this.attributeUpdates,
      scriptCalls: this.scriptCalls,
      scriptErrors: this.scriptErrors,
      messagesPerSecond: this.messagesPerSecond(),
    };
  }
}

/** The last N entries of a log, each with a sequence number; listed newest first. */
export class RingLog<T extends object> {
  private readonly entries: (T & { seq: number })[] = [];
  private seq = 0;
  private readonly capacity: number;

  constructor(capacity = 100) {
    this.capacity = capacity;
  }

  push(entry: T): T & { seq: number } {
    const stored = { ...entry, seq: ++this.seq };
    this.entries.push(stored);
    if (this.entries.length > this.capacity) this.entries.shift();
    return stored;
  }

  clear(): void {
    this.entries.length = 0;
  }

  /** Copies, newest first. */
  list(): (T & { seq: number })[] {
    return this.entries.map((e) => ({ ...e })).reverse();
  }
}
