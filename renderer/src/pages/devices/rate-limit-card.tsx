import { Anchor, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useDeviceTransportStats } from '../../api/transport-hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime } from '../../components/format.ts';
import { StatTile } from '../../components/stat-tile.tsx';
import { Link } from '../../router.tsx';

/** How many of this device's messages the transport rate limits refused since Sandboard started (live). */
export function RateLimitCard({ deviceId }: { deviceId: string }) {
  const stats = useDeviceTransportStats(deviceId);
  const s = stats.data;
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={4}>Rate limits</Title>
          <Anchor component={Link} to="/settings" size="sm">
            Set limits
          </Anchor>
        </Group>
        <ErrorAlert error={stats.error} title="Could not load the counters" />
        <StatTile
          label="Messages refused by a rate limit"
          value={s ? String(s.rateLimited) : undefined}
          color={s && s.rateLimited > 0 ? 'red' : undefined}
          testId="rate-limited-count"
          note={
            s?.lastRateLimit ? (
              <Text size="xs" c="dimmed" data-testid="rate-limited-last">
                Last: {s.lastRateLimit} at {formatDateTime(s.lastRateLimitedTs ?? 0)}
              </Text>
            ) : (
              <Text size="xs" c="dimmed">
                Since start, over MQTT and HTTP.
              </Text>
            )
          }
        />
      </Stack>
    </Card>
  );
}
