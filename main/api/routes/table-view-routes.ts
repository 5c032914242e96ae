import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { ErrorResponse, IdParams, PageData, PageQuery } from '../../../shared/schemas/common.ts';
import {
  DemoStatus,
  PreviewRequest,
  PreviewResponse,
  ReportResponse,
  SaveTableViewRequest,
  TableView,
  ViewReportRequest,
} from '../../../shared/schemas/table-view.ts';
import { Analytics } from '../../analytics/analytics.ts';
import { requireTenantAdmin } from '../../platform/auth/principal.ts';
import type { Services } from '../../platform/services.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api } from '../route-types.ts';

export interface TableViewRouteDeps {
  services: Services;
  /** the platform's analytics (shared with the report API server); one of its own when absent */
  analytics?: Analytics;
}

const reportErrors = { ...authErrors, 429: ErrorResponse, 500: ErrorResponse, 503: ErrorResponse };

/** Aborts when the client goes away before the answer: a report still waiting for a slot leaves the queue. */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * Table views (saved report definitions), running them (saved or as a live preview) through the
 * report slots the report API uses, and the smart-building demo data.
 */
export function registerTableViewRoutes(app: Api, deps: TableViewRouteDeps): void {
  let analytics = deps.analytics;
  if (!analytics) {
    const own = new Analytics(deps.services);
    app.addHook('onClose', async () => own.close());
    analytics = own;
  }
  const a = analytics;
  const tags = ['Table views'];

  app.post(
    '/api/tableView',
    {
      schema: {
        tags,
        summary: 'Create a table view, or update the one named by id (400 names the offending field)',
        body: SaveTableViewRequest,
        response: { 200: TableView, ...authErrors },
      },
    },
    async (request) => a.views.save(request.body, principalOf(request)),
  );
  app.get(
    '/api/tableView/:id',
    {
      schema: {
        tags,
        summary: 'A table view with its definition and column labels',
        params: IdParams,
        response: { 200: TableView, ...authErrors },
      },
    },
    async (request) => {
      principalOf(request);
      return a.views.get(request.params.id);
    },
  );
  app.get(
    '/api/tableViews',
    {
      schema: {
        tags,
        summary: 'Table views a page at a time',
        querystring: PageQuery(['createdTime', 'name'] as const),
        response: { 200: PageData(TableView), ...authErrors },
      },
    },
    async (request) => {
      principalOf(request);
      return a.views.page(request.query);
    },
  );
  app.delete(
    '/api/tableView/:id',
    { schema: { tags, summary: 'Delete a table view', params: IdParams, response: emptyOk } },
    async (request, reply) => {
      await a.views.delete(request.params.id, principalOf(request));
      return reply.code(200).send(undefined);
    },
  );
  app.post(
    '/api/tableView/preview',
    {
      schema: {
        tags,
        summary:
          'Run an unsaved table view definition (live preview), cut at limit rows; shares the report slots (429 when full)',
        body: PreviewRequest,
        response: { 200: PreviewResponse, ...reportErrors },
      },
    },
    async (request, reply) => {
      const { config, limit, ...overrides } = request.body;
      return a.preview(config, overrides, limit ?? 1000, principalOf(request), clientGone(reply));
    },
  );
  app.post(
    '/api/tableView/:id/report',
    {
      schema: {
        tags,
        summary:
          "Run a saved table view, as the report API's buildReport does (range and filters override the view's)",
        params: IdParams,
        body: Type.Union([ViewReportRequest, Type.Null()], { description: 'overrides, or no body' }),
        response: { 200: ReportResponse, ...reportErrors },
      },
    },
    async (request, reply) =>
      a.report(request.params.id, request.body ?? {}, principalOf(request), clientGone(reply)),
  );

  const demoTags = ['Demo data'];
  const DEMO = '/api/sandboard/demo/smart-building';
  app.post(
    DEMO,
    {
      schema: {
        tags: demoTags,
        summary:
          'Load the smart-building demo (60 meters, 30 days of hourly readings, 3 table views); idempotent. Answers at once with the progress unless wait=true',
        querystring: Type.Object({
          wait: Type.Optional(Type.Boolean({ description: 'answer when the load has finished' })),
        }),
        body: Type.Union([Type.Object({}), Type.Null()], { description: 'no body, or {}' }),
        response: { 200: DemoStatus, ...authErrors },
      },
    },
    async (request) => {
      const p = principalOf(request);
      const done = a.demo.start(p); // the load reports its own failure in the status; it never rejects
      if (request.query.wait) return done;
      return a.demo.status();
    },
  );
  app.get(
    DEMO,
    {
      schema: {
        tags: demoTags,
        summary: 'Progress of the smart-building demo load (state, percent, rows written)',
        response: { 200: DemoStatus, ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return a.demo.status();
    },
  );
}
