import { Button, Card, Group, Skeleton, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { parseRateLimit } from '../../../shared/rate-limit-spec.ts';
import { TRANSPORT_LIMIT_KEYS } from '../../../shared/schemas/transport-limits.ts';
import type { TransportLimits } from '../api/transport-api.ts';
import { useSaveTransportLimits, useTransportLimits } from '../api/transport-hooks.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { useSavedNotice } from '../components/saved-notice.tsx';

type Key = keyof TransportLimits;

/** ThingsBoard's tenant profile fields, as rows (who) by columns (what). */
const ROWS: { label: string; note: string; keys: [Key, Key, Key] }[] = [
  {
    label: 'Tenant',
    note: 'all devices together',
    keys: [
      'transportTenantMsgRateLimit',
      'transportTenantTelemetryMsgRateLimit',
      'transportTenantTelemetryDataPointsRateLimit',
    ],
  },
  {
    label: 'Device',
    note: 'each device',
    keys: [
      'transportDeviceMsgRateLimit',
      'transportDeviceTelemetryMsgRateLimit',
      'transportDeviceTelemetryDataPointsRateLimit',
    ],
  },
  {
    label: 'Gateway',
    note: 'the devices behind one gateway, together',
    keys: [
      'transportGatewayMsgRateLimit',
      'transportGatewayTelemetryMsgRateLimit',
      'transportGatewayTelemetryDataPointsRateLimit',
    ],
  },
  {
    label: 'Gateway device',
    note: "a gateway's own messages",
    keys: [
      'transportGatewayDeviceMsgRateLimit',
      'transportGatewayDeviceTelemetryMsgRateLimit',
      'transportGatewayDeviceTelemetryDataPointsRateLimit',
    ],
  },
];
/**
 * What each column counts, as ThingsBoard's tenant profile: telemetry takes from the telemetry columns
 * only, so "Messages" never counts telemetry (a 3:10 there lets telemetry through).
 */
const COLUMNS: { label: string; counts: string }[] = [
  { label: 'Other messages', counts: 'not telemetry: attribute updates and requests, RPC, claiming' },
  { label: 'Telemetry messages', counts: 'telemetry publishes, 1 each' },
  { label: 'Telemetry data points', counts: 'each key of each telemetry message' },
];

/**
 * The transport rate limits ThingsBoard's tenant profile sets, enforced by MQTT and the device HTTP
 * API: reproduce production limits on a laptop. Empty = unlimited.
 */
export function TransportLimitsCard() {
  const limits = useTransportLimits();
  const save = useSaveTransportLimits();
  const savedNotice = useSavedNotice();
  const [draft, setDraft] = useState<TransportLimits | null>(null);
  useEffect(() => {
    if (limits.data && !draft) setDraft(limits.data);
  }, [limits.data, draft]);

  const errors = Object.fromEntries(
    TRANSPORT_LIMIT_KEYS.map((k) => {
      const parsed = parseRateLimit(draft?.[k] ?? '');
      return [k, parsed.ok ? null : parsed.error];
    }),
  ) as Record<Key, string | null>;
  const invalid = Object.values(errors).some((e) => e !== null);
  const changed = !!draft && !!limits.data && TRANSPORT_LIMIT_KEYS.some((k) => draft[k] !== limits.data[k]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!draft || invalid) return;
    save.mutate(draft, {
      onSuccess: (saved) => {
        setDraft(saved);
        savedNotice.show('Transport rate limits saved; they apply to the next message.');
      },
    });
  };

  return (
    <Card withBorder radius="md" p="md" data-testid="transport-limits">
      <form onSubmit={submit}>
        <Stack gap="xs">
          <Title order={4}>Transport rate limits</Title>
          <Text size="sm" c="dimmed">
            ThingsBoard&apos;s tenant profile limits, enforced on MQTT and the device HTTP API and reported to
            clients by getSessionLimits. <code>N:S,N:S</code> = at most N per S seconds, every window
            enforced; empty = unlimited. Past a limit MQTT 5 devices get DISCONNECT 0x83 (0x97 for a device
            behind a gateway), MQTT 3.1.1 ones are disconnected, HTTP answers 429.
          </Text>
          <ErrorAlert error={limits.error} title="Could not load the limits" />
          {!draft ? (
            !limits.error && <Skeleton h={180} />
          ) : (
            <Table layout="fixed" verticalSpacing={4}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th w={170} />
                  {COLUMNS.map((c) => (
                    <Table.Th key={c.label} data-testid="limit-column">
                      <Text size="sm" fw={700}>
                        {c.label}
                      </Text>
                      <Text size="xs" c="dimmed" fw={400}>
                        {c.counts}
                      </Text>
                    </Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {ROWS.map((row) => (
                  <Table.Tr key={row.label}>
                    <Table.Th>
                      <Text size="sm" fw={600}>
                        {row.label}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {row.note}
                      </Text>
                    </Table.Th>
                    {row.keys.map((key, i) => (
                      <Table.Td key={key}>
                        <TextInput
                          size="xs"
                          ff="monospace"
                          aria-label={`${row.label}: ${COLUMNS[i]!.label.toLowerCase()} (${COLUMNS[i]!.counts})`}
                          placeholder="unlimited"
                          value={draft[key]}
                          error={errors[key]}
                          onChange={(e) => setDraft({ ...draft, [key]: e.currentTarget.value })}
                          data-testid={`limit-${key}`}
                        />
                      </Table.Td>
                    ))}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
          <ErrorAlert error={save.error} title="Could not save the limits" />
          {savedNotice.notice}
          <Group justify="flex-end">
            <Button
              variant="default"
              disabled={!changed}
              onClick={() => limits.data && setDraft(limits.data)}
            >
              Reset
            </Button>
            <Button
              type="submit"
              disabled={!changed || invalid}
              loading={save.isPending}
              data-testid="save-limits"
            >
              Save limits
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
