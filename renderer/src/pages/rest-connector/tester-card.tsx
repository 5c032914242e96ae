import {
  ActionIcon,
  Alert,
  Button,
  Card,
  Code,
  Collapse,
  Group,
  PasswordInput,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { HTTP_METHODS } from '../../../../shared/schemas/rest-connector.ts';
import type { RestConnectorDetails, RestEndpointInfo, TestRequest } from '../../api/rest-connector-api.ts';
import { useTestRestConnector } from '../../api/rest-connector-hooks.ts';
import { CopyValue } from '../../components/copy-value.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { StatusBadge, endpointCredentials } from './connector-ui.tsx';

type BodyMode = 'none' | 'json' | 'text' | 'multipart';

interface FormField {
  name: string;
  value: string;
}
interface FormFile {
  name: string;
  filename: string;
  content: string;
  contentType: string;
}

/** What "Try it" on an endpoint fills in. */
export interface TesterSeed {
  endpoint: RestEndpointInfo;
  nonce: number;
}

const monospace = { input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 12 } };

/** "a=1\nb=2" or "a=1&b=2" → {a: "1", b: "2"} */
function parsePairs(text: string, separator: RegExp): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const line of text.split(/\n|&/)) {
    const t = line.trim();
    if (!t) continue;
    const m = separator.exec(t);
    if (!m || m.index === undefined) out[t] = '';
    else out[t.slice(0, m.index).trim()] = t.slice(m.index + m[0].length).trim();
  }
  return Object.keys(out).length ? out : undefined;
}

function parseHeaders(text: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t) continue;
    const i = t.indexOf(':');
    if (i > 0) out[t.slice(0, i).trim()] = t.slice(i + 1).trim();
  }
  return Object.keys(out).length ? out : undefined;
}

function scalarText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * Sends a request to a running connector through the platform (JSON, text or multipart, with basic
 * credentials), shows the answer and the equivalent curl command.
 */
export function TesterCard({
  connector,
  endpoints,
  seed,
}: {
  connector: RestConnectorDetails;
  endpoints: RestEndpointInfo[] | undefined;
  seed: TesterSeed | null;
}) {
  const test = useTestRestConnector(connector.id);
  const [method, setMethod] = useState('POST');
  const [path, setPath] = useState('/');
  const [query, setQuery] = useState('');
  const [headers, setHeaders] = useState('');
  const [useAuth, setUseAuth] = useState(false);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [mode, setMode] = useState<BodyMode>('json');
  const [json, setJson] = useState('{}');
  const [text, setText] = useState('');
  const [fields, setFields] = useState<FormField[]>([{ name: '', value: '' }]);
  const [files, setFiles] = useState<FormFile[]>([]);
  const [showHeaders, setShowHeaders] = useState(false);
  const [picked, setPicked] = useState<string | null>(null);

  const endpointKey = (e: RestEndpointInfo) => `${e.kind}:${e.index}:${e.method}`;
  const apply = (e: RestEndpointInfo) => {
    setPicked(endpointKey(e));
    setMethod(e.method);
    setPath(e.path);
    const example = e.exampleBody ?? {};
    const creds = endpointCredentials(connector.config, e);
    setUseAuth(creds !== null);
    setUsername(creds?.username ?? '');
    setPassword(creds?.password ?? '');
    if (e.method === 'GET' || e.method === 'DELETE' || e.method === 'HEAD') {
      setMode('none');
      setQuery(
        Object.entries(example)
          .map(([k, v]) => `${k}=${scalarText(v)}`)
          .join('\n'),
      );
    } else {
      setMode('json');
      setQuery('');
      setJson(JSON.stringify(example, null, 2));
      setFields(
        Object.entries(example)
          .map(([k, v]) => ({ name: k, value: scalarText(v) }))
          .concat([{ name: '', value: '' }]),
      );
    }
    test.reset();
  };

  useEffect(() => {
    if (seed) apply(seed.endpoint);
  }, [seed?.nonce]);
  // the first endpoint when nothing was chosen yet
  useEffect(() => {
    if (!seed && picked === null && endpoints?.[0]) apply(endpoints[0]);
  }, [endpoints]);

  const jsonError = useMemo(() => {
    if (mode !== 'json') return null;
    try {
      JSON.parse(json);
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  }, [mode, json]);

  const send = () => {
    const body: TestRequest = { method, path: path.trim() || '/' };
    const q = parsePairs(query, /=/);
    if (q) body.query = q;
    const h = parseHeaders(headers);
    if (h) body.headers = h;
    if (useAuth) body.auth = { username, password };
    if (mode === 'json') body.json = JSON.parse(json) as unknown;
    if (mode === 'text') body.text = text;
    if (mode === 'multipart') {
      const f = Object.fromEntries(fields.filter((x) => x.name.trim()).map((x) => [x.name.trim(), x.value]));
      body.form = {
        fields: f,
        files: files
          .filter((x) => x.name.trim())
          .map((x) => ({
            name: x.name.trim(),
            filename: x.filename.trim() || 'file.txt',
            content: x.content,
            ...(x.contentType.trim() ? { contentType: x.contentType.trim() } : {}),
          })),
      };
    }
    test.mutate(body);
  };

  const running = connector.state === 'running';
  const result = test.data;
  const setField = (i: number, patch: Partial<FormField>) =>
    setFields((list) => {
      const next = list.map((f, j) => (j === i ? { ...f, ...patch } : f));
      // always one empty row to type into
      if (next.at(-1)?.name) next.push({ name: '', value: '' });
      return next;
    });
  const setFile = (i: number, patch: Partial<FormFile>) =>
    setFiles((list) => list.map((f, j) => (j === i ? { ...f, ...patch } : f)));

  return (
    <Card withBorder radius="md" p="md" data-testid="request-tester">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={4}>Request tester</Title>
          {endpoints && endpoints.length > 0 && (
            <Select
              aria-label="Endpoint"
              placeholder="Fill in from an endpoint"
              size="xs"
              w={320}
              value={picked}
              onChange={(v) => {
                const e = endpoints.find((x) => endpointKey(x) === v);
                if (e) apply(e);
              }}
              data={endpoints.map((e) => ({ value: endpointKey(e), label: `${e.method} ${e.path}` }))}
              data-testid="tester-endpoint"
            />
          )}
        </Group>
        {!running && (
          <Alert variant="light" color="yellow">
            Start the connector to send requests to it.
          </Alert>
        )}
        <Group gap="xs" align="flex-end" wrap="nowrap">
          <Select
            label="Method"
            w={120}
            value={method}
            onChange={(v) => v && setMethod(v)}
            data={[...HTTP_METHODS]}
            allowDeselect={false}
            data-testid="tester-method"
          />
          <TextInput
            label="Path"
            style={{ flex: 1 }}
            value={path}
            onChange={(e) => setPath(e.currentTarget.value)}
            styles={monospace}
            data-testid="tester-path"
          />
        </Group>
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <Textarea
            label="Query parameters"
            description="name=value, one a line"
            autosize
            minRows={2}
            maxRows={6}
            value={query}
            onChange={(e) => setQuery(e.currentTarget.value)}
            styles={monospace}
            data-testid="tester-query"
          />
          <Textarea
            label="Headers"
            description="Name: value, one a line"
            autosize
            minRows={2}
            maxRows={6}
            value={headers}
            onChange={(e) => setHeaders(e.currentTarget.value)}
            styles={monospace}
          />
        </SimpleGrid>
        <Group gap="sm" align="flex-end">
          <Switch
            label="Basic authentication"
            checked={useAuth}
            onChange={(e) => setUseAuth(e.currentTarget.checked)}
            mb={6}
          />
          {useAuth && (
            <>
              <TextInput
                size="xs"
                label="Username"
                value={username}
                onChange={(e) => setUsername(e.currentTarget.value)}
              />
              <PasswordInput
                size="xs"
                label="Password"
                value={password}
                onChange={(e) => setPassword(e.currentTarget.value)}
              />
            </>
          )}
        </Group>
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            Body
          </Text>
          <SegmentedControl
            size="xs"
            value={mode}
            onChange={(v) => setMode(v as BodyMode)}
            data={[
              { value: 'none', label: 'None' },
              { value: 'json', label: 'JSON' },
              { value: 'multipart', label: 'Multipart form' },
              { value: 'text', label: 'Text' },
            ]}
            data-testid="tester-body-mode"
          />
        </Stack>
        {mode === 'json' && (
          <Textarea
            aria-label="JSON body"
            autosize
            minRows={5}
            maxRows={16}
            value={json}
            onChange={(e) => setJson(e.currentTarget.value)}
            error={jsonError}
            spellCheck={false}
            styles={monospace}
            data-testid="tester-json"
          />
        )}
        {mode === 'text' && (
          <Textarea
            aria-label="Text body"
            description="Sent as is: set Content-Type under Headers"
            autosize
            minRows={4}
            maxRows={16}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            styles={monospace}
          />
        )}
        {mode === 'multipart' && (
          <Stack gap="xs" data-testid="tester-multipart">
            <Text size="xs" c="dimmed">
              Fields arrive as strings and are converted by each value&apos;s type; file parts are ignored by
              the json converter (the request log says so).
            </Text>
            {fields.map((f, i) => (
              <Group key={i} gap="xs" wrap="nowrap">
                <TextInput
                  size="xs"
                  aria-label={`Field ${i + 1} name`}
                  placeholder="field"
                  value={f.name}
                  onChange={(e) => setField(i, { name: e.currentTarget.value })}
                  styles={monospace}
                  w={200}
                />
                <TextInput
                  size="xs"
                  aria-label={`Field ${i + 1} value`}
                  placeholder="value"
                  value={f.value}
                  onChange={(e) => setField(i, { value: e.currentTarget.value })}
                  styles={monospace}
                  style={{ flex: 1 }}
                />
                <ActionIcon
                  variant="subtle"
                  color="gray"
                  aria-label={`Remove field ${i + 1}`}
                  disabled={fields.length === 1}
                  onClick={() => setFields((list) => list.filter((_, j) => j !== i))}
                >
                  ×
                </ActionIcon>
              </Group>
            ))}
            {files.map((f, i) => (
              <Card key={i} withBorder p="xs" radius="sm">
                <Stack gap={4}>
                  <Group gap="xs" wrap="nowrap">
                    <TextInput
                      size="xs"
                      label="File field"
                      value={f.name}
                      onChange={(e) => setFile(i, { name: e.currentTarget.value })}
                    />
                    <TextInput
                      size="xs"
                      label="File name"
                      value={f.filename}
                      onChange={(e) => setFile(i, { filename: e.currentTarget.value })}
                    />
                    <TextInput
                      size="xs"
                      label="Content type"
                      placeholder="text/plain"
                      value={f.contentType}
                      onChange={(e) => setFile(i, { contentType: e.currentTarget.value })}
                    />
                    <ActionIcon
                      mt={20}
                      variant="subtle"
                      color="gray"
                      aria-label={`Remove file ${i + 1}`}
                      onClick={() => setFiles((list) => list.filter((_, j) => j !== i))}
                    >
                      ×
                    </ActionIcon>
                  </Group>
                  <Textarea
                    size="xs"
                    aria-label="File content"
                    placeholder="content"
                    autosize
                    minRows={2}
                    maxRows={6}
                    value={f.content}
                    onChange={(e) => setFile(i, { content: e.currentTarget.value })}
                    styles={monospace}
                  />
                </Stack>
              </Card>
            ))}
            <Group>
              <Button
                size="xs"
                variant="subtle"
                onClick={() =>
                  setFiles((list) => [
                    ...list,
                    {
                      name: `file${list.length + 1}`,
                      filename: 'notes.txt',
                      content: 'hello',
                      contentType: '',
                    },
                  ])
                }
              >
                Add a file part
              </Button>
            </Group>
          </Stack>
        )}
        <Group justify="flex-end">
          <Button
            onClick={send}
            loading={test.isPending}
            disabled={!running || (mode === 'json' && jsonError !== null)}
            data-testid="send-test-request"
          >
            Send
          </Button>
        </Group>
        <ErrorAlert error={test.error} title="The request was not sent" />
        {result && (
          <Stack gap="xs" data-testid="tester-response" data-status={result.status}>
            <Group gap="sm">
              <StatusBadge status={result.status} />
              <Text size="sm" c="dimmed">
                {result.durationMs.toFixed(1)} ms
              </Text>
              <UnstyledButton onClick={() => setShowHeaders((s) => !s)}>
                <Text size="sm" c="blue">
                  {showHeaders ? 'Hide' : 'Show'} {Object.keys(result.headers).length} headers
                </Text>
              </UnstyledButton>
            </Group>
            <Collapse expanded={showHeaders}>
              <Table withRowBorders={false} verticalSpacing={2}>
                <Table.Tbody>
                  {Object.entries(result.headers).map(([k, v]) => (
                    <Table.Tr key={k}>
                      <Table.Td>
                        <Text size="xs" ff="monospace" fw={600}>
                          {k}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <Text size="xs" ff="monospace">
                          {v}
                        </Text>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Collapse>
            <Text size="xs" c="dimmed">
              Body
            </Text>
            <Code
              block
              data-testid="tester-response-body"
              style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
            >
              {result.body === '' ? '(empty)' : result.body}
            </Code>
            <Text size="xs" c="dimmed">
              The same request with curl
            </Text>
            <CopyValue value={result.curl} block label="Copy curl command" testId="tester-curl" />
          </Stack>
        )}
      </Stack>
    </Card>
  );
}
