/** React Query hooks of replays: start one, follow it while it runs, the recent ones. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from './api-context.tsx';
import { replayRun, replayRuns, startReplay, stopReplay, type StartReplayRequest } from './replay-api.ts';

export const replayKeys = {
  all: ['replays'] as const,
  one: (id: string) => ['replays', 'one', id] as const,
};

/** How often a running replay's progress is read. */
const PROGRESS_REFRESH_MS = 300;
/** How often the list is read while one of its replays runs. */
const LIST_REFRESH_MS = 1_000;

export function useReplayRuns(enabled = true) {
  const client = useApi();
  return useQuery({
    queryKey: replayKeys.all,
    queryFn: () => replayRuns(client),
    enabled,
    refetchInterval: (query) =>
      query.state.data?.some((r) => r.progress.state === 'running') ? LIST_REFRESH_MS : false,
  });
}

/** A replay, read again while it runs (its progress bar and counters), once more when it ends. */
export function useReplayRun(id: string | undefined) {
  const client = useApi();
  return useQuery({
    queryKey: replayKeys.one(id ?? ''),
    queryFn: () => replayRun(client, id!),
    enabled: id !== undefined,
    refetchInterval: (query) =>
      query.state.data?.progress.state === 'running' ? PROGRESS_REFRESH_MS : false,
  });
}

export function useStartReplay() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (request: StartReplayRequest) => startReplay(client, request),
    onSuccess: (run) => {
      qc.setQueryData(replayKeys.one(run.id), run);
      void qc.invalidateQueries({ queryKey: replayKeys.all });
    },
  });
}

export function useStopReplay() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => stopReplay(client, id),
    onSuccess: (run) => void qc.invalidateQueries({ queryKey: replayKeys.one(run.id) }),
  });
}
