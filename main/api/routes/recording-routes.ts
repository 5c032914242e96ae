import { Type } from 'typebox';
import {
  RecordingInfo,
  RecordingList,
  RenameRecording,
  StartRecording,
} from '../../../shared/schemas/recordings-api.ts';
import type { Recordings } from '../../recording/recordings.ts';
import { authErrors, emptyOk, type Api } from '../route-types.ts';

const tags = ['Sandboard recordings'];
const params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/** A file name of ASCII letters, digits, dots, dashes and underscores. */
const fileName = (name: string) =>
  `${name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100) || 'recording'}.ndjson`;

/**
 * Recordings (tenant administrators): start one with a duration and a filter, follow its counters, stop
 * it, rename, delete, and download its file (docs/recordings.md).
 */
export function registerRecordingRoutes(app: Api, { recordings }: { recordings: Recordings }): void {
  app.get(
    '/api/sandboard/recordings',
    {
      schema: {
        tags,
        summary: 'Every recording, newest first, with the bounds and what the files take',
        response: { 200: RecordingList, ...authErrors },
      },
    },
    async () => recordings.list(),
  );
  app.post(
    '/api/sandboard/recordings',
    {
      schema: {
        tags,
        summary: 'Start recording device and gateway traffic and its outcomes for durationMs',
        body: StartRecording,
        response: { 200: RecordingInfo, ...authErrors },
      },
    },
    async (request) => recordings.start(request.body),
  );
  app.get(
    '/api/sandboard/recordings/:id',
    {
      schema: {
        tags,
        summary: 'One recording, with its live counters while it records',
        params,
        response: { 200: RecordingInfo, ...authErrors },
      },
    },
    async (request) => recordings.get(request.params.id),
  );
  app.put(
    '/api/sandboard/recordings/:id',
    {
      schema: {
        tags,
        summary: 'Rename a recording',
        params,
        body: RenameRecording,
        response: { 200: RecordingInfo, ...authErrors },
      },
    },
    async (request) => recordings.rename(request.params.id, request.body.name),
  );
  app.post(
    '/api/sandboard/recordings/:id/stop',
    {
      schema: {
        tags,
        summary: 'Stop a recording before its duration is over (its end record says so)',
        params,
        response: { 200: RecordingInfo, ...authErrors },
      },
    },
    async (request) => recordings.stop(request.params.id),
  );
  app.delete(
    '/api/sandboard/recordings/:id',
    {
      schema: {
        tags,
        summary: 'Delete a recording and its file (one under way is stopped)',
        params,
        response: emptyOk,
      },
    },
    async (request) => {
      await recordings.delete(request.params.id);
      return '';
    },
  );
  app.get(
    '/api/sandboard/recordings/:id/file',
    {
      schema: {
        tags,
        summary: 'The recording as JSON Lines (of one under way, what is written so far)',
        params,
        response: { 200: Type.String({ description: 'one record per line' }), ...authErrors },
      },
    },
    async (request, reply) => {
      const { name, stream } = await recordings.download(request.params.id);
      reply.header('content-type', 'application/x-ndjson; charset=utf-8');
      reply.header('content-disposition', `attachment; filename="${fileName(name)}"`);
      return reply.send(stream as never);
    },
  );
}
