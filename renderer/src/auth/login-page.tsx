import {
  Alert,
  Anchor,
  Box,
  Button,
  Center,
  Group,
  Paper,
  PasswordInput,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useRef, useState, type FormEvent } from 'react';
import type { DemoLogin } from '../../../shared/schemas/sandboard.ts';
import { useApi, useSessionStore } from '../api/api-context.tsx';
import { ApiError } from '../api/client.ts';
import { useDemoLogins } from '../api/hooks.ts';
import { PageReady } from '../components/page-ready.tsx';
import { ThemeToggle } from '../shell/theme-toggle.tsx';

const ROLE_NAMES: Record<string, string> = {
  TENANT_ADMIN: 'Tenant administrator',
  CUSTOMER_USER: 'Customer user',
};

/** The demo accounts of a fresh install, shown only while their passwords are still the defaults. */
function DemoLoginsTable({ logins, onUse }: { logins: DemoLogin[]; onUse: (login: DemoLogin) => void }) {
  if (logins.length === 0) return null;
  return (
    <Paper withBorder p="md" radius="md" data-testid="demo-logins">
      <Text fw={600} size="sm" mb={4}>
        Demo logins
      </Text>
      <Text size="xs" c="dimmed" mb="sm">
        A fresh install has these accounts with their default passwords. Change them on the Security page.
      </Text>
      <Table verticalSpacing={6} fz="sm">
        <Table.Tbody>
          {logins.map((login) => (
            <Table.Tr key={login.email}>
              <Table.Td>
                <Text size="sm" ff="monospace">
                  {login.email}
                </Text>
                <Text size="xs" c="dimmed">
                  {ROLE_NAMES[login.authority] ?? login.authority} · password{' '}
                  <Text span ff="monospace" size="xs">
                    {login.password}
                  </Text>
                </Text>
              </Table.Td>
              <Table.Td style={{ textAlign: 'right' }}>
                <Button size="xs" variant="light" onClick={() => onUse(login)}>
                  Use
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}

export function LoginPage() {
  const client = useApi();
  const sessions = useSessionStore();
  const demoLogins = useDemoLogins();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submitRef = useRef<HTMLButtonElement>(null);
  const endReason = sessions.lastEndReason;

  const logIn = async (username: string, secret: string) => {
    setBusy(true);
    setError(null);
    try {
      await client.login(username, secret);
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? 'Wrong email or password.'
          : err instanceof Error
            ? err.message
            : String(err),
      );
      setBusy(false);
    }
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void logIn(email.trim(), password);
  };

  const useDemo = (login: DemoLogin) => {
    setEmail(login.email);
    setPassword(login.password);
    submitRef.current?.focus();
  };

  return (
    <Box mih="100vh" p="md" style={{ display: 'flex', flexDirection: 'column' }}>
      {!demoLogins.isPending && <PageReady page="login" />}
      <Group justify="flex-end">
        <ThemeToggle />
      </Group>
      <Center style={{ flex: 1 }}>
        <Stack w={400} maw="100%" gap="md">
          <Stack gap={2} align="center">
            <Title order={1}>Sandboard</Title>
            <Text c="dimmed" size="sm" ta="center">
              A ThingsBoard-compatible IoT platform on this machine, offline.
            </Text>
          </Stack>
          <Paper withBorder shadow="sm" p="lg" radius="md">
            <form onSubmit={onSubmit} aria-label="Log in">
              <Stack gap="sm">
                {endReason && !error && (
                  <Alert color="yellow" variant="light" role="status">
                    {endReason}
                  </Alert>
                )}
                <TextInput
                  label="Email"
                  type="email"
                  name="username"
                  autoComplete="username"
                  autoFocus
                  required
                  value={email}
                  onChange={(e) => setEmail(e.currentTarget.value)}
                />
                <PasswordInput
                  label="Password"
                  name="password"
                  autoComplete="current-password"
                  required
                  value={password}
                  onChange={(e) => setPassword(e.currentTarget.value)}
                />
                {error && (
                  <Alert color="red" variant="light" role="alert">
                    {error}
                  </Alert>
                )}
                <Button type="submit" loading={busy} fullWidth ref={submitRef} mt="xs">
                  Log in
                </Button>
              </Stack>
            </form>
          </Paper>
          <DemoLoginsTable logins={demoLogins.data ?? []} onUse={useDemo} />
          <Text size="xs" c="dimmed" ta="center">
            The REST API and its explorer: <Anchor href="/swagger-ui/">/swagger-ui/</Anchor>
          </Text>
        </Stack>
      </Center>
    </Box>
  );
}
