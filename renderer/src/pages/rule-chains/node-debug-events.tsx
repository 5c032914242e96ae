import {
  Badge,
  Button,
  Code,
  Collapse,
  Group,
  Paper,
  ScrollArea,
  SegmentedControl,
  Stack,
  Text,
  UnstyledButton,
} from '@mantine/core';
import { useState } from 'react';
import type { DebugEventInfo } from '../../api/rule-chains-api.ts';
import { useClearNodeDebugEvents, useNodeDebugEvents } from '../../api/rule-chains-hooks.ts';
import { useDevice } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatTime } from '../../components/format.ts';

type Filter = 'ALL' | 'IN' | 'OUT' | 'ERRORS';

const TYPE_NAMES: Record<string, string> = { DEVICE: 'Device', ASSET: 'Asset', CUSTOMER: 'Customer' };

/** The name the message's metadata gives its originator (ThingsBoard puts deviceName there), if any. */
function nameInMetadata(metadata: string | undefined): string | undefined {
  try {
    const m = JSON.parse(metadata ?? '{}') as Record<string, unknown>;
    const name = m.deviceName ?? m.assetName ?? m.entityName;
    return typeof name === 'string' && name !== '' ? name : undefined;
  } catch {
    return undefined;
  }
}

function DeviceName({ id, fallback }: { id: string; fallback: string }) {
  const device = useDevice(id);
  return <>{device.data?.name ?? fallback}</>;
}

/** Who sent the message: "Device Oven 3" (its id on hover), as the rest of the app names entities. */
function Originator({ type, id, metadata }: { type: string; id: string; metadata?: string }) {
  const fallback = nameInMetadata(metadata) ?? id;
  return (
    <Text size="xs" c="dimmed" title={`${type} ${id}`} data-testid="debug-event-originator">
      {TYPE_NAMES[type] ?? type}{' '}
      <Text span inherit fw={600}>
        {type === 'DEVICE' ? <DeviceName id={id} fallback={fallback} /> : fallback}
      </Text>
    </Text>
  );
}

/** JSON text shown indented; anything else as it is. */
function pretty(text: string | undefined): string {
  if (text === undefined) return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function JsonBlock({ label, json, testId }: { label: string; json: string | undefined; testId: string }) {
  return (
    <>
      <Text size="xs" fw={600}>
        {label}
      </Text>
      <Code
        block
        style={{ fontSize: 11, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
        data-testid={testId}
      >
        {pretty(json)}
      </Code>
    </>
  );
}

function DebugEvent({ event, onFollow }: { event: DebugEventInfo; onFollow: (traceId: string) => void }) {
  const [open, setOpen] = useState(false);
  const b = event.body;
  const id = `debug-event-${event.id.id}`;
  return (
    <Paper withBorder p={6} radius="sm" data-testid="debug-event" data-direction={b.type}>
      <UnstyledButton
        w="100%"
        onClick={() => setOpen((o) => !o)}
        aria-expanded={open}
        aria-controls={id}
        data-testid="debug-event-toggle"
      >
        <Group gap={6} wrap="wrap">
          <Badge size="xs" variant="light" color={b.type === 'IN' ? 'blue' : 'teal'}>
            {b.type}
          </Badge>
          {b.relationType && (
            <Badge size="xs" variant="outline" tt="none" data-testid="debug-event-relation">
              {b.relationType}
            </Badge>
          )}
          <Text size="xs" ff="monospace">
            {b.msgType}
          </Text>
          <Text size="xs" c="dimmed">
            {formatTime(event.createdTime)}
          </Text>
          {b.error && (
            <Badge size="xs" color="red" variant="light">
              error
            </Badge>
          )}
        </Group>
        <Originator type={b.entityType} id={b.entityId} metadata={b.metadata} />
        {b.error && (
          <Text size="xs" c="red" data-testid="debug-event-error">
            {b.error}
          </Text>
        )}
      </UnstyledButton>
      <Collapse expanded={open} id={id}>
        <Stack gap={4} mt={4}>
          <JsonBlock label="Data" json={b.data} testId="debug-event-data" />
          <JsonBlock label="Metadata" json={b.metadata} testId="debug-event-metadata" />
          <Text size="xs" c="dimmed" ff="monospace" style={{ wordBreak: 'break-all' }}>
            message {b.msgId}
          </Text>
          <Group>
            <Button
              size="compact-xs"
              variant="light"
              onClick={() => onFollow(b.traceId)}
              data-testid="follow-message"
            >
              Follow this message
            </Button>
          </Group>
        </Stack>
      </Collapse>
    </Paper>
  );
}

/**
 * A saved node's last messages in and out (ThingsBoard's DEBUG_RULE_NODE events): direction, relation,
 * message type, originator, error; open one for its data and metadata, or to follow the message through the
 * chains. Refreshed every 2 s while shown.
 */
export function NodeDebugEvents({
  nodeId,
  recording,
  onFollow,
}: {
  /** undefined: the node is not saved yet */
  nodeId: string | undefined;
  recording: boolean;
  onFollow: (traceId: string) => void;
}) {
  const events = useNodeDebugEvents(nodeId);
  const clear = useClearNodeDebugEvents();
  const [filter, setFilter] = useState<Filter>('ALL');
  if (!nodeId) {
    return (
      <Text size="sm" c="dimmed" data-testid="debug-events-off">
        Save the chain to start recording this node’s messages.
      </Text>
    );
  }
  const all = events.data?.data ?? [];
  const list = all.filter((e) =>
    filter === 'ALL' ? true : filter === 'ERRORS' ? !!e.body.error : e.body.type === filter,
  );
  return (
    <Stack gap="xs" data-testid="debug-events">
      <Group justify="space-between" gap="xs">
        <SegmentedControl
          size="xs"
          value={filter}
          onChange={(v) => setFilter(v as Filter)}
          data={[
            { value: 'ALL', label: `All ${all.length}` },
            { value: 'IN', label: 'In' },
            { value: 'OUT', label: 'Out' },
            { value: 'ERRORS', label: 'Errors' },
          ]}
          aria-label="Which events"
          data-testid="debug-filter"
        />
        <Button
          size="compact-xs"
          variant="subtle"
          color="red"
          disabled={all.length === 0}
          loading={clear.isPending}
          onClick={() => clear.mutate(nodeId)}
          data-testid="debug-clear"
        >
          Clear
        </Button>
      </Group>
      <ErrorAlert error={events.error ?? clear.error} title="Could not load the debug events" />
      {events.data && all.length === 0 && (
        <Text size="sm" c="dimmed" data-testid="debug-events-empty">
          {recording
            ? 'No messages yet: send the device some telemetry.'
            : 'Nothing recorded: switch debug on (and save) to record the messages that go in and out of this node.'}
        </Text>
      )}
      <ScrollArea.Autosize mah={420} type="auto">
        <Stack gap={6}>
          {list.map((e) => (
            <DebugEvent key={e.id.id} event={e} onFollow={onFollow} />
          ))}
        </Stack>
      </ScrollArea.Autosize>
    </Stack>
  );
}
