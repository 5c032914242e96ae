/** React Query hooks of the "Start here" page. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from './api-context.tsx';
import { loadShippedSandbox, shippedSandboxes } from './sandboxes-api.ts';

export const sandboxKeys = { shipped: ['shippedSandboxes'] as const };

/** The catalogue; polled while a load is under way, for its progress. */
export function useShippedSandboxes(enabled = true) {
  const client = useApi();
  return useQuery({
    queryKey: sandboxKeys.shipped,
    enabled,
    queryFn: () => shippedSandboxes(client),
    refetchInterval: (q) => (q.state.data?.data.some((s) => s.status.state === 'LOADING') ? 500 : false),
  });
}

export function useLoadShippedSandbox() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => loadShippedSandbox(client, id),
    onMutate: () => setTimeout(() => void qc.invalidateQueries({ queryKey: sandboxKeys.shipped }), 200),
    onSettled: () => qc.invalidateQueries({ queryKey: sandboxKeys.shipped }),
  });
}
