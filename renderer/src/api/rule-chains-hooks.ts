/** React Query hooks of the rule chain list, its actions, node debug events and message traces. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { RuleChainFile, SaveRuleChainRequest } from '../../../shared/rule-engine.ts';
import { useApi } from './api-context.tsx';
import { queryKeys } from './query-keys.ts';
import {
  clearNodeDebugEvents,
  deleteRuleChain,
  importRuleChainFile,
  importRuleChains,
  messageTrace,
  nodeDebugEvents,
  ruleChainOutputLabels,
  ruleChainsOfType,
  saveRuleChain,
  setRootRuleChain,
  type RuleChain,
  type RuleChainData,
} from './rule-chains-api.ts';

/** Keys under queryKeys.ruleChains, so what refreshes the chain list refreshes these too. */
const keys = {
  all: (type: string) => [...queryKeys.ruleChains, 'all', type] as const,
  outputLabels: (id: string) => ['ruleChainOutputLabels', id] as const,
  nodeEvents: (nodeId: string) => ['ruleNodeEvents', nodeId] as const,
  trace: (traceId: string) => ['messageTrace', traceId] as const,
};

/** Every chain, CORE then EDGE, each by name. */
export function useAllRuleChains(enabled: boolean) {
  const client = useApi();
  const core = useQuery({
    queryKey: keys.all('CORE'),
    queryFn: () => ruleChainsOfType(client, 'CORE'),
    enabled,
  });
  const edge = useQuery({
    queryKey: keys.all('EDGE'),
    queryFn: () => ruleChainsOfType(client, 'EDGE'),
    enabled,
  });
  return {
    data: core.data && edge.data ? [...core.data, ...edge.data] : undefined,
    error: core.error ?? edge.error,
    isPending: core.isPending || edge.isPending,
  };
}

function useChainMutation<A, R>(fn: (client: ReturnType<typeof useApi>, arg: A) => Promise<R>) {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (arg: A) => fn(client, arg),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.ruleChains }),
  });
}

export const useSaveRuleChain = () =>
  useChainMutation((client, body: SaveRuleChainRequest) => saveRuleChain(client, body));
export const useDeleteRuleChain = () => useChainMutation((client, id: string) => deleteRuleChain(client, id));
export const useSetRootRuleChain = () =>
  useChainMutation((client, chain: RuleChain) => setRootRuleChain(client, chain));
export const useImportRuleChainFile = () =>
  useChainMutation((client, file: RuleChainFile) => importRuleChainFile(client, file));
export const useImportRuleChains = () =>
  useChainMutation((client, data: RuleChainData) => importRuleChains(client, data));

/** The output labels of the chain a rule chain node calls (its relations). */
export function useRuleChainOutputLabels(id: string | undefined) {
  const client = useApi();
  return useQuery({
    queryKey: keys.outputLabels(id ?? ''),
    queryFn: () => ruleChainOutputLabels(client, id!),
    enabled: id !== undefined,
    retry: false,
  });
}

/** A node's debug events, newest first, refreshed while shown. */
export function useNodeDebugEvents(nodeId: string | undefined, refreshMs = 2_000) {
  const client = useApi();
  return useQuery({
    queryKey: keys.nodeEvents(nodeId ?? ''),
    queryFn: () => nodeDebugEvents(client, nodeId!),
    enabled: nodeId !== undefined,
    refetchInterval: refreshMs,
  });
}

export function useClearNodeDebugEvents() {
  const client = useApi();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (nodeId: string) => clearNodeDebugEvents(client, nodeId),
    onSuccess: (_, nodeId) => qc.invalidateQueries({ queryKey: keys.nodeEvents(nodeId) }),
  });
}

/** A message's way through the nodes that recorded it. */
export function useMessageTrace(traceId: string | undefined) {
  const client = useApi();
  return useQuery({
    queryKey: keys.trace(traceId ?? ''),
    queryFn: () => messageTrace(client, traceId!),
    enabled: traceId !== undefined,
  });
}
