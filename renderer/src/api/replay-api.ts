/** Replays of recordings against this Sandboard (/api/sandboard/replays), typed with the server's shapes. */
import type { ReplayRun, StartReplayRequest } from '../../../shared/schemas/replay.ts';
import type { ApiClient } from './client.ts';

export type { ReplayRun, StartReplayRequest };

export function startReplay(client: ApiClient, request: StartReplayRequest): Promise<ReplayRun> {
  return client.request('POST', '/api/sandboard/replays', { body: request });
}

export function replayRun(client: ApiClient, id: string): Promise<ReplayRun> {
  return client.request('GET', `/api/sandboard/replays/${encodeURIComponent(id)}`);
}

export function replayRuns(client: ApiClient): Promise<ReplayRun[]> {
  return client.request('GET', '/api/sandboard/replays');
}

export function stopReplay(client: ApiClient, id: string): Promise<ReplayRun> {
  return client.request('POST', `/api/sandboard/replays/${encodeURIComponent(id)}/stop`);
}
