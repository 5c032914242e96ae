/** React Query hooks of the recordings: the list, one recording's live counters, and what changes them. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from './api-context.tsx';
import {
  deleteRecording,
  getRecording,
  listRecordings,
  renameRecording,
  startRecording,
  stopRecording,
  type StartRecording,
} from './recordings-api.ts';

export const recordingKeys = {
  all: ['recordings'] as const,
  one: (id: string) => ['recordings', id] as const,
};

/** Counters move while a recording records: read again this often then. */
const LIVE_MS = 1_000;
const IDLE_MS = 10_000;

export function useRecordings() {
  const client = useApi();
  return useQuery({
    queryKey: recordingKeys.all,
    queryFn: () => listRecordings(client),
    refetchInterval: (q) =>
      q.state.data?.recordings.some((r) => r.state === 'recording') ? LIVE_MS : IDLE_MS,
  });
}

export function useRecording(id: string | null) {
  const client = useApi();
  return useQuery({
    queryKey: recordingKeys.one(id ?? ''),
    queryFn: () => getRecording(client, id!),
    enabled: id !== null,
    refetchInterval: (q) => (q.state.data?.state === 'recording' ? LIVE_MS : false),
  });
}

function useRecordingMutation<A, R>(fn: (a: A) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => qc.invalidateQueries({ queryKey: recordingKeys.all }),
  });
}

export function useStartRecording() {
  const client = useApi();
  return useRecordingMutation((body: StartRecording) => startRecording(client, body));
}

export function useStopRecording() {
  const client = useApi();
  return useRecordingMutation((id: string) => stopRecording(client, id));
}

export function useRenameRecording() {
  const client = useApi();
  return useRecordingMutation(({ id, name }: { id: string; name: string }) =>
    renameRecording(client, id, name),
  );
}

export function useDeleteRecording() {
  const client = useApi();
  return useRecordingMutation((id: string) => deleteRecording(client, id));
}
