import { Badge, Group, Select, Skeleton, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useCurrentUser, useRuleChainMetadata, useRuleChains, useRuleNodeTypes } from '../api/hooks.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { PageHeader } from '../components/page-header.tsx';
import { ChainEditor } from './rule-chains/chain-editor.tsx';

export default function RuleChainsPage() {
  const user = useCurrentUser();
  const isAdmin = user.data?.authority === 'TENANT_ADMIN';
  const chains = useRuleChains(isAdmin);
  const types = useRuleNodeTypes(isAdmin);
  const [chosen, setChosen] = useState<string | undefined>();
  const list = chains.data?.data ?? [];
  const selected = chosen ?? list.find((c) => c.root)?.id.id ?? list[0]?.id.id;
  const chain = list.find((c) => c.id.id === selected);
  const metadata = useRuleChainMetadata(selected);

  return (
    <Stack gap="md">
      <PageHeader
        title="Rule Chains"
        description="How incoming messages are processed, node by node. Edit the graph, then save: the engine runs it at once."
        actions={
          list.length > 1 && (
            <Select
              aria-label="Rule chain"
              data={list.map((c) => ({ value: c.id.id, label: c.root ? `${c.name} (root)` : c.name }))}
              value={selected ?? null}
              onChange={(v) => v && setChosen(v)}
              allowDeselect={false}
              w={260}
            />
          )
        }
      />
      {user.data && !isAdmin && (
        <Text size="sm" c="dimmed">
          Rule chains belong to the tenant administrator.
        </Text>
      )}
      {chain && (
        <Group gap="xs">
          <Text fw={600} data-testid="rule-chain-name">
            {chain.name}
          </Text>
          {chain.root && (
            <Badge size="sm" variant="light">
              root
            </Badge>
          )}
        </Group>
      )}
      <ErrorAlert error={chains.error ?? types.error} title="Could not load the rule chains" />
      <ErrorAlert error={metadata.error} title="Could not load the chain's nodes" />
      {isAdmin && (!metadata.data || !types.data) && !chains.error && !metadata.error && <Skeleton h={360} />}
      {selected && metadata.data && types.data && (
        <ChainEditor key={selected} metadata={metadata.data} types={types.data} />
      )}
    </Stack>
  );
}
