import {
  Badge,
  Code,
  Grid,
  Group,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useMemo, useState } from 'react';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { InspectedMessage, TopicStats } from '../../api/mqtt-api.ts';
import { useMqttTopics } from '../../api/mqtt-hooks.ts';
import { useChartColors } from '../../components/charts/chart-colors.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatNumber, formatTime } from '../../components/format.ts';
import { jsonDiff, numberAt, numericPaths } from './payload-fields.ts';
import { PayloadView } from './message-detail.tsx';
import { useMessageList } from './traffic-tab.tsx';

interface TreeNode {
  name: string;
  key: string;
  count: number;
  rate: number;
  children: Map<string, TreeNode>;
  stats?: TopicStats;
}

/** The topic tree: a device, then the topic's levels; inner nodes add up their children. */
function buildTree(topics: TopicStats[]): TreeNode[] {
  const roots = new Map<string, TreeNode>();
  const node = (parent: Map<string, TreeNode>, name: string, key: string) => {
    let n = parent.get(name);
    if (!n) parent.set(name, (n = { name, key, count: 0, rate: 0, children: new Map() }));
    return n;
  };
  for (const t of topics) {
    let n = node(roots, t.device.name, t.device.id ?? t.device.name);
    const path = [n];
    for (const level of t.topic.split('/')) {
      n = node(n.children, level, `${n.key}/${level}`);
      path.push(n);
    }
    n.stats = t;
    for (const p of path) {
      p.count += t.count;
      p.rate += t.rate;
    }
  }
  return [...roots.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function lastValue(t: TopicStats): string {
  const text = t.lastPayload.text ?? t.lastPayload.hex;
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function TreeRows({
  nodes,
  depth,
  selected,
  onSelect,
}: {
  nodes: TreeNode[];
  depth: number;
  selected: string | null;
  onSelect: (t: TopicStats) => void;
}) {
  return nodes.map((n) => (
    <Stack key={n.key} gap={0}>
      <UnstyledButton
        onClick={() => n.stats && onSelect(n.stats)}
        disabled={!n.stats}
        pl={depth * 14}
        py={2}
        bg={n.key === selected ? 'var(--mantine-color-default-hover)' : undefined}
        data-testid="topic-node"
        data-name={n.name}
        aria-label={n.stats ? `${n.stats.device.name} ${n.stats.topic}` : n.name}
      >
        <Group gap={6} wrap="nowrap">
          <Text
            size="sm"
            fw={depth === 0 ? 700 : n.stats ? 600 : 400}
            ff={depth === 0 ? undefined : 'monospace'}
          >
            {n.name}
          </Text>
          <Badge size="xs" variant="light" data-testid="topic-count">
            {formatNumber(n.count)}
          </Badge>
          {n.rate > 0 && (
            <Text size="xs" c="dimmed">
              {n.rate.toFixed(1)}/s
            </Text>
          )}
          {n.stats && (
            <Text size="xs" c="dimmed" ff="monospace" lineClamp={1} data-testid="topic-last-value">
              = {lastValue(n.stats)}
            </Text>
          )}
        </Group>
      </UnstyledButton>
      {n.children.size > 0 && (
        <TreeRows
          nodes={[...n.children.values()]}
          depth={depth + 1}
          selected={selected}
          onSelect={onSelect}
        />
      )}
    </Stack>
  ));
}

function DiffView({ previous, latest }: { previous: InspectedMessage; latest: InspectedMessage }) {
  if (latest.payload.format !== 'json' || previous.payload.format !== 'json')
    return (
      <Text size="sm">
        Before: <Code>{previous.payload.text ?? previous.payload.hex}</Code> now:{' '}
        <Code>{latest.payload.text ?? latest.payload.hex}</Code>
      </Text>
    );
  const changes = jsonDiff(previous.payload.json, latest.payload.json);
  if (changes.length === 0) return <Text size="sm">Same payload as the previous message.</Text>;
  return (
    <Table verticalSpacing={2} data-testid="topic-diff">
      <Table.Tbody>
        {changes.map((c) => (
          <Table.Tr key={c.path}>
            <Table.Td>
              <Code>{c.path}</Code>
            </Table.Td>
            <Table.Td>
              <Badge
                size="xs"
                variant="light"
                color={c.kind === 'added' ? 'teal' : c.kind === 'removed' ? 'red' : 'blue'}
              >
                {c.kind}
              </Badge>
            </Table.Td>
            <Table.Td>
              <Text size="xs" ff="monospace">
                {c.kind !== 'added' ? JSON.stringify(c.before) : ''}
                {c.kind === 'changed' ? ' → ' : ''}
                {c.kind !== 'removed' ? JSON.stringify(c.after) : ''}
              </Text>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** A chart of one numeric field of a topic's JSON payloads, picked by path. */
function FieldChart({ messages }: { messages: InspectedMessage[] }) {
  const colors = useChartColors();
  const paths = useMemo(() => {
    const all = new Set<string>();
    for (const m of messages.slice(0, 20))
      if (m.payload.format === 'json') for (const p of numericPaths(m.payload.json)) all.add(p);
    return [...all];
  }, [messages]);
  const [picked, setPicked] = useState<string | null>(null);
  const path = picked && paths.includes(picked) ? picked : (paths[0] ?? null);
  const data = useMemo(
    () =>
      path
        ? messages
            .map((m) => ({
              ts: m.ts,
              value: m.payload.format === 'json' ? numberAt(m.payload.json, path) : undefined,
            }))
            .filter((p): p is { ts: number; value: number } => p.value !== undefined)
            .reverse()
        : [],
    [messages, path],
  );
  if (paths.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No numeric JSON field in this topic&apos;s payloads.
      </Text>
    );
  const from = data[0]?.ts ?? Date.now();
  const to = Math.max(data[data.length - 1]?.ts ?? from, from + 1000);
  return (
    <Stack gap="xs">
      <Select
        label="Field"
        data={paths}
        value={path}
        onChange={setPicked}
        searchable
        w={320}
        data-testid="field-path"
      />
      <div style={{ width: '100%', height: 200 }} data-testid="field-chart" data-points={data.length}>
        <ResponsiveContainer>
          <LineChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -8 }}>
            <CartesianGrid stroke={colors.grid} strokeDasharray="3 3" />
            <XAxis {...colors.timeAxis(from, to)} />
            <YAxis fontSize={12} stroke={colors.axis} domain={['auto', 'auto']} />
            <Tooltip labelFormatter={(ts) => formatTime(Number(ts))} contentStyle={colors.tooltipStyle} />
            <Line
              type="monotone"
              dataKey="value"
              name={path ?? ''}
              stroke={colors.forKey(path ?? '')}
              dot={data.length < 60}
              isAnimationActive={false}
            />
          </LineChart>
        </ResponsiveContainer>
      </div>
    </Stack>
  );
}

function TopicDetail({ topic }: { topic: TopicStats }) {
  const filter = useMemo(
    () => ({ ...(topic.device.id ? { deviceId: topic.device.id } : {}), topic: topic.topic }),
    [topic.device.id, topic.topic],
  );
  const { list } = useMessageList(filter, false, 500);
  const own = list.filter((m) => m.device.id === topic.device.id);
  const [latest, previous] = own;
  return (
    <Stack gap="sm" data-testid="topic-detail">
      <Title order={5}>
        {topic.device.name} · <Code>{topic.topic}</Code>
      </Title>
      <Text size="xs" c="dimmed">
        {formatNumber(topic.count)} messages, {topic.rate.toFixed(1)}/s, last at {formatTime(topic.lastTs)}
      </Text>
      {latest && <PayloadView key={latest.seq} payload={latest.payload} />}
      <Title order={6}>Change from the previous message</Title>
      {latest && previous ? (
        <DiffView previous={previous} latest={latest} />
      ) : (
        <Text size="sm" c="dimmed">
          Only one message so far.
        </Text>
      )}
      <Title order={6}>Chart a field</Title>
      <FieldChart messages={own} />
    </Stack>
  );
}

export function TopicsTab() {
  const topics = useMqttTopics();
  const [selected, setSelected] = useState<{ deviceId: string | null; topic: string } | null>(null);
  const tree = useMemo(() => buildTree(topics.data ?? []), [topics.data]);
  const current = topics.data?.find((t) => t.device.id === selected?.deviceId && t.topic === selected?.topic);
  return (
    <Stack gap="sm">
      <ErrorAlert error={topics.error} />
      <Grid>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <Paper
            withBorder
            radius="md"
            p="sm"
            style={{ maxHeight: 600, overflow: 'auto' }}
            data-testid="topic-tree"
          >
            {tree.length === 0 ? (
              <Text size="sm" c="dimmed">
                {topics.isLoading ? 'Loading…' : 'No topic yet: messages appear here as devices publish.'}
              </Text>
            ) : (
              <TreeRows
                nodes={tree}
                depth={0}
                selected={current ? `${current.device.id ?? current.device.name}/${current.topic}` : null}
                onSelect={(t) => setSelected({ deviceId: t.device.id, topic: t.topic })}
              />
            )}
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 7 }}>
          {current ? (
            <Paper withBorder radius="md" p="md">
              <TopicDetail topic={current} />
            </Paper>
          ) : (
            <Text size="sm" c="dimmed">
              Pick a topic to see its messages, the change from the previous one and a chart of any field.
            </Text>
          )}
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
