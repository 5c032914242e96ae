import {
  Alert,
  Badge,
  Button,
  Card,
  Code,
  Group,
  NumberInput,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useRef, useState, type FormEvent } from 'react';
import { ApiError, type RpcKind } from '../../api/client.ts';
import { useRpc } from '../../api/hooks.ts';
import { formatNumber, formatTime } from '../../components/format.ts';

const HISTORY_SIZE = 10;
const DEFAULT_TIMEOUT_MS = 10_000;

interface RpcCall {
  seq: number;
  ts: number;
  kind: RpcKind;
  method: string;
  paramsText: string;
  timeout: number;
  elapsedMs: number;
  outcome: { ok: true; answer: unknown } | { ok: false; status: number; message: string };
}

/** A timeout is 504 (ThingsBoard's RPC v2 answer, which the UI asks for: see ApiClient.rpc), or 408. */
function isTimeout(outcome: RpcCall['outcome']): boolean {
  return !outcome.ok && (outcome.status === 504 || outcome.status === 408);
}

/** A device's answer that reports a failure, as devices and gateways do: {"error": "Unsupported method"}. */
export function answerError(answer: unknown): string | null {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return null;
  const error = (answer as Record<string, unknown>).error;
  if (error === undefined || error === null || error === false || error === '') return null;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

type Verdict = 'ok' | 'device-error' | 'timeout' | 'error';

function verdictOf(call: RpcCall): Verdict {
  if (call.outcome.ok)
    return call.kind === 'twoway' && answerError(call.outcome.answer) ? 'device-error' : 'ok';
  return isTimeout(call.outcome) ? 'timeout' : 'error';
}

const VERDICT_COLOR: Record<Verdict, string> = {
  ok: 'teal',
  'device-error': 'yellow',
  timeout: 'orange',
  error: 'red',
};
const VERDICT_LABEL: Record<Verdict, string> = {
  ok: 'ok',
  'device-error': 'error reply',
  timeout: 'timeout',
  error: 'error',
};

function parseParams(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, error: `Not JSON: ${(err as Error).message}` };
  }
}

function Outcome({ call }: { call: RpcCall }) {
  const elapsed = `${formatNumber(call.elapsedMs)} ms`;
  const verdict = verdictOf(call);
  if (call.outcome.ok) {
    const deviceError = verdict === 'device-error' ? answerError(call.outcome.answer) : null;
    return (
      <Alert
        color={VERDICT_COLOR[verdict]}
        variant="light"
        title={
          call.kind === 'oneway'
            ? `Taken by the device’s session in ${elapsed}`
            : deviceError
              ? `The device answered with an error in ${elapsed}: ${deviceError}`
              : `Answered in ${elapsed}`
        }
        data-testid="rpc-outcome"
        data-outcome={verdict}
      >
        {call.kind === 'twoway' ? (
          <Code block data-testid="rpc-answer">
            {JSON.stringify(call.outcome.answer, null, 2) ?? 'null'}
          </Code>
        ) : (
          <Text size="sm">One-way: the device does not answer.</Text>
        )}
      </Alert>
    );
  }
  const timedOut = verdict === 'timeout';
  return (
    <Alert
      color={VERDICT_COLOR[verdict]}
      variant="light"
      title={
        timedOut
          ? `Timed out after ${elapsed}`
          : `Failed after ${elapsed}${call.outcome.status ? ` (${call.outcome.status})` : ''}`
      }
      data-testid="rpc-outcome"
      data-outcome={verdict}
      role="alert"
    >
      {/* a timeout is said once, with what to check; the server's own sentence would repeat it */}
      <Text size="sm">
        {!timedOut
          ? call.outcome.message
          : call.kind === 'twoway'
            ? 'The device did not answer within the timeout: is it connected and subscribed to RPC requests?'
            : 'No session of the device took the request within the timeout: is it connected?'}
      </Text>
    </Alert>
  );
}

/** Sends an RPC to the device, one-way or two-way, and shows the answer or the error with its time. */
export function RpcConsoleCard({ deviceId }: { deviceId: string }) {
  const rpc = useRpc(deviceId);
  const [kind, setKind] = useState<RpcKind>('twoway');
  const [method, setMethod] = useState('getState');
  const [paramsText, setParamsText] = useState('{}');
  const [timeout, setTimeoutMs] = useState<number | string>(DEFAULT_TIMEOUT_MS);
  const [history, setHistory] = useState<RpcCall[]>([]);
  const seq = useRef(0);
  const params = parseParams(paramsText);
  const last = history[0];

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!params.ok || !method.trim()) return;
    const timeoutMs = typeof timeout === 'number' ? timeout : DEFAULT_TIMEOUT_MS;
    const started = performance.now();
    const base = {
      seq: ++seq.current,
      ts: Date.now(),
      kind,
      method: method.trim(),
      paramsText,
      timeout: timeoutMs,
    };
    let outcome: RpcCall['outcome'];
    try {
      const answer = await rpc.mutateAsync({
        kind,
        body: { method: method.trim(), params: params.value ?? {}, timeout: timeoutMs },
      });
      outcome = { ok: true, answer };
    } catch (err) {
      outcome = {
        ok: false,
        status: err instanceof ApiError ? err.status : 0,
        message: err instanceof Error ? err.message : String(err),
      };
    }
    const call: RpcCall = { ...base, elapsedMs: Math.round(performance.now() - started), outcome };
    setHistory((h) => [call, ...h].slice(0, HISTORY_SIZE));
  };

  const reuse = (call: RpcCall) => {
    setKind(call.kind);
    setMethod(call.method);
    setParamsText(call.paramsText);
    setTimeoutMs(call.timeout);
  };

  return (
    <Card withBorder radius="md" p="md" data-testid="rpc-console">
      <Stack gap="sm">
        <div>
          <Title order={4}>RPC console</Title>
          <Text size="xs" c="dimmed">
            Sends a command to the connected device (MQTT <code>v1/devices/me/rpc/request/+</code>, or its
            gateway’s <code>v1/gateway/rpc</code>).
          </Text>
        </div>
        <form onSubmit={(e) => void onSubmit(e)} aria-label="Send an RPC">
          <Stack gap="xs">
            <Group align="flex-end" gap="xs" wrap="wrap">
              <SegmentedControl
                aria-label="RPC kind"
                value={kind}
                onChange={(v) => setKind(v as RpcKind)}
                data={[
                  { value: 'twoway', label: 'Two-way' },
                  { value: 'oneway', label: 'One-way' },
                ]}
                data-testid="rpc-kind"
              />
              <TextInput
                label="Method"
                required
                maxLength={255}
                value={method}
                onChange={(e) => setMethod(e.currentTarget.value)}
                style={{ flex: 1, minWidth: 140 }}
                name="rpc-method"
              />
              <NumberInput
                label="Timeout (ms)"
                min={1}
                max={600_000}
                step={1000}
                allowDecimal={false}
                value={timeout}
                onChange={setTimeoutMs}
                w={130}
                name="rpc-timeout"
              />
            </Group>
            <Textarea
              label="Params (JSON)"
              autosize
              minRows={2}
              maxRows={8}
              value={paramsText}
              onChange={(e) => setParamsText(e.currentTarget.value)}
              error={params.ok ? undefined : params.error}
              spellCheck={false}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
              name="rpc-params"
            />
            <Group justify="space-between">
              <Text size="xs" c="dimmed">
                {rpc.isPending ? 'Waiting for the device…' : ' '}
              </Text>
              <Button type="submit" loading={rpc.isPending} disabled={!params.ok} data-testid="send-rpc">
                Send
              </Button>
            </Group>
          </Stack>
        </form>
        {last && <Outcome call={last} />}
        {history.length > 0 && (
          <Table verticalSpacing={4} data-testid="rpc-history">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                <Table.Th>Call</Table.Th>
                <Table.Th>Outcome</Table.Th>
                <Table.Th ta="right">Elapsed</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {history.map((call) => (
                <Table.Tr key={call.seq}>
                  <Table.Td>
                    <Text size="xs">{formatTime(call.ts)}</Text>
                  </Table.Td>
                  <Table.Td>
                    <UnstyledButton onClick={() => reuse(call)} title="Put this call back in the form">
                      <Text size="xs" ff="monospace">
                        {call.kind === 'oneway' ? '→ ' : '⇄ '}
                        {call.method}
                      </Text>
                    </UnstyledButton>
                  </Table.Td>
                  <Table.Td>
                    <Badge size="xs" variant="light" color={VERDICT_COLOR[verdictOf(call)]}>
                      {VERDICT_LABEL[verdictOf(call)]}
                    </Badge>
                  </Table.Td>
                  <Table.Td ta="right">
                    <Text size="xs">{formatNumber(call.elapsedMs)} ms</Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
    </Card>
  );
}
