/**
 * The analytics service: table views, the report limiter (pool + queue) and the report workers, and
 * the smart-building demo. One instance per platform, shared by the platform REST (views, preview,
 * demo) and the report API server on --analytics-port, so both draw on the same report slots.
 */
import { availableParallelism } from 'node:os';
import type { PreviewResponse, ReportResponse, TableViewConfig } from '../../shared/schemas/table-view.ts';
import { TABLE_VIEW_LIMITS } from '../../shared/schemas/table-view.ts';
import type { PlatformConfig } from '../config.ts';
import type { Principal } from '../platform/auth/principal.ts';
import type { Services } from '../platform/services.ts';
import { ReportLimiter } from './report-limiter.ts';
import { ReportPool } from './report-pool.ts';
import type { ReportResult } from './report-runner.ts';
import { buildReportSpec, type ReportOverrides, type ReportSpec } from './report-spec.ts';
import { SmartBuildingDemo } from './smart-building-demo.ts';
import { TableViewService } from './table-views.ts';

export interface AnalyticsSettings {
  /** reports running at once (SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE) */
  poolSize: number;
  /** reports waiting for a slot (SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY) */
  queueCapacity: number;
  /** worker threads; 0: min(poolSize, CPU cores, 4) */
  workers: number;
  /** tests only: every report first blocks its worker this long */
  testDelayMs: number;
  /** the workers (and their replicas) stop after this long without reports */
  idleMs: number;
  /** tests only: force the query plan */
  testPlan?: ReportSpec['plan'];
}

export const DEFAULT_ANALYTICS_SETTINGS: AnalyticsSettings = {
  poolSize: 10,
  queueCapacity: 10,
  workers: 0,
  testDelayMs: 0,
  idleMs: 10 * 60_000,
};

export function analyticsSettings(config: PlatformConfig): AnalyticsSettings {
  return {
    ...DEFAULT_ANALYTICS_SETTINGS,
    poolSize: config.reportPoolSize,
    queueCapacity: config.reportQueueCapacity,
    workers: config.reportWorkers,
    testDelayMs: config.analyticsTestHooks?.reportDelayMs ?? 0,
    testPlan: config.analyticsTestHooks?.plan,
  };
}

/**
 * Worker threads for `slots` report slots. More workers than cores only time-slice the same CPUs and
 * multiply the replicas' memory, so the slots share min(slots, cores, 4) workers (2 on a 2-core machine).
 */
export function defaultWorkerCount(slots: number): number {
  return Math.max(1, Math.min(slots, availableParallelism(), 4));
}

export class Analytics {
  readonly services: Services;
  readonly views: TableViewService;
  readonly limiter: ReportLimiter;
  readonly pool: ReportPool;
  readonly demo: SmartBuildingDemo;
  private readonly testPlan: ReportSpec['plan'];

  constructor(services: Services, settings: AnalyticsSettings = DEFAULT_ANALYTICS_SETTINGS) {
    this.services = services;
    this.views = new TableViewService(services.ctx);
    this.limiter = new ReportLimiter(settings.poolSize, settings.queueCapacity);
    this.pool = new ReportPool(services.ctx.db, {
      workers: settings.workers > 0 ? settings.workers : defaultWorkerCount(this.limiter.slots),
      testDelayMs: settings.testDelayMs,
      idleMs: settings.idleMs,
    });
    this.demo = new SmartBuildingDemo(services, this.views);
    this.testPlan = settings.testPlan;
  }

  private spec(
    config: TableViewConfig,
    overrides: ReportOverrides,
    actor: Principal,
    rows: { maxRows: number; overflow: 'error' | 'truncate' },
  ): ReportSpec {
    const customerId = actor.authority === 'TENANT_ADMIN' ? null : (actor.customerId ?? '');
    const spec = buildReportSpec(config, overrides, { now: this.services.ctx.now(), customerId, ...rows });
    return this.testPlan ? { ...spec, plan: this.testPlan } : spec;
  }

  private execute(spec: ReportSpec, signal?: AbortSignal): Promise<ReportResult> {
    return this.limiter.run(() => this.pool.run(spec), signal);
  }

  /** Runs a saved view (the report API and POST /api/tableView/{id}/report). 404 for an unknown view. */
  async report(
    viewId: string,
    overrides: ReportOverrides,
    actor: Principal,
    signal?: AbortSignal,
  ): Promise<ReportResponse> {
    const view = this.views.get(viewId);
    const spec = this.spec(view.config, overrides, actor, {
      maxRows: TABLE_VIEW_LIMITS.reportRows,
      overflow: 'error',
    });
    const { columnLabels, dataTable } = await this.execute(spec, signal);
    return { columnLabels, dataTable };
  }

  /** Runs an unsaved definition, cut at `limit` rows (the UI's live preview). */
  async preview(
    config: TableViewConfig,
    overrides: ReportOverrides,
    limit: number,
    actor: Principal,
    signal?: AbortSignal,
  ): Promise<PreviewResponse> {
    const started = performance.now();
    this.views.checkConfig(config);
    const spec = this.spec(config, overrides, actor, { maxRows: limit, overflow: 'truncate' });
    const { columnLabels, dataTable, truncated } = await this.execute(spec, signal);
    return {
      columnLabels,
      dataTable,
      truncated,
      elapsedMs: Math.round((performance.now() - started) * 10) / 10,
    };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
