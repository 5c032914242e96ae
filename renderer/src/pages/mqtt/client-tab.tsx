import {
  ActionIcon,
  Badge,
  Button,
  Card,
  Code,
  Grid,
  Group,
  NumberInput,
  PasswordInput,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  Table,
  Tabs,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useMemo, useState } from 'react';
import { templateProblem, parseCsvTable } from '../../../../shared/payload-template.ts';
import { useCurrentUser, useDevices } from '../../api/hooks.ts';
import type { ClientConnection, ClientSentMessage } from '../../api/mqtt-api.ts';
import {
  useClientActions,
  useClientConnections,
  useClientState,
  useCloseClientConnection,
  useOpenClientConnection,
} from '../../api/mqtt-hooks.ts';
import { fileNameFor, openTextFile, saveTextFile } from '../../components/desktop-files.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatTime } from '../../components/format.ts';
import { hex, reasonCodeLabel } from './reason-codes.ts';
import { useServerSnippets } from '../../api/mqtt-snippet-hooks.ts';
import {
  forgetBrowserSnippets,
  loadSnippets,
  mergeSnippets,
  parseSnippetsFile,
  snippetsFile,
  storeSnippets,
  type SavedSnippet,
} from './saved-snippets.ts';

function ConnectForm() {
  const user = useCurrentUser();
  const tenant = user.data?.authority === 'TENANT_ADMIN';
  const devices = useDevices({ page: 0, pageSize: 500, sortProperty: 'name', sortOrder: 'ASC' });
  const [deviceId, setDeviceId] = useState<string | null>(null);
  const [version, setVersion] = useState<'4' | '5'>('4');
  const [custom, setCustom] = useState(false);
  const [manual, setManual] = useState({ url: '', clientId: '', username: '', password: '' });
  const open = useOpenClientConnection();
  const options = (devices.data?.data ?? []).map((d) => ({
    value: d.id.id,
    label: `${d.name}${d.additionalInfo && (d.additionalInfo as { gateway?: boolean }).gateway ? ' (gateway)' : ''}`,
  }));
  const connect = () =>
    open.mutate(
      custom
        ? {
            protocolVersion: Number(version) as 4 | 5,
            ...(manual.url ? { url: manual.url } : {}),
            ...(manual.clientId ? { clientId: manual.clientId } : {}),
            ...(manual.username ? { username: manual.username } : {}),
            ...(manual.password ? { password: manual.password } : {}),
          }
        : { deviceId: deviceId!, protocolVersion: Number(version) as 4 | 5 },
    );
  return (
    <Card withBorder radius="md" p="sm">
      <Group align="flex-end" gap="sm" wrap="wrap">
        {!custom ? (
          <Select
            label="Connect as device or gateway"
            placeholder="Pick a device"
            searchable
            data={options}
            value={deviceId}
            onChange={setDeviceId}
            w={280}
            data-testid="client-device"
          />
        ) : (
          <>
            <TextInput
              label="Broker URL"
              placeholder="this Sandboard's broker"
              value={manual.url}
              onChange={(e) => setManual({ ...manual, url: e.currentTarget.value })}
              w={220}
            />
            <TextInput
              label="Client id"
              value={manual.clientId}
              onChange={(e) => setManual({ ...manual, clientId: e.currentTarget.value })}
              w={150}
            />
            <TextInput
              label="User name"
              value={manual.username}
              onChange={(e) => setManual({ ...manual, username: e.currentTarget.value })}
              w={170}
            />
            <PasswordInput
              label="Password"
              value={manual.password}
              onChange={(e) => setManual({ ...manual, password: e.currentTarget.value })}
              w={150}
            />
          </>
        )}
        <SegmentedControl
          value={version}
          onChange={(v) => setVersion(v as '4' | '5')}
          data={[
            { value: '4', label: 'MQTT 3.1.1' },
            { value: '5', label: 'MQTT 5' },
          ]}
        />
        <Button
          onClick={connect}
          loading={open.isPending}
          disabled={!custom && !deviceId}
          data-testid="client-connect"
        >
          Connect
        </Button>
        {tenant && (
          <Switch
            label="Any credentials or broker"
            checked={custom}
            onChange={(e) => setCustom(e.currentTarget.checked)}
          />
        )}
      </Group>
      <ErrorAlert error={open.error} />
    </Card>
  );
}

function ReasonBadge({ sent }: { sent: ClientSentMessage }) {
  if (sent.reasonCode === null)
    return (
      <Badge variant="light" color="gray">
        waiting
      </Badge>
    );
  if (sent.reasonCode === -1)
    return (
      <Badge variant="light" color="red">
        no answer: {sent.reason ?? 'closed'}
      </Badge>
    );
  return (
    <Badge variant="light" color={sent.reasonCode === 0 ? 'teal' : 'red'} data-testid="client-reason">
      {reasonCodeLabel(sent.reasonCode)}
    </Badge>
  );
}

interface Draft {
  topic: string;
  payload: string;
  qos: 0 | 1 | 2;
  retain: boolean;
  csv: string;
  contentType: string;
  userProperties: string;
}

function ConnectionPanel({ connection }: { connection: ClientConnection }) {
  const state = useClientState(connection.id);
  const actions = useClientActions(connection.id);
  const [draft, setDraft] = useState<Draft>({
    topic: 'v1/devices/me/telemetry',
    payload: '{"temperature": ${random(20,30)}}',
    qos: 1,
    retain: false,
    csv: '',
    contentType: '',
    userProperties: '',
  });
  const [everyMs, setEveryMs] = useState<number | string>(1000);
  const [subscribeTo, setSubscribeTo] = useState('v1/devices/me/attributes');
  const [rpcMethod, setRpcMethod] = useState('');
  const [rpcResponse, setRpcResponse] = useState('{"ok": true}');
  const tenant = useCurrentUser().data?.authority === 'TENANT_ADMIN';
  const [local, setLocal] = useState<SavedSnippet[]>(() => loadSnippets());
  const server = useServerSnippets(tenant, loadSnippets, mergeSnippets, forgetBrowserSnippets);
  const snippets: SavedSnippet[] = tenant ? (server.list.data ?? []) : local;
  const [snippetName, setSnippetName] = useState('');
  const [fileError, setFileError] = useState<string | null>(null);
  const v5 = connection.protocolVersion === 5;
  const deviceType = connection.deviceType ?? '';
  const csv = draft.csv.trim() ? draft.csv : undefined;
  const problem = useMemo(
    () => templateProblem(draft.payload, csv ? parseCsvTable(csv) : undefined),
    [draft.payload, csv],
  );
  const mine = snippets.filter((s) => s.deviceType === '' || s.deviceType === deviceType);
  const s = state.data;
  const published = actions.publish.data;
  const lastSent = published && 'reasonCode' in published ? published : (s?.sent[0] ?? null);

  const request = () => {
    let userProperties: Record<string, string> | undefined;
    try {
      userProperties = draft.userProperties.trim()
        ? (JSON.parse(draft.userProperties) as Record<string, string>)
        : undefined;
    } catch {
      userProperties = undefined;
    }
    return {
      topic: draft.topic,
      payload: draft.payload,
      qos: draft.qos,
      retain: draft.retain,
      ...(csv ? { csv } : {}),
      ...(v5 && (draft.contentType || userProperties)
        ? {
            properties: {
              ...(draft.contentType ? { contentType: draft.contentType } : {}),
              ...(userProperties ? { userProperties } : {}),
            },
          }
        : {}),
    };
  };
  const publish = (topic?: string, payload?: string) =>
    actions.publish.mutate(topic ? { topic, payload: payload ?? '', qos: 1 } : request());
  const saveSnippets = (list: SavedSnippet[]) => {
    if (tenant) {
      server.save.mutate(list.slice(0, 500));
      return;
    }
    storeSnippets(list);
    setLocal(list);
  };
  const rpcRequests = (s?.received ?? []).filter((m) => /^v1\/devices\/me\/rpc\/request\/\d+$/.test(m.topic));

  return (
    <Grid>
      <Grid.Col span={{ base: 12, lg: 7 }}>
        <Stack gap="sm">
          <Card withBorder radius="md" p="sm">
            <Stack gap="xs">
              <Group justify="space-between">
                <Title order={5}>Publish</Title>
                <Text size="xs" c="dimmed">
                  {connection.clientId} · {connection.url} · {s?.connection.state ?? connection.state}
                  {s?.connection.error ? ` · ${s.connection.error}` : ''}
                </Text>
              </Group>
              <Group gap="xs" align="flex-end">
                <TextInput
                  label="Topic"
                  value={draft.topic}
                  onChange={(e) => setDraft({ ...draft, topic: e.currentTarget.value })}
                  style={{ flex: 1 }}
                  data-testid="client-topic"
                />
                <Select
                  label="QoS"
                  data={['0', '1', '2']}
                  value={String(draft.qos)}
                  onChange={(v) => setDraft({ ...draft, qos: Number(v ?? 1) as 0 | 1 | 2 })}
                  w={70}
                />
                <Switch
                  label="Retain"
                  checked={draft.retain}
                  onChange={(e) => setDraft({ ...draft, retain: e.currentTarget.checked })}
                />
              </Group>
              <Textarea
                label="Payload"
                description="Generators: ${random(20,30)} ${counter} ${timestamp} ${uuid} ${csv(column)}"
                autosize
                minRows={3}
                maxRows={12}
                ff="monospace"
                value={draft.payload}
                error={problem}
                onChange={(e) => setDraft({ ...draft, payload: e.currentTarget.value })}
                data-testid="client-payload"
              />
              <Textarea
                label="CSV for ${csv(column)} (first row: column names)"
                autosize
                minRows={1}
                maxRows={6}
                value={draft.csv}
                onChange={(e) => setDraft({ ...draft, csv: e.currentTarget.value })}
              />
              {v5 && (
                <Group gap="xs">
                  <TextInput
                    label="Content type (v5)"
                    value={draft.contentType}
                    onChange={(e) => setDraft({ ...draft, contentType: e.currentTarget.value })}
                    w={200}
                  />
                  <TextInput
                    label='User properties (v5), {"k":"v"}'
                    value={draft.userProperties}
                    onChange={(e) => setDraft({ ...draft, userProperties: e.currentTarget.value })}
                    style={{ flex: 1 }}
                  />
                </Group>
              )}
              <Group gap="xs">
                <Button
                  onClick={() => publish()}
                  loading={actions.publish.isPending}
                  disabled={!!problem}
                  data-testid="client-publish"
                >
                  Publish
                </Button>
                <NumberInput
                  aria-label="Publish every (ms)"
                  value={everyMs}
                  onChange={setEveryMs}
                  min={10}
                  max={3_600_000}
                  w={120}
                  suffix=" ms"
                />
                <Button
                  variant="light"
                  disabled={!!problem}
                  onClick={() => actions.publish.mutate({ ...request(), everyMs: Number(everyMs) || 1000 })}
                >
                  Publish every {Number(everyMs) || 1000} ms
                </Button>
                {lastSent && <ReasonBadge sent={lastSent} />}
              </Group>
              {(s?.repeats ?? []).map((r) => (
                <Group key={r.id} gap="xs">
                  <Text size="xs">
                    Every {r.everyMs} ms to <Code>{r.topic}</Code>: {r.sent} sent
                  </Text>
                  <Button
                    size="compact-xs"
                    variant="light"
                    color="red"
                    onClick={() => actions.stopRepeat.mutate(r.id)}
                  >
                    Stop
                  </Button>
                </Group>
              ))}
              <ErrorAlert error={actions.publish.error} />
            </Stack>
          </Card>
          <Card withBorder radius="md" p="sm">
            <Stack gap="xs">
              <Title order={5}>Saved snippets {deviceType ? `for ${deviceType}` : ''}</Title>
              <ErrorAlert error={server.list.error ?? server.save.error} />
              <Group gap="xs" align="flex-end">
                <Select
                  placeholder="Load a snippet"
                  data={mine.map((x, i) => ({
                    value: String(i),
                    label: `${x.name}${x.deviceType ? '' : ' (any type)'}`,
                  }))}
                  onChange={(v) => {
                    const x = v === null ? undefined : mine[Number(v)];
                    if (x)
                      setDraft({
                        ...draft,
                        topic: x.topic,
                        payload: x.payload,
                        qos: x.qos,
                        retain: x.retain,
                        csv: x.csv ?? '',
                      });
                  }}
                  w={220}
                  data-testid="snippet-load"
                />
                <TextInput
                  placeholder="Name"
                  value={snippetName}
                  onChange={(e) => setSnippetName(e.currentTarget.value)}
                  w={160}
                  data-testid="snippet-name"
                />
                <Button
                  variant="light"
                  disabled={!snippetName.trim()}
                  data-testid="snippet-save"
                  onClick={() =>
                    saveSnippets(
                      mergeSnippets(snippets, [
                        {
                          name: snippetName.trim(),
                          deviceType,
                          topic: draft.topic,
                          payload: draft.payload,
                          qos: draft.qos,
                          retain: draft.retain,
                          ...(csv ? { csv } : {}),
                        },
                      ]),
                    )
                  }
                >
                  Save {deviceType ? `for ${deviceType}` : ''}
                </Button>
                <Button
                  variant="subtle"
                  onClick={() =>
                    void saveTextFile(fileNameFor('mqtt-snippets'), snippetsFile(snippets), {
                      title: 'Export snippets',
                    })
                  }
                >
                  Export
                </Button>
                <Button
                  variant="subtle"
                  onClick={() =>
                    void openTextFile({
                      title: 'Import snippets',
                      filters: [{ name: 'JSON', extensions: ['json'] }],
                    }).then((file) => {
                      if (!file) return;
                      try {
                        saveSnippets(mergeSnippets(snippets, parseSnippetsFile(file.contents)));
                        setFileError(null);
                      } catch (err) {
                        setFileError(`${file.name}: ${(err as Error).message}`);
                      }
                    })
                  }
                >
                  Import
                </Button>
              </Group>
              {fileError && (
                <Text size="sm" c="red">
                  {fileError}
                </Text>
              )}
            </Stack>
          </Card>
          <Card withBorder radius="md" p="sm">
            <Stack gap="xs">
              <Title order={5}>Device shortcuts</Title>
              <Group gap="xs">
                <Button
                  size="xs"
                  variant="light"
                  onClick={async () => {
                    await actions.subscribe.mutateAsync('v1/devices/me/attributes/response/+');
                    publish(`v1/devices/me/attributes/request/${Date.now() % 100000}`, '{}');
                  }}
                >
                  Request attributes
                </Button>
                <Button
                  size="xs"
                  variant="light"
                  onClick={() => publish('v1/devices/me/claim', '{"secretKey":"","durationMs":60000}')}
                >
                  Allow claiming (60 s)
                </Button>
                <Button
                  size="xs"
                  variant="light"
                  onClick={() => actions.subscribe.mutate('v1/devices/me/rpc/request/+')}
                >
                  Receive RPC
                </Button>
              </Group>
              <Group gap="xs" align="flex-end">
                <TextInput
                  label="Reply to RPC method"
                  value={rpcMethod}
                  onChange={(e) => setRpcMethod(e.currentTarget.value)}
                  w={160}
                />
                <TextInput
                  label="with JSON"
                  value={rpcResponse}
                  onChange={(e) => setRpcResponse(e.currentTarget.value)}
                  style={{ flex: 1 }}
                  ff="monospace"
                />
                <Button
                  size="sm"
                  variant="light"
                  disabled={!rpcMethod.trim()}
                  onClick={() => {
                    let response: unknown;
                    try {
                      response = JSON.parse(rpcResponse);
                    } catch {
                      response = rpcResponse;
                    }
                    actions.rpcRules.mutate([
                      ...(s?.rpcRules ?? []).filter((r) => r.method !== rpcMethod.trim()),
                      { method: rpcMethod.trim(), response },
                    ]);
                  }}
                >
                  Add rule
                </Button>
              </Group>
              {(s?.rpcRules ?? []).map((r) => (
                <Text key={r.method} size="xs">
                  <Code>{r.method}</Code> → <Code>{JSON.stringify(r.response)}</Code>
                </Text>
              ))}
              {rpcRequests.slice(0, 3).map((m) => (
                <Group key={`${m.ts}${m.topic}`} gap="xs">
                  <Text size="xs" ff="monospace">
                    {m.topic}: {m.payload}
                  </Text>
                  <Button
                    size="compact-xs"
                    variant="light"
                    onClick={() =>
                      setDraft({
                        ...draft,
                        topic: m.topic.replace('/request/', '/response/'),
                        payload: '{"ok": true}',
                        qos: 1,
                      })
                    }
                  >
                    Answer by hand
                  </Button>
                </Group>
              ))}
            </Stack>
          </Card>
          <Card withBorder radius="md" p="sm">
            <Title order={5}>Sent</Title>
            <Table verticalSpacing={2} data-testid="client-sent">
              <Table.Tbody>
                {(s?.sent ?? []).slice(0, 50).map((m, i) => (
                  <Table.Tr
                    key={`${m.ts}-${i}`}
                    style={{ cursor: 'pointer' }}
                    onClick={() =>
                      setDraft({ ...draft, topic: m.topic, payload: m.payload, qos: m.qos as 0 | 1 | 2 })
                    }
                  >
                    <Table.Td>
                      <Text size="xs">{formatTime(m.ts)}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs" ff="monospace">
                        {m.topic}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs" ff="monospace" lineClamp={1} data-testid="client-sent-payload">
                        {m.payload}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs">
                        {m.reasonCode === null ? '…' : m.reasonCode < 0 ? 'closed' : hex(m.reasonCode)}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Card>
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, lg: 5 }}>
        <Card withBorder radius="md" p="sm">
          <Stack gap="xs">
            <Title order={5}>Subscriptions</Title>
            <Group gap="xs">
              <TextInput
                value={subscribeTo}
                onChange={(e) => setSubscribeTo(e.currentTarget.value)}
                style={{ flex: 1 }}
                aria-label="Topic filter"
              />
              <Button size="sm" variant="light" onClick={() => actions.subscribe.mutate(subscribeTo)}>
                Subscribe
              </Button>
            </Group>
            <ErrorAlert error={actions.subscribe.error} />
            {(s?.connection.subscriptions ?? []).map((sub) => (
              <Group key={sub.topic} gap="xs">
                <Code>{sub.topic}</Code>
                <Text size="xs">QoS {sub.qos}</Text>
                <ActionIcon
                  size="xs"
                  variant="subtle"
                  color="red"
                  aria-label={`Unsubscribe ${sub.topic}`}
                  onClick={() => actions.unsubscribe.mutate(sub.topic)}
                >
                  ×
                </ActionIcon>
              </Group>
            ))}
            <Title order={6}>Received</Title>
            {(s?.received ?? []).length === 0 && (
              <Text size="sm" c="dimmed">
                Nothing yet.
              </Text>
            )}
            {(s?.received ?? []).slice(0, 100).map((m, i) => (
              <Stack key={`${m.ts}-${i}`} gap={0}>
                <Text size="xs" c="dimmed">
                  {formatTime(m.ts)} · <Code>{m.topic}</Code>
                </Text>
                <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                  {m.payload}
                </Code>
              </Stack>
            ))}
          </Stack>
        </Card>
      </Grid.Col>
    </Grid>
  );
}

/** The in-app MQTT client: several connections, each in its own tab. */
export function ClientTab() {
  const connections = useClientConnections();
  const close = useCloseClientConnection();
  const [active, setActive] = useState<string | null>(null);
  const list = connections.data ?? [];
  const current = list.find((c) => c.id === active) ?? list[list.length - 1];
  return (
    <Stack gap="sm">
      <ConnectForm />
      <ErrorAlert error={connections.error ?? close.error} />
      {list.length > 0 && current && (
        <Tabs value={current.id} onChange={setActive} keepMounted={false}>
          <Tabs.List>
            {list.map((c) => (
              <Tabs.Tab
                key={c.id}
                value={c.id}
                data-testid="client-connection-tab"
                rightSection={
                  <ActionIcon
                    component="span"
                    size="xs"
                    variant="subtle"
                    aria-label={`Close ${c.label}`}
                    onClick={(e) => {
                      e.stopPropagation();
                      close.mutate(c.id);
                    }}
                  >
                    ×
                  </ActionIcon>
                }
              >
                {c.label} {c.protocolVersion === 5 ? '(v5)' : ''}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          <Tabs.Panel value={current.id} pt="md">
            <ConnectionPanel key={current.id} connection={current} />
          </Tabs.Panel>
        </Tabs>
      )}
    </Stack>
  );
}
