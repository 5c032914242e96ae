import { Button, Card, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useApi, useSession } from '../../api/api-context.tsx';
import { useCurrentUser } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime, formatDuration } from '../../components/format.ts';
import { refreshMarginMs } from '../../auth/use-silent-refresh.ts';
import { ROLE_NAMES } from '../../shell/user-menu.tsx';

/** Ticks every second while mounted. */
function useSecondTick(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, []);
  return now;
}

/** Who is logged in and how long the access token lasts; it renews itself before it runs out. */
export function SessionCard() {
  const client = useApi();
  const session = useSession();
  const user = useCurrentUser();
  const now = useSecondTick();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (!session) return null;
  const refresh = async () => {
    setBusy(true);
    setError(null);
    try {
      await client.refreshSession();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const renewsAt = session.expiresAt - refreshMarginMs(session);
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="sm">
        <Title order={4}>Current session</Title>
        <Table variant="vertical" layout="fixed" withTableBorder={false}>
          <Table.Tbody>
            <Table.Tr>
              <Table.Th w={180}>User</Table.Th>
              <Table.Td data-testid="session-user">{user.data?.email ?? session.email}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Role</Table.Th>
              <Table.Td>{ROLE_NAMES[session.authority] ?? session.authority}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Token expires in</Table.Th>
              <Table.Td>
                <Text span ff="monospace" data-testid="token-countdown">
                  {formatDuration(session.expiresAt - now)}
                </Text>{' '}
                <Text span size="xs" c="dimmed">
                  (at {formatDateTime(session.expiresAt)}; renewed automatically at {formatDateTime(renewsAt)}
                  )
                </Text>
              </Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
        <ErrorAlert error={error} title="Could not refresh the token" />
        <Group>
          <Button variant="light" onClick={() => void refresh()} loading={busy} data-testid="refresh-token">
            Refresh token now
          </Button>
          <Button variant="default" color="red" onClick={() => void client.logout()}>
            Log out
          </Button>
        </Group>
        <Text size="xs" c="dimmed">
          The token lives in this tab only (memory and sessionStorage), never in a cookie.
        </Text>
      </Stack>
    </Card>
  );
}
