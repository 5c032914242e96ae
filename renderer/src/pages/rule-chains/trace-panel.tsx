import { Alert, Badge, Button, Group, Paper, ScrollArea, Skeleton, Stack, Text } from '@mantine/core';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatTime } from '../../components/format.ts';
import type { TraceVisit } from './trace-model.ts';

/**
 * "Follow this message": the nodes one message (and what it became: splits, delays, other chains) went
 * through, in order, numbered as on the graph. A step of this chain selects its node; a step of another
 * chain opens that chain.
 */
export function TracePanel({
  visits,
  loading,
  error,
  chainId,
  chainName,
  onShow,
  onClose,
}: {
  visits: TraceVisit[] | undefined;
  loading: boolean;
  error: unknown;
  chainId: string;
  chainName: (id: string) => string;
  onShow: (visit: TraceVisit) => void;
  onClose: () => void;
}) {
  const chains = new Set(visits?.map((v) => v.ruleChainId));
  return (
    <Stack gap="sm" data-testid="trace-panel">
      <Group justify="space-between">
        <Text fw={600}>The message’s way</Text>
        <Button size="compact-xs" variant="subtle" onClick={onClose} data-testid="trace-close">
          Stop following
        </Button>
      </Group>
      <Text size="xs" c="dimmed">
        Only nodes whose debug records all messages show here; the numbers are on the graph.
        {chains.size > 1 ? ` It went through ${chains.size} chains.` : ''}
      </Text>
      <ErrorAlert error={error} title="Could not load the message's way" />
      {loading && <Skeleton h={120} />}
      {visits && visits.length === 0 && (
        <Alert color="gray" variant="light">
          No node recorded this message any more (each node keeps its last 100 events).
        </Alert>
      )}
      <ScrollArea.Autosize mah={520} type="auto">
        <Stack gap={6}>
          {visits?.map((v) => {
            const here = v.ruleChainId === chainId;
            const errors = v.outs.filter((o) => o.error);
            return (
              <Paper
                key={v.step}
                withBorder
                p={6}
                radius="sm"
                data-testid="trace-step-row"
                data-node={v.nodeName}
              >
                <Group justify="space-between" wrap="nowrap" align="flex-start">
                  <Group gap={6} wrap="nowrap" align="flex-start" style={{ minWidth: 0 }}>
                    <Badge
                      size="sm"
                      color="orange"
                      variant="filled"
                      circle={v.step < 10}
                      style={{ flexShrink: 0 }}
                    >
                      {v.step}
                    </Badge>
                    <div style={{ minWidth: 0 }}>
                      <Text size="sm" fw={600}>
                        {v.nodeName}
                      </Text>
                      {!here && (
                        <Text size="xs" c="dimmed">
                          in {chainName(v.ruleChainId)}
                        </Text>
                      )}
                      <Text size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                        {v.in
                          ? `${v.in.msgType}${v.in.relation ? ` via ${v.in.relation}` : ''}`
                          : 'sent by the node'}
                        {v.outs.length > 0 && ` → ${v.outs.map((o) => o.relation ?? '?').join(', ')}`}
                        {v.in && v.outs.length === 0 && ' → nothing (or not recorded)'}
                      </Text>
                      {errors.map((o) => (
                        <Text key={o.id} size="xs" c="red">
                          {o.error}
                        </Text>
                      ))}
                      <Text size="xs" c="dimmed">
                        {formatTime((v.in ?? v.outs[0]!).ts)}
                      </Text>
                    </div>
                  </Group>
                  <Button
                    size="compact-xs"
                    variant="light"
                    onClick={() => onShow(v)}
                    data-testid="trace-show"
                    style={{ flexShrink: 0 }}
                  >
                    {here ? 'Show' : 'Open chain'}
                  </Button>
                </Group>
              </Paper>
            );
          })}
        </Stack>
      </ScrollArea.Autosize>
    </Stack>
  );
}
