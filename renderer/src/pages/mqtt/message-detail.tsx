import { Badge, Code, Group, Paper, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { InspectedMessage } from '../../api/mqtt-api.ts';
import { usePlatformInfo } from '../../api/hooks.ts';
import { CopyValue } from '../../components/copy-value.tsx';
import { formatDateTime, formatNumber } from '../../components/format.ts';
import { reasonCodeLabel } from './reason-codes.ts';
import { snippet, TOKEN_VARIABLE, type SnippetKind } from './snippets.ts';

type View = 'json' | 'text' | 'hex';

/** A payload shown as formatted JSON, text or hex. */
export function PayloadView({ payload }: { payload: InspectedMessage['payload'] }) {
  const [view, setView] = useState<View>(
    payload.format === 'binary' ? 'hex' : payload.format === 'json' ? 'json' : 'text',
  );
  const shown =
    view === 'json' && payload.format === 'json'
      ? JSON.stringify(payload.json, null, 2)
      : view === 'hex'
        ? (payload.hex.match(/.{1,2}/g) ?? []).join(' ') + (payload.size > payload.hex.length / 2 ? ' …' : '')
        : (payload.text ?? '');
  return (
    <Stack gap={4}>
      <Group justify="space-between">
        <Text size="xs" c="dimmed">
          {formatNumber(payload.size)} bytes, {payload.format}
        </Text>
        <SegmentedControl
          size="xs"
          value={view}
          onChange={(v) => setView(v as View)}
          data={[
            { value: 'json', label: 'JSON', disabled: payload.format !== 'json' },
            { value: 'text', label: 'Text', disabled: payload.format === 'binary' },
            { value: 'hex', label: 'Hex' },
          ]}
        />
      </Group>
      <Code
        block
        style={{ maxHeight: 280, overflow: 'auto', whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
        data-testid="payload-view"
      >
        {shown}
      </Code>
    </Stack>
  );
}

/** One message: where it came from, what the platform answered, its payload and how to send it again. */
export function MessageDetail({ message }: { message: InspectedMessage }) {
  const info = usePlatformInfo();
  const [kind, setKind] = useState<SnippetKind>('mosquitto_pub');
  const mqttUrl = info.data?.mqtt ?? 'mqtt://127.0.0.1:1883';
  return (
    <Paper withBorder radius="md" p="md" data-testid="mqtt-message-detail">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={5} ff="monospace">
            {message.topic}
          </Title>
          <Badge
            color={message.reasonCode === 0 ? 'teal' : 'red'}
            variant="light"
            data-testid="detail-reason"
          >
            {reasonCodeLabel(message.reasonCode)}
          </Badge>
        </Group>
        <Text size="sm">
          {message.direction === 'in' ? 'From' : 'To'} <b>{message.device.name}</b> ({message.clientId}),{' '}
          {formatDateTime(message.ts)}, QoS {message.qos}
          {message.retain ? ', retained' : ''}, MQTT {message.protocolVersion === 5 ? '5' : '3.1.1'}
        </Text>
        {message.devices.length > 0 && (
          <Text size="sm">Devices behind the gateway: {message.devices.map((d) => d.name).join(', ')}</Text>
        )}
        {message.reason && (
          <Text size="sm" c="red">
            {message.reason}
          </Text>
        )}
        {message.msgIds.length > 0 && (
          <Text size="xs" c="dimmed">
            Rule engine message{message.msgIds.length > 1 ? 's' : ''}:{' '}
            {message.msgIds.map((id) => (
              <Code key={id} data-testid="detail-msg-id">
                {id}
              </Code>
            ))}
          </Text>
        )}
        {message.properties && (
          <Text size="xs">
            MQTT 5 properties: <Code>{JSON.stringify(message.properties)}</Code>
          </Text>
        )}
        <PayloadView key={message.seq} payload={message.payload} />
        <Group justify="space-between">
          <Text size="sm" fw={600}>
            Send it again
          </Text>
          <SegmentedControl
            size="xs"
            value={kind}
            onChange={(v) => setKind(v as SnippetKind)}
            data={['mosquitto_pub', 'mqtt.js', 'paho']}
            data-testid="snippet-kind"
          />
        </Group>
        <CopyValue
          value={snippet(kind, message, mqttUrl)}
          label={`Copy as ${kind}`}
          block
          testId="message-snippet"
        />
        <Text size="xs" c="dimmed">
          Set {TOKEN_VARIABLE} to the device&apos;s access token first: the inspector never shows credentials.
        </Text>
      </Stack>
    </Paper>
  );
}
