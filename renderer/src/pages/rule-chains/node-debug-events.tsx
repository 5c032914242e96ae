import { Badge, Code, Group, ScrollArea, Stack, Text } from '@mantine/core';
import type { RuleNodeJson } from '../../../../shared/rule-engine.ts';
import { useRuleNodeDebugEvents } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatTime } from '../../components/format.ts';

const SHOWN = 30;

/** The node's last messages in and out with the relation taken; refreshed every 2 s while shown. */
export function NodeDebugEvents({ node, savedDebug }: { node: RuleNodeJson; savedDebug: boolean }) {
  const id = node.id?.id;
  const events = useRuleNodeDebugEvents(id && savedDebug ? id : undefined);
  if (!id || !savedDebug) {
    return (
      <Text size="sm" c="dimmed" data-testid="debug-events-off">
        {node.debugMode
          ? 'Save the chain to start recording this node’s messages.'
          : 'Turn debug mode on (and save) to record the messages that go in and out of this node.'}
      </Text>
    );
  }
  const list = [...(events.data ?? [])].sort((a, b) => b.ts - a.ts).slice(0, SHOWN);
  return (
    <Stack gap="xs" data-testid="debug-events">
      <ErrorAlert error={events.error} title="Could not load the debug events" />
      {events.data && list.length === 0 && (
        <Text size="sm" c="dimmed">
          No messages yet: send the device some telemetry.
        </Text>
      )}
      <ScrollArea.Autosize mah={360}>
        <Stack gap={6}>
          {list.map((e, i) => (
            <Stack key={`${e.ts}-${i}`} gap={2} data-testid="debug-event" data-direction={e.direction}>
              <Group gap={6}>
                <Badge size="xs" variant="light" color={e.direction === 'IN' ? 'blue' : 'teal'}>
                  {e.direction}
                </Badge>
                {e.relation && (
                  <Badge size="xs" variant="outline" tt="none">
                    {e.relation}
                  </Badge>
                )}
                <Text size="xs" ff="monospace">
                  {e.msgType}
                </Text>
                <Text size="xs" c="dimmed">
                  {formatTime(e.ts)}
                </Text>
              </Group>
              <Code block style={{ fontSize: 11, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                {JSON.stringify(e.data)}
              </Code>
              {e.error && (
                <Text size="xs" c="red">
                  {e.error}
                </Text>
              )}
            </Stack>
          ))}
        </Stack>
      </ScrollArea.Autosize>
    </Stack>
  );
}
