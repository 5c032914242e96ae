import { Type } from 'typebox';
import { IdParams } from '../../../shared/schemas/common.ts';
import { ReplayRun, StartReplayRequest } from '../../../shared/schemas/replay.ts';
import { requireTenantAdmin } from '../../platform/auth/principal.ts';
import { ErrorCode, notFound, PlatformError } from '../../platform/errors.ts';
import { ReplayManager, ReplayRequestError, type ReplayManagerDeps } from '../../replay/replay-manager.ts';
import type { Recordings } from '../../recording/recordings.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, type Api } from '../route-types.ts';
import { runErrors } from './runnable-resource-routes.ts';

const BASE = '/api/sandboard/replays';

/** A saved recording's whole text (as downloaded: its header with the current name); undefined: no such one. */
export async function readRecordingText(recordings: Recordings, id: string): Promise<string | undefined> {
  let file: Awaited<ReturnType<Recordings['download']>>;
  try {
    file = await recordings.download(id);
  } catch (err) {
    if (err instanceof PlatformError && err.status === 404) return undefined;
    throw err;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of file.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
const tags = ['Replay'];
/** A recording sent as text in the request (the file a user picked). */
const REPLAY_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Replays of recordings against this Sandboard (tenant administrators: a replay creates devices): start
 * one, follow its progress, read its report (expected against actual for each check), stop it.
 */
export function registerReplayRoutes(app: Api, deps: ReplayManagerDeps): ReplayManager {
  const manager = new ReplayManager(deps);
  app.addHook('onClose', async () => manager.close());
  const admin = (request: Parameters<typeof principalOf>[0]) => requireTenantAdmin(principalOf(request));
  const found = (id: string) => {
    const run = manager.get(id);
    if (!run) throw notFound(`Replay ${id} is not found`);
    return run;
  };

  app.post(
    BASE,
    {
      bodyLimit: REPLAY_BODY_LIMIT_BYTES,
      schema: {
        tags,
        summary:
          'Replay a recording (saved, by recordingId, or its text) against this Sandboard: 400 names each bad line and path, or the profiles missing here, before anything is written',
        body: StartReplayRequest,
        response: { 200: ReplayRun, ...runErrors },
      },
    },
    async (request) => {
      admin(request);
      try {
        return await manager.start(request.body, String(request.headers['x-authorization'] ?? ''));
      } catch (err) {
        if (!(err instanceof ReplayRequestError)) throw err;
        const code = err.status === 404 ? ErrorCode.ITEM_NOT_FOUND : ErrorCode.INVALID_ARGUMENTS;
        throw new PlatformError(err.status, err.status === 409 ? ErrorCode.GENERAL : code, err.message);
      }
    },
  );
  app.get(
    BASE,
    {
      schema: {
        tags,
        summary: 'The latest replays with their progress (newest first)',
        response: { 200: Type.Array(ReplayRun), ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.list();
    },
  );
  app.get(
    `${BASE}/:id`,
    {
      schema: {
        tags,
        summary:
          'A replay: its progress (messages sent, checks passed and failed) and, once ended, its report',
        params: IdParams,
        response: { 200: ReplayRun, ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return found(request.params.id);
    },
  );
  app.post(
    `${BASE}/:id/stop`,
    {
      schema: {
        tags,
        summary: 'Stop a running replay (what was sent stays sent)',
        params: IdParams,
        response: { 200: ReplayRun, ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      found(request.params.id);
      return manager.stop(request.params.id)!;
    },
  );
  return manager;
}
