import { Badge, Button, Grid, Group, Paper, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { useCurrentUser } from '../../api/hooks.ts';
import type { InspectedMessage, MessageFilter } from '../../api/mqtt-api.ts';
import { useClearMqttMessages, useMqttMessages, useMqttTopics } from '../../api/mqtt-hooks.ts';
import { fileNameFor, saveTextFile } from '../../components/desktop-files.ts';
import { EmptyTableRow } from '../../components/empty-table-row.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatNumber, formatTime } from '../../components/format.ts';
import { useMqttTraffic } from '../../live/live-provider.tsx';
import { MessageDetail } from './message-detail.tsx';
import { hex, REASON_CODES, reasonCodeLabel } from './reason-codes.ts';
import { jsonLines } from './snippets.ts';

/** how many messages the list keeps in the page */
const KEPT = 1_000;

/** Merges newer messages into a newest-first list, without duplicates, keeping at most KEPT. */
export function mergeNewest(list: InspectedMessage[], newer: InspectedMessage[]): InspectedMessage[] {
  const top = list[0]?.seq ?? 0;
  const fresh = newer.filter((m) => m.seq > top).sort((a, b) => b.seq - a.seq);
  return fresh.length ? [...fresh, ...list].slice(0, KEPT) : list;
}

function preview(m: InspectedMessage): string {
  const text = m.payload.text ?? m.payload.hex;
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/**
 * Hooks of a list of recorded messages matching a filter: the newest from REST, then live over the
 * WebSocket while not paused.
 */
export function useMessageList(filter: MessageFilter, paused: boolean, limit = 200) {
  const initial = useMqttMessages(filter, limit);
  const [list, setList] = useState<InspectedMessage[]>([]);
  const [skipped, setSkipped] = useState(0);
  useEffect(() => {
    setList(initial.data?.messages ?? []);
    setSkipped(0);
  }, [initial.data]);
  useMqttTraffic(filter, !paused && initial.isSuccess, (m) => {
    setList((old) => mergeNewest(old, m.messages));
    if (m.skipped) setSkipped((n) => n + m.skipped);
  });
  return { list, setList, skipped, query: initial };
}

export function TrafficTab() {
  const user = useCurrentUser();
  const topics = useMqttTopics();
  const [draft, setDraft] = useState({ deviceId: '', topic: '', direction: '', reasonCode: '', text: '' });
  const filter = useMemo<MessageFilter>(() => {
    const f: MessageFilter = {};
    if (draft.deviceId) f.deviceId = draft.deviceId;
    if (draft.topic.trim()) f.topic = draft.topic.trim();
    if (draft.direction === 'in' || draft.direction === 'out') f.direction = draft.direction;
    if (draft.reasonCode !== '') f.reasonCode = Number(draft.reasonCode);
    if (draft.text.trim()) f.text = draft.text.trim();
    return f;
  }, [draft]);
  const [paused, setPaused] = useState(false);
  const { list, setList, skipped, query } = useMessageList(filter, paused);
  const [selected, setSelected] = useState<number | null>(null);
  const clear = useClearMqttMessages();
  const devices = useMemo(() => {
    const seen = new Map<string, string>();
    for (const t of topics.data ?? []) if (t.device.id) seen.set(t.device.id, t.device.name);
    return [...seen]
      .map(([value, label]) => ({ value, label }))
      .sort((a, b) => a.label.localeCompare(b.label));
  }, [topics.data]);
  const selectedMessage = list.find((m) => m.seq === selected) ?? list[0];
  const set = (key: keyof typeof draft) => (value: string | null) =>
    setDraft((d) => ({ ...d, [key]: value ?? '' }));

  return (
    <Stack gap="sm">
      <Group gap="sm" align="flex-end" wrap="wrap">
        <Select
          label="Device"
          placeholder="All"
          clearable
          searchable
          data={devices}
          value={draft.deviceId || null}
          onChange={set('deviceId')}
          w={200}
        />
        <TextInput
          label="Topic"
          placeholder="v1/devices/+/telemetry or v1/#"
          value={draft.topic}
          onChange={(e) => set('topic')(e.currentTarget.value)}
          w={240}
          data-testid="filter-topic"
        />
        <Select
          label="Direction"
          placeholder="Both"
          clearable
          data={[
            { value: 'in', label: 'In (from clients)' },
            { value: 'out', label: 'Out (to clients)' },
          ]}
          value={draft.direction || null}
          onChange={set('direction')}
          w={160}
        />
        <Select
          label="Reason code"
          placeholder="Any"
          clearable
          data={REASON_CODES.map((c) => ({ value: String(c), label: reasonCodeLabel(c) }))}
          value={draft.reasonCode || null}
          onChange={set('reasonCode')}
          w={200}
        />
        <TextInput
          label="Payload contains"
          value={draft.text}
          onChange={(e) => set('text')(e.currentTarget.value)}
          w={180}
          data-testid="filter-text"
        />
        <Button variant="light" onClick={() => setPaused((p) => !p)} data-testid="traffic-pause">
          {paused ? 'Resume' : 'Pause'}
        </Button>
        <Button
          variant="light"
          color="gray"
          onClick={() => {
            setList([]);
            if (user.data?.authority === 'TENANT_ADMIN') clear.mutate();
          }}
        >
          Clear
        </Button>
        <Button
          variant="light"
          disabled={list.length === 0}
          onClick={() =>
            void saveTextFile(fileNameFor('mqtt-messages', 'jsonl'), jsonLines(list), {
              title: 'Export messages',
              type: 'application/x-ndjson',
              filters: [{ name: 'JSON Lines', extensions: ['jsonl'] }],
            })
          }
        >
          Export JSON Lines
        </Button>
      </Group>
      <ErrorAlert error={query.error ?? clear.error} />
      <Text size="xs" c="dimmed" data-testid="traffic-count">
        {formatNumber(list.length)} message{list.length === 1 ? '' : 's'} shown
        {paused ? ', paused' : ', live'}
        {skipped ? `; ${formatNumber(skipped)} left out to keep up` : ''}
      </Text>
      <Grid>
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <Paper withBorder radius="md" style={{ maxHeight: 560, overflow: 'auto' }}>
            <Table verticalSpacing={4} highlightOnHover data-testid="mqtt-messages-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Time</Table.Th>
                  <Table.Th>Dir</Table.Th>
                  <Table.Th>Device</Table.Th>
                  <Table.Th>Topic</Table.Th>
                  <Table.Th>Payload</Table.Th>
                  <Table.Th>Answer</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.length === 0 && (
                  <EmptyTableRow columns={6} roomy>
                    {query.isLoading ? 'Loading…' : 'No message recorded yet'}
                  </EmptyTableRow>
                )}
                {list.map((m) => (
                  <Table.Tr
                    key={m.seq}
                    onClick={() => setSelected(m.seq)}
                    style={{ cursor: 'pointer' }}
                    bg={m.seq === selectedMessage?.seq ? 'var(--mantine-color-default-hover)' : undefined}
                    data-testid="mqtt-message-row"
                    data-topic={m.topic}
                  >
                    <Table.Td>
                      <Text size="xs">{formatTime(m.ts)}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Badge size="xs" variant="light" color={m.direction === 'in' ? 'blue' : 'grape'}>
                        {m.direction}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs">{m.device.name}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs" ff="monospace">
                        {m.topic}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs" ff="monospace" lineClamp={1} style={{ wordBreak: 'break-all' }}>
                        {preview(m)}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs" c={m.reasonCode === 0 ? undefined : 'red'}>
                        {hex(m.reasonCode)}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          {selectedMessage ? (
            <MessageDetail message={selectedMessage} />
          ) : (
            <Text size="sm" c="dimmed">
              Pick a message to see it whole.
            </Text>
          )}
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
