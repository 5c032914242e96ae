/**
 * The report API on --analytics-port (Trendz's public API):
 *   POST /apiAnalytics/publicApi/buildReport?jwt=<token>   (also /apiTrendz/publicApi/buildReport)
 * with the JWT from POST /api/auth/login as query parameter `jwt` or header `jwt`. Invalid or expired
 * token: 403. Content-Type other than application/json: 415. Body checked (400 names the field),
 * unknown view: 404, unknown filter name: 400, slots and queue full: 429. OpenAPI at GET /v3/api-docs.
 */
import { lazySchemaController } from './lazy-schema-compilers.ts';
import swagger from '@fastify/swagger';
import { installSocketClosing, REQUEST_RECEIVE_TIMEOUT_MS } from './socket-closing.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { ErrorResponse } from '../../shared/schemas/common.ts';
import { ReportRequest, ReportResponse } from '../../shared/schemas/table-view.ts';
import { errorServerOptions, installErrorHandlers } from './errors.ts';
import { installHostCheck } from './host-check.ts';
import { installJsonBodyParser } from './json-body.ts';
import { installShellProof } from './shell-proof.ts';
import { clientGone } from './routes/table-view-routes.ts';
import type { Principal } from '../platform/auth/principal.ts';
import { ErrorCode, PlatformError } from '../platform/errors.ts';
import type { Analytics } from '../analytics/analytics.ts';

export interface ReportApiServerOptions {
  host: string;
  port: number;
  bodyLimitBytes: number;
  allowedHosts: Set<string>;
  logLevel: string;
  version: string;
  /** desktop installs: the shell's per-launch secret (see shell-proof.ts) */
  shellSecret?: string;
}

export const REPORT_PATHS = ['/apiAnalytics/publicApi/buildReport', '/apiTrendz/publicApi/buildReport'];

declare module 'fastify' {
  interface FastifyRequest {
    reportPrincipal?: Principal;
  }
}

function jwtOf(request: FastifyRequest): string | undefined {
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.jwt;
  if (typeof fromQuery === 'string' && fromQuery !== '') return fromQuery;
  const header = request.headers.jwt;
  const value = Array.isArray(header) ? header[0] : header;
  return value ? value.trim() : undefined;
}

/** 403 for a missing, invalid or expired JWT (the report API's rule; the platform REST answers 401). */
function authenticate(analytics: Analytics, request: FastifyRequest): Principal {
  const jwt = jwtOf(request);
  if (!jwt)
    throw new PlatformError(
      403,
      ErrorCode.AUTHENTICATION,
      'No JWT: pass the token from POST /api/auth/login as the query parameter jwt or the header jwt',
    );
  try {
    return analytics.services.auth.authenticate(`Bearer ${jwt}`);
  } catch (err) {
    if (err instanceof PlatformError) throw new PlatformError(403, err.errorCode, err.message);
    throw err;
  }
}

export async function startReportApiServer(
  analytics: Analytics,
  options: ReportApiServerOptions,
): Promise<FastifyInstance> {
  const app = Fastify({
    ...errorServerOptions(),
    bodyLimit: options.bodyLimitBytes,
    requestTimeout: REQUEST_RECEIVE_TIMEOUT_MS,
    logger: { level: options.logLevel, stream: process.stderr },
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    schemaController: lazySchemaController(),
  }).withTypeProvider<TypeBoxTypeProvider>();
  installErrorHandlers(app);
  installSocketClosing(app);
  installJsonBodyParser(app);
  installShellProof(app, options.shellSecret);
  installHostCheck(app, options.allowedHosts);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Sandboard report API',
        version: options.version,
        description:
          "Trendz-compatible report API: runs a saved table view (created in the platform's REST API, /api/tableView) and returns its rows. Errors: {status, message, errorCode, timestamp}.",
      },
      components: {
        securitySchemes: {
          JwtQuery: {
            type: 'apiKey',
            in: 'query',
            name: 'jwt',
            description: 'token from POST /api/auth/login',
          },
          JwtHeader: {
            type: 'apiKey',
            in: 'header',
            name: 'jwt',
            description: 'token from POST /api/auth/login',
          },
        },
      },
      security: [{ JwtQuery: [] }, { JwtHeader: [] }],
    },
  });
  app.get('/v3/api-docs', { schema: { hide: true } }, async () => app.swagger());

  for (const url of REPORT_PATHS) {
    app.post(
      url,
      {
        schema: {
          tags: ['Reports'],
          summary:
            "Build the report of a table view; rangeStartTs / rangeEndTs and filters override the view's (end exclusive)",
          body: ReportRequest,
          response: {
            200: ReportResponse,
            400: ErrorResponse,
            403: ErrorResponse,
            404: ErrorResponse,
            415: ErrorResponse,
            429: ErrorResponse,
          },
        },
        onRequest: async (request) => {
          request.reportPrincipal = authenticate(analytics, request);
          const type = request.headers['content-type'] ?? '';
          if (!/^application\/json\s*(;|$)/i.test(type))
            throw new PlatformError(
              415,
              ErrorCode.BAD_REQUEST_PARAMS,
              `Unsupported Content-Type '${type}': send the report request as JSON with the header Content-Type: application/json`,
            );
        },
      },
      async (request, reply) => {
        const { viewConfigId, ...overrides } = request.body;
        return analytics.report(viewConfigId, overrides, request.reportPrincipal!, clientGone(reply));
      },
    );
  }
  await app.listen({ host: options.host, port: options.port });
  return app;
}
