import {
  Alert,
  Anchor,
  Badge,
  Card,
  Grid,
  Group,
  Paper,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useState } from 'react';
import type { RuleChain, RuleChainMetadata } from '../api/client.ts';
import { useCurrentUser, useRuleChainMetadata, useRuleChains } from '../api/hooks.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { formatDateTime } from '../components/format.ts';
import { PageHeader } from '../components/page-header.tsx';
import { Link } from '../router.tsx';

/** "org.thingsboard.rule.engine.telemetry.TbMsgTimeseriesNode" → "TbMsgTimeseriesNode" */
function shortType(type: string): string {
  return type.slice(type.lastIndexOf('.') + 1);
}

function ChainList({
  chains,
  selected,
  onSelect,
}: {
  chains: RuleChain[];
  selected: string | undefined;
  onSelect: (id: string) => void;
}) {
  return (
    <Paper withBorder radius="md">
      <Table highlightOnHover verticalSpacing="sm" data-testid="rule-chains-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Created</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {chains.map((chain) => (
            <Table.Tr
              key={chain.id.id}
              bg={chain.id.id === selected ? 'var(--mantine-color-default-hover)' : undefined}
            >
              <Table.Td>
                <UnstyledButton onClick={() => onSelect(chain.id.id)} aria-pressed={chain.id.id === selected}>
                  <Group gap="xs">
                    <Text size="sm" fw={600}>
                      {chain.name}
                    </Text>
                    {chain.root && (
                      <Badge size="xs" variant="light">
                        root
                      </Badge>
                    )}
                  </Group>
                </UnstyledButton>
              </Table.Td>
              <Table.Td>
                <Text size="xs" c="dimmed">
                  {formatDateTime(chain.createdTime)}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}

/** A chain's nodes and where each relation leads, as tables (the graphical editor comes later). */
function ChainNodes({ metadata }: { metadata: RuleChainMetadata }) {
  const name = (i: number) => metadata.nodes[i]?.name ?? `#${i}`;
  return (
    <Stack gap="md">
      <Card withBorder radius="md" p="md">
        <Title order={5} mb="xs">
          Nodes
        </Title>
        <Table verticalSpacing={6} data-testid="rule-chain-nodes">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Type</Table.Th>
              <Table.Th>Configuration</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {metadata.nodes.map((node, i) => (
              <Table.Tr key={node.id?.id ?? i}>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <Text size="sm">{node.name}</Text>
                    {metadata.firstNodeIndex === i && (
                      <Badge size="xs" variant="outline">
                        first
                      </Badge>
                    )}
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Text size="xs" ff="monospace" title={node.type}>
                    {shortType(node.type)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
                    {JSON.stringify(node.configuration)}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Card>
      <Card withBorder radius="md" p="md">
        <Title order={5} mb="xs">
          Connections
        </Title>
        {(metadata.connections ?? []).length === 0 ? (
          <Text size="sm" c="dimmed">
            None.
          </Text>
        ) : (
          <Table verticalSpacing={6}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>From</Table.Th>
                <Table.Th>Relation</Table.Th>
                <Table.Th>To</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(metadata.connections ?? []).map((c, i) => (
                <Table.Tr key={i}>
                  <Table.Td>{name(c.fromIndex)}</Table.Td>
                  <Table.Td>
                    <Badge variant="light" size="sm">
                      {c.type}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{name(c.toIndex)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Card>
    </Stack>
  );
}

export default function RuleChainsPage() {
  const user = useCurrentUser();
  const isAdmin = user.data?.authority === 'TENANT_ADMIN';
  const chains = useRuleChains(isAdmin);
  const [chosen, setChosen] = useState<string | undefined>();
  const list = chains.data?.data ?? [];
  const selected = chosen ?? list.find((c) => c.root)?.id.id ?? list[0]?.id.id;
  const metadata = useRuleChainMetadata(selected);

  return (
    <Stack gap="lg">
      <PageHeader title="Rule Chains" description="How incoming messages are processed, node by node." />
      <Alert variant="light" color="gray" data-testid="arrives-later">
        <Text size="sm">
          Read-only for now: the graphical chain editor arrives in a later step. Chains can be changed today
          with <code>POST /api/ruleChain/metadata</code> in the{' '}
          <Anchor component={Link} to="/api-explorer" size="sm">
            API Explorer
          </Anchor>
          .
        </Text>
      </Alert>
      {user.data && !isAdmin && (
        <Text size="sm" c="dimmed">
          Rule chains belong to the tenant administrator.
        </Text>
      )}
      <ErrorAlert error={chains.error} title="Could not load the rule chains" />
      {isAdmin && !chains.data && !chains.error && <Skeleton h={120} />}
      {list.length > 0 && (
        <Grid>
          <Grid.Col span={{ base: 12, lg: 4 }}>
            <ChainList chains={list} selected={selected} onSelect={setChosen} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 8 }}>
            <ErrorAlert error={metadata.error} title="Could not load the chain's nodes" />
            {metadata.data ? (
              <ChainNodes metadata={metadata.data} />
            ) : (
              !metadata.error && <Skeleton h={200} />
            )}
          </Grid.Col>
        </Grid>
      )}
    </Stack>
  );
}
