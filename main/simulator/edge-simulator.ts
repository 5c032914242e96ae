import type {
  EdgeCutOff,
  EdgeReceiveFaults,
  EdgeSimulatorCounters,
  EdgeSimulatorEvent,
  EdgeSimulatorState,
} from '../../shared/schemas/edge-simulator.ts';
import { CutOffCheck } from './edge-delivery-check.ts';
import { ReceiveFaults } from './edge-receive-faults.ts';

export interface EdgeSimulatorOptions {
  /** the platform's HTTP base URL (http://host:port) */
  baseUrl: string;
  routingKey: string;
  secret: string;
  /** events per second at most, on average; 0 = as fast as the platform answers */
  ratePerSec: number;
  /** events per pull at most */
  batchSize: number;
  /** long poll of each pull */
  waitMs: number;
  /** events kept in the recent-events log */
  logSize: number;
  /** uids remembered for dropping duplicates */
  seenUids?: number;
  now?: () => number;
}

interface PulledEvent {
  seqId: number;
  edgeSeq: number;
  uid: string;
  action: string;
  type: string;
  entityId: string;
  createdTime: number;
  body: unknown;
}

const RATE_WINDOW_SEC = 5;
const RETRY_MS = 1000;
const DEFAULT_SEEN_UIDS = 100_000;

/** An HTTP answer other than 200, with the platform's message. */
class RefusedError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * A simulated edge: long-polls its queue over the platform's HTTP edge API with its routing key and secret
 * (`Authorization: Basic`), acknowledges every batch it received, and drops events whose uid it has seen
 * (delivery is at-least-once). Paced to ratePerSec; paused, it stops pulling and the queue grows. A 401
 * or 403 (edge deleted, secret changed) stops it in state `error`; other failures are retried.
 *
 * Cut off for a while, it stops pulling, then reconnects by itself and checks with the edge's own event
 * numbers (edgeSeq) that what was queued meanwhile arrives exactly once and in order. Faults injected on its
 * receiving side (lost, duplicated, swapped events) give the check something to find.
 */
export class EdgeSimulator {
  private readonly baseUrl: string;
  private readonly auth: string;
  private readonly now: () => number;
  private readonly logSize: number;
  private readonly seenLimit: number;
  private readonly seen = new Set<string>();
  private readonly recent: EdgeSimulatorEvent[] = [];
  private readonly buckets = new Map<number, number>();
  private readonly counters: Omit<EdgeSimulatorCounters, 'eventsPerSec'> = {
    pulled: 0,
    acknowledged: 0,
    duplicates: 0,
    lastSeqId: null,
    pulls: 0,
    errors: 0,
  };
  private stateValue: Exclude<EdgeSimulatorState, 'cutOff'> = 'running';
  private paused = false;
  /** no pull before this time (a cut-off) */
  private cutOffUntil = 0;
  /** the loop waits out a cut-off (no pull in progress) */
  private disconnected = false;
  private check: CutOffCheck | null = null;
  private readonly faults = new ReceiveFaults();
  /** the highest edgeSeq received, and the last edgeSeq of the edge at the last empty pull */
  private highestEdgeSeq = 0;
  private stopped = false;
  private rate: number;
  private batch: number;
  readonly waitMs: number;
  /** earliest time the next pull may start (pacing) */
  private nextPullAt = 0;
  private errorText: string | null = null;
  private readonly abort = new AbortController();
  /** wakes the loop out of a pause or a pacing wait */
  private wake: (() => void) | null = null;
  /** resolved when the loop is idle in a pause */
  private idleWaiters: (() => void)[] = [];
  private idle = false;
  private readonly loop: Promise<void>;

  constructor(options: EdgeSimulatorOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.auth = `Basic ${Buffer.from(`${options.routingKey}:${options.secret}`).toString('base64')}`;
    this.now = options.now ?? Date.now;
    this.rate = options.ratePerSec;
    this.batch = options.batchSize;
    this.waitMs = options.waitMs;
    this.logSize = options.logSize;
    this.seenLimit = options.seenUids ?? DEFAULT_SEEN_UIDS;
    this.loop = this.run();
  }

  /** Paused or cut off only once no pull is in progress: what is queued from then on waits. */
  get state(): EdgeSimulatorState {
    if (this.stateValue === 'running' && this.disconnected) return 'cutOff';
    if (this.stateValue === 'paused' && !this.idle) return 'running';
    return this.stateValue;
  }

  get receiveFaults(): EdgeReceiveFaults {
    return this.faults.current;
  }

  /** The last cut-off and its check (null if none yet). */
  cutOffState(): EdgeCutOff | null {
    return this.check?.toJSON() ?? null;
  }

  setReceiveFaults(settings: EdgeReceiveFaults): void {
    this.faults.set(settings);
  }

  /**
   * Cuts the edge off for durationMs (a pull in progress finishes and is acknowledged first; resolves then).
   * Everything numbered after the last event received so far is checked once it reconnects.
   */
  async cutOff(durationMs: number): Promise<void> {
    if (this.stopped || this.stateValue === 'error') return;
    const now = this.now();
    const until = now + durationMs;
    this.cutOffUntil = until;
    this.check = new CutOffCheck(this.highestEdgeSeq, now, until);
    this.wake?.();
    if (this.idle) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  get ratePerSec(): number {
    return this.rate;
  }

  get batchSize(): number {
    return this.batch;
  }

  get lastError(): string | null {
    return this.errorText;
  }

  counterValues(): EdgeSimulatorCounters {
    const nowSec = Math.floor(this.now() / 1000);
    let recent = 0;
    // The current second is partial: the window is the RATE_WINDOW_SEC full seconds before it.
    for (let s = nowSec - RATE_WINDOW_SEC; s < nowSec; s++) recent += this.buckets.get(s) ?? 0;
    return { ...this.counters, eventsPerSec: recent / RATE_WINDOW_SEC };
  }

  /** The last events received, newest first. */
  recentEvents(): EdgeSimulatorEvent[] {
    return [...this.recent].reverse();
  }

  /** Stops pulling; resolves once no pull is in progress (the last batch is acknowledged first). */
  async pause(): Promise<void> {
    if (this.stopped || this.stateValue === 'error') return;
    this.paused = true;
    this.stateValue = 'paused';
    this.wake?.();
    if (this.idle) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Pulls again; a cut-off edge reconnects now. */
  resume(): void {
    if (this.stopped || this.stateValue === 'error') return;
    this.paused = false;
    this.cutOffUntil = 0;
    this.disconnected = false;
    this.stateValue = 'running';
    this.wake?.();
    // A pause or cut-off still waiting for a pull to end answers now.
    this.releaseIdleWaiters();
  }

  setRate(ratePerSec: number, batchSize?: number): void {
    this.rate = ratePerSec;
    if (batchSize !== undefined) this.batch = batchSize;
    // A slower or faster pace applies from now, not after the wait the old one set.
    this.nextPullAt = Math.min(this.nextPullAt, this.now());
    this.wake?.();
  }

  /** Stops at once: a pull in progress is abandoned (its events come back to the queue after the lease). */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.abort.abort();
      this.wake?.();
    }
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.paused) {
        await this.idleUntilWoken();
        continue;
      }
      const cut = this.cutOffUntil - this.now();
      if (cut > 0) {
        // A pull in progress when the cut-off came may have brought newer events: the check starts after them.
        this.check?.disconnected(this.highestEdgeSeq);
        this.idle = true;
        this.disconnected = true;
        this.releaseIdleWaiters();
        await this.sleep(cut);
        this.idle = false;
        this.disconnected = false;
        continue;
      }
      this.check?.reconnected(this.now(), this.highestEdgeSeq);
      const wait = this.nextPullAt - this.now();
      if (wait > 0) {
        await this.sleep(wait);
        continue;
      }
      try {
        const { events, lastEdgeSeq } = await this.pull();
        this.counters.pulls++;
        const check = this.check?.done === false ? this.check : null;
        check?.window(lastEdgeSeq);
        const handed = this.faults.apply(events, (kind, edgeSeq) => check?.injectedFault(kind, edgeSeq));
        let pulledUpTo: number | null = null;
        for (const e of events) if (pulledUpTo === null || e.edgeSeq > pulledUpTo) pulledUpTo = e.edgeSeq;
        if (events.length === 0 && lastEdgeSeq > this.highestEdgeSeq) this.highestEdgeSeq = lastEdgeSeq;
        if (handed.length > 0) this.receive(handed);
        check?.pulled(pulledUpTo, handed, this.now());
        if (events.length > 0) {
          // Lost events are acknowledged too: the platform sees them delivered.
          await this.ack(events.map((e) => e.seqId));
          if (this.rate > 0)
            this.nextPullAt = Math.max(this.nextPullAt, this.now()) + (events.length / this.rate) * 1000;
        }
      } catch (err) {
        if (this.stopped) break;
        this.counters.errors++;
        this.errorText = (err as Error).message;
        if (err instanceof RefusedError && (err.status === 401 || err.status === 403)) {
          this.stateValue = 'error';
          this.stopped = true;
          break;
        }
        await this.sleep(RETRY_MS);
      }
    }
    this.wake = null;
    this.releaseIdleWaiters();
  }

  private async pull(): Promise<{ events: PulledEvent[]; lastEdgeSeq: number }> {
    return (await this.post('/api/edge/queue/pull', {
      maxEvents: this.batch,
      waitMs: this.paused ? 0 : this.waitMs,
    })) as { events: PulledEvent[]; lastEdgeSeq: number };
  }

  private async ack(seqIds: number[]): Promise<void> {
    const body = (await this.post('/api/edge/queue/ack', { seqIds })) as { acknowledged: number };
    this.counters.acknowledged += body.acknowledged;
  }

  private async post(path: string, payload: unknown): Promise<unknown> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: this.auth },
      body: JSON.stringify(payload),
      signal: this.abort.signal,
    });
    const text = await res.text();
    if (res.status !== 200) {
      let message = text;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {
        /* not JSON */
      }
      throw new RefusedError(res.status, `${path} answered ${res.status}: ${message}`);
    }
    return JSON.parse(text) as unknown;
  }

  private receive(events: PulledEvent[]): void {
    const now = this.now();
    const sec = Math.floor(now / 1000);
    this.buckets.set(sec, (this.buckets.get(sec) ?? 0) + events.length);
    for (const key of this.buckets.keys()) if (key < sec - RATE_WINDOW_SEC) this.buckets.delete(key);
    for (const e of events) {
      this.counters.pulled++;
      const duplicate = this.seen.has(e.uid);
      if (duplicate) this.counters.duplicates++;
      else {
        this.seen.add(e.uid);
        if (this.seen.size > this.seenLimit) this.seen.delete(this.seen.values().next().value!);
      }
      if (this.counters.lastSeqId === null || e.seqId > this.counters.lastSeqId)
        this.counters.lastSeqId = e.seqId;
      if (e.edgeSeq > this.highestEdgeSeq) this.highestEdgeSeq = e.edgeSeq;
      this.recent.push({
        seqId: e.seqId,
        edgeSeq: e.edgeSeq,
        uid: e.uid,
        action: e.action,
        type: e.type,
        entityId: e.entityId,
        createdTime: e.createdTime,
        receivedTime: now,
        duplicate,
        body: e.body,
      });
    }
    if (this.recent.length > this.logSize) this.recent.splice(0, this.recent.length - this.logSize);
  }

  private idleUntilWoken(): Promise<void> {
    this.idle = true;
    this.releaseIdleWaiters();
    return new Promise<void>((resolve) => {
      this.wake = () => {
        this.wake = null;
        this.idle = false;
        resolve();
      };
    });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private releaseIdleWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
