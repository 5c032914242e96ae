import { Alert, List, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/api-context.tsx';

interface NodeStatus {
  id: string;
  name: string;
  running: boolean;
  problem: string | null;
}

/**
 * The chain's nodes the rule engine does not run, and why: a script suspended after running away, a node
 * suspended because the server stopped while it ran, a node that could not start. Saving the chain runs
 * them again. Looked at again every few seconds (a script may be suspended while the chain is open).
 */
export function StoppedNodes({ chainId }: { chainId: string }) {
  const client = useApi();
  const { data } = useQuery({
    queryKey: ['ruleChainNodeStatus', chainId],
    queryFn: () =>
      client.request<NodeStatus[]>(
        'GET',
        `/api/sandboard/ruleChain/${encodeURIComponent(chainId)}/nodeStatus`,
      ),
    refetchInterval: 5_000,
  });
  const stopped = (data ?? []).filter((n) => !n.running && n.problem);
  if (stopped.length === 0) return null;
  return (
    <Alert color="orange" variant="light" title="Not running" data-testid="stopped-nodes">
      <List size="sm" spacing={2}>
        {stopped.map((n) => (
          <List.Item key={n.id}>
            <Text span size="sm" fw={600}>
              {n.name}
            </Text>
            : {n.problem}
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}
