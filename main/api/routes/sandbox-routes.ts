import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { SandboxConflictMode } from '../../../shared/schemas/sandbox.ts';
import { ErrorCode, PlatformError } from '../../platform/errors.ts';
import type { Services } from '../../platform/services.ts';
import type { RuleChainService } from '../../rule-engine/rule-chain-service.ts';
import { authErrors, type Api } from '../route-types.ts';
import { thingsboardParts } from '../sandbox/thingsboard-parts.ts';

const tags = ['Sandboard sandboxes'];
/** what a sandbox upload may be sent as (a browser sends a File as octet-stream) */
const UPLOAD_TYPES = [
  'application/x-ndjson',
  'application/jsonl',
  'application/octet-stream',
  'application/gzip',
];
const Loose = Type.Object({}, { additionalProperties: true });
const flag = Type.Optional(Type.Boolean());
const time = Type.Optional(Type.Integer({ minimum: 0 }));

const ExportQuery = Type.Object({
  history: flag,
  startTs: time,
  endTs: time,
  includePasswords: flag,
  recordings: Type.Optional(Type.Boolean({ description: 'carry the recordings (default true)' })),
  thingsboard: Type.Optional(
    Type.Boolean({ description: 'write the parts ThingsBoard imports in its own formats (default true)' }),
  ),
});
const ImportQuery = Type.Object({
  dryRun: flag,
  replaceAll: Type.Optional(Type.Boolean({ description: 'empty the instance first: it becomes the file' })),
  onConflict: Type.Optional(
    Type.Unsafe<SandboxConflictMode>({
      type: 'string',
      enum: ['replace', 'keep', 'rename'],
      description: 'an entity whose name another one has (default keep)',
    }),
  ),
  wait: Type.Optional(
    Type.Boolean({ description: 'answer when the import is done instead of with a job to poll' }),
  ),
});

/**
 * Sandboxes (tenant administrators, docs/sandboxes.md): export the instance as one file, plan and import
 * one (all or nothing, as a job to poll), and trainer mode's class start.
 */
export async function registerSandboxRoutes(
  root: FastifyInstance,
  { services, ruleChains }: { services: Services; ruleChains?: RuleChainService },
): Promise<void> {
  const sandbox = services.sandbox;
  await root.register(async (scope) => {
    scope.addContentTypeParser(UPLOAD_TYPES, (request, payload, done) => {
      const length = Number(request.headers['content-length'] ?? 0);
      if (length > sandbox.maxImportBytes)
        done(
          new PlatformError(
            413,
            ErrorCode.BAD_REQUEST_PARAMS,
            `The sandbox file is ${length} bytes, more than the ${sandbox.maxImportBytes} allowed (SANDBOARD_SANDBOX_IMPORT_MAX_MB)`,
          ),
          undefined,
        );
      else done(null, payload);
    });
    const app = scope as unknown as Api;
    app.get(
      '/api/sandboard/sandbox/export',
      {
        schema: {
          tags,
          summary:
            'The whole instance as a sandbox file (JSON Lines), streamed; history and passwords only when asked, recordings unless recordings=false',
          querystring: ExportQuery,
          response: { 200: Type.String({ description: 'one JSON value per line' }), ...authErrors },
        },
      },
      async (request, reply) => {
        const q = request.query;
        if (q.startTs !== undefined && q.endTs !== undefined && q.startTs > q.endTs)
          throw new PlatformError(400, ErrorCode.BAD_REQUEST_PARAMS, 'startTs must not be after endTs');
        const lines = sandbox.exportLines({
          history: q.history ?? false,
          ...(q.startTs !== undefined ? { startTs: q.startTs } : {}),
          ...(q.endTs !== undefined ? { endTs: q.endTs } : {}),
          includePasswords: q.includePasswords ?? false,
          without: q.recordings === false ? ['recordings'] : [],
          thingsboard: q.thingsboard === false ? [] : thingsboardParts(services, ruleChains),
        });
        const day = new Date().toISOString().slice(0, 10);
        reply.header('content-type', 'application/x-ndjson; charset=utf-8');
        reply.header('content-disposition', `attachment; filename="sandbox-${day}.sandbox.jsonl"`);
        return reply.send(Readable.from(lines) as never);
      },
    );
    app.post(
      '/api/sandboard/sandbox/import',
      {
        // the body is the file as a stream (checked line by line while read), described for OpenAPI only
        attachValidation: true,
        schema: {
          tags,
          body: Type.Unsafe<unknown>({
            type: 'string',
            format: 'binary',
            description: 'the sandbox file (JSON Lines, gzipped or not)',
          }),
          summary:
            'Import a sandbox file (body: the file, application/octet-stream or x-ndjson, gzipped or not). dryRun answers the plan; else a job to poll (or, with wait, its result). All or nothing.',
          querystring: ImportQuery,
          response: { 200: Loose, 202: Loose, ...authErrors },
        },
      },
      async (request, reply) => {
        const body = request.body as unknown;
        if (!(body instanceof Readable))
          throw new PlatformError(
            415,
            ErrorCode.BAD_REQUEST_PARAMS,
            `Send the sandbox file as the body with content-type ${UPLOAD_TYPES.join(', ')}`,
          );
        const q = request.query;
        const length = Number(request.headers['content-length'] ?? 0) || undefined;
        const parsed = await sandbox.read(body, length);
        const options = { replaceAll: q.replaceAll ?? false, onConflict: q.onConflict ?? 'keep' };
        const plan = await sandbox.plan(parsed, options);
        if (q.dryRun) return plan;
        if (q.wait) return sandbox.apply(parsed, options);
        return reply.code(202).send(sandbox.startJob(parsed, options));
      },
    );
  });
  const app = root as unknown as Api;
  app.get(
    '/api/sandboard/sandbox/import/:jobId',
    {
      schema: {
        tags,
        summary: "An import job's state and progress (0..1), and its result once done",
        params: Type.Object({ jobId: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: Loose, ...authErrors },
      },
    },
    async (request) => sandbox.job(request.params.jobId),
  );
  app.get(
    '/api/sandboard/sandbox/classStart',
    {
      schema: {
        tags,
        summary: 'Whether a class start is saved, and the counts a reset would lose and bring back',
        response: { 200: Loose, ...authErrors },
      },
    },
    async () => sandbox.classStartStatus(),
  );
  app.post(
    '/api/sandboard/sandbox/classStart',
    {
      schema: {
        tags,
        summary: 'Save this instance (history and passwords included) as the class start',
        response: { 200: Loose, ...authErrors },
      },
    },
    async () => sandbox.saveClassStart(),
  );
  app.post(
    '/api/sandboard/sandbox/classStart/reset',
    {
      schema: {
        tags,
        summary: 'Reset to the class start: the saved sandbox comes back exactly and nothing else is kept',
        response: { 200: Loose, ...authErrors },
      },
    },
    async () => sandbox.resetToClassStart(),
  );
}
