import { Badge, Button, Code, Group, Paper, Stack, Table, Text, Tooltip } from '@mantine/core';
import { useState } from 'react';
import type { MqttSessionInfo } from '../../api/mqtt-api.ts';
import { useDisconnectMqttSession, useMqttSessions } from '../../api/mqtt-hooks.ts';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { EmptyTableRow } from '../../components/empty-table-row.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime, formatNumber } from '../../components/format.ts';
import { Link } from '../../router.tsx';
import { reasonCodeLabel } from './reason-codes.ts';

function Limits({ s }: { s: MqttSessionInfo }) {
  const r = s.limits.rateLimits;
  const rates = [
    r.messages && `msgs ${r.messages}`,
    r.telemetryMessages && `telemetry ${r.telemetryMessages}`,
  ]
    .filter(Boolean)
    .join(', ');
  return (
    <Text size="xs" c="dimmed">
      {formatNumber(s.limits.maxPayloadSize)} B payload, {s.limits.maxInflightMessages} in flight
      {rates ? `; ${rates}` : '; no rate limit'}
    </Text>
  );
}

/** Every client connected to the broker, with its device and counters; a session can be ended. */
export function SessionsTab() {
  const sessions = useMqttSessions();
  const disconnect = useDisconnectMqttSession();
  const [ending, setEnding] = useState<MqttSessionInfo | null>(null);
  const list = sessions.data ?? [];
  return (
    <Stack gap="sm">
      <ErrorAlert error={sessions.error} />
      <Paper withBorder radius="md">
        <Table.ScrollContainer minWidth={1000}>
          <Table verticalSpacing="xs" data-testid="mqtt-sessions-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Client id</Table.Th>
                <Table.Th>Device</Table.Th>
                <Table.Th>Protocol</Table.Th>
                <Table.Th>Address</Table.Th>
                <Table.Th>Connected since</Table.Th>
                <Table.Th>Subscriptions</Table.Th>
                <Table.Th>In / out</Table.Th>
                <Table.Th>Last answer</Table.Th>
                <Table.Th>Limits</Table.Th>
                <Table.Th style={{ width: 1 }} aria-label="Actions" />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.length === 0 && (
                <EmptyTableRow columns={10} roomy>
                  {sessions.isLoading ? 'Loading…' : 'No MQTT client is connected'}
                </EmptyTableRow>
              )}
              {list.map((s) => (
                <Table.Tr key={s.sessionId} data-testid="mqtt-session-row" data-client-id={s.clientId}>
                  <Table.Td>
                    <Code>{s.clientId}</Code>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={6} wrap="nowrap">
                      <Link to={`/devices/${s.device.id}`}>{s.device.name}</Link>
                      {s.gateway && (
                        <Badge size="xs" variant="light">
                          gateway
                        </Badge>
                      )}
                    </Group>
                    {s.devices.length > 0 && (
                      <Text size="xs" c="dimmed" data-testid="mqtt-session-devices">
                        {s.devices.length} device{s.devices.length === 1 ? '' : 's'}:{' '}
                        {s.devices
                          .slice(0, 5)
                          .map((d) => d.name)
                          .join(', ')}
                        {s.devices.length > 5 ? '…' : ''}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{s.protocolVersion === 5 ? 'MQTT 5' : 'MQTT 3.1.1'}</Table.Td>
                  <Table.Td>{s.address}</Table.Td>
                  <Table.Td>{formatDateTime(s.connectedSince)}</Table.Td>
                  <Table.Td>
                    {s.subscriptions.map((sub) => (
                      <Text key={sub.topic} size="xs" ff="monospace">
                        {sub.topic} (QoS {sub.qos})
                      </Text>
                    ))}
                  </Table.Td>
                  <Table.Td>
                    {formatNumber(s.messagesIn)} / {formatNumber(s.messagesOut)}
                  </Table.Td>
                  <Table.Td>{s.lastReasonCode === null ? '—' : reasonCodeLabel(s.lastReasonCode)}</Table.Td>
                  <Table.Td>
                    <Limits s={s} />
                  </Table.Td>
                  <Table.Td>
                    <Tooltip label="End this connection">
                      <Button size="xs" variant="light" color="red" onClick={() => setEnding(s)}>
                        Disconnect
                      </Button>
                    </Tooltip>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
      <ConfirmModal
        opened={ending !== null}
        title="Disconnect this client?"
        confirmLabel="Disconnect"
        busy={disconnect.isPending}
        error={disconnect.error}
        onClose={() => setEnding(null)}
        onConfirm={() => ending && disconnect.mutate(ending.sessionId, { onSuccess: () => setEnding(null) })}
      >
        {`The broker closes the connection of ${ending?.clientId ?? ''} (${ending?.device.name ?? ''}); a device that reconnects by itself comes back.`}
      </ConfirmModal>
    </Stack>
  );
}
