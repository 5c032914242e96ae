import type { DurableDb } from '../store/durable-db.ts';
import type { PlatformContext } from './context.ts';
import { ErrorCode, PlatformError } from './errors.ts';

/** From this share of the budget the Overview warns. */
export const STORE_WARN_RATIO = 0.8;
/** From this share, size-based retention drops the oldest telemetry... */
const PRUNE_AT_RATIO = 0.9;
/** ...until the store is back under this share. */
const PRUNE_TO_RATIO = 0.7;
/** how long a measurement is trusted (at a few thousand datapoints/s the store grows by well under 1 MB) */
const MEASURE_MS = 250;
const MAX_PRUNE_STEPS = 30;

/** 507 (MQTT: 0x97 quota exceeded): even dropping all old telemetry cannot bring the store under its budget. */
export class StoreFullError extends PlatformError {
  constructor(message: string) {
    super(507, ErrorCode.GENERAL, message);
  }
}

export interface StoreUsage {
  usedBytes: number;
  budgetBytes: number;
  /** at or above STORE_WARN_RATIO of the budget */
  warning: boolean;
  /** at or above the budget: growing writes are refused */
  full: boolean;
  /** datapoints size-based retention dropped since start */
  prunedDatapoints: number;
  lastPrunedAt: number | null;
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/**
 * The store's size budget. sql.js keeps the whole database in memory, so it must never grow without
 * bound: writes that add data are admitted only below the budget; from 90% the oldest telemetry history
 * goes first (never attributes, entities, latest values or queued edge events) until 70% is used; when
 * even that cannot help, those writes are refused with a StoreFullError instead of the process failing.
 */
export class StoreBudget {
  private readonly ctx: PlatformContext;
  private readonly db: DurableDb;
  readonly budgetBytes: number;
  private usedBytes = 0;
  private measuredAt = -Infinity;
  private pruning: Promise<void> | null = null;
  private prunedDatapoints = 0;
  private lastPrunedAt: number | null = null;

  constructor(ctx: PlatformContext, budgetBytes: number) {
    this.ctx = ctx;
    this.db = ctx.db;
    this.budgetBytes = budgetBytes;
  }

  usage(): StoreUsage {
    const used = this.measure(true);
    return {
      usedBytes: used,
      budgetBytes: this.budgetBytes,
      warning: this.budgetBytes > 0 && used >= this.budgetBytes * STORE_WARN_RATIO,
      full: this.budgetBytes > 0 && used >= this.budgetBytes,
      prunedDatapoints: this.prunedDatapoints,
      lastPrunedAt: this.lastPrunedAt,
    };
  }

  /**
   * Called before a write that adds data. Resolves at once below 90% of the budget; above, first drops
   * the oldest telemetry; rejects with StoreFullError when the store is still at its budget.
   */
  async admit(): Promise<void> {
    if (this.budgetBytes <= 0) return;
    if (this.measure() < this.budgetBytes * PRUNE_AT_RATIO) return;
    this.pruning ??= this.prune().finally(() => {
      this.pruning = null;
    });
    await this.pruning;
    const used = this.measure(true);
    if (used >= this.budgetBytes) {
      throw new StoreFullError(
        `The store is full: ${mib(used)} of its ${mib(this.budgetBytes)} budget (SANDBOARD_STORE_BUDGET_MB) is used ` +
          'by attributes, entities and queued edge events, with no old telemetry left to drop. ' +
          'Delete devices or attributes, or raise the budget.',
      );
    }
  }

  private measure(fresh = false): number {
    const now = performance.now();
    if (fresh || now - this.measuredAt > MEASURE_MS) {
      this.usedBytes = this.db.sizeBytes().usedBytes;
      this.measuredAt = now;
    }
    return this.usedBytes;
  }

  /** Drops the oldest slice of every series' history, step by step, until under PRUNE_TO_RATIO. */
  private async prune(): Promise<void> {
    const target = this.budgetBytes * PRUNE_TO_RATIO;
    for (let step = 0; step < MAX_PRUNE_STEPS; step++) {
      const used = this.measure(true);
      if (used <= target) return;
      const series = this.ctx.telemetry.seriesBounds();
      if (series.length === 0) return;
      let oldest = Infinity;
      let newest = -Infinity;
      for (const s of series) {
        oldest = Math.min(oldest, s.oldest);
        newest = Math.max(newest, s.newest);
      }
      // the share of time to drop, as if all of the store were telemetry written at an even rate; the loop
      // takes further steps when it is not
      const share = Math.min(0.5, Math.max(0.05, ((used - target) / used) * 1.25));
      const cutoff = oldest + Math.max(1, Math.ceil((newest - oldest + 1) * share));
      const dropped = await this.ctx.telemetry.purgeOlderThan(cutoff);
      this.prunedDatapoints += dropped;
      this.lastPrunedAt = this.ctx.now();
    }
  }
}
