import { Alert, Button, Card, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useChangePassword } from '../../api/hooks.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';

const MIN_LENGTH = 6;

/** Changes the password; the session continues with the fresh tokens, older tokens stop working. */
export function ChangePasswordCard() {
  const change = useChangePassword();
  const qc = useQueryClient();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [done, setDone] = useState(false);
  const mismatch = repeat.length > 0 && next !== repeat;
  const tooShort = next.length > 0 && next.length < MIN_LENGTH;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (mismatch || tooShort) return;
    setDone(false);
    change.mutate(
      { currentPassword: current, newPassword: next },
      {
        onSuccess: () => {
          setCurrent('');
          setNext('');
          setRepeat('');
          setDone(true);
          void qc.invalidateQueries({ queryKey: queryKeys.demoLogins });
        },
      },
    );
  };

  return (
    <Card withBorder radius="md" p="md">
      <form onSubmit={onSubmit} aria-label="Change password">
        <Stack gap="sm" maw={420}>
          <Title order={4}>Change password</Title>
          <Text size="xs" c="dimmed">
            Tokens issued before the change stop working, in every tab and the API explorer; this tab goes on
            with new ones. Sandboard only listens beyond 127.0.0.1 once no demo account has its default
            password.
          </Text>
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            required
            value={current}
            onChange={(e) => setCurrent(e.currentTarget.value)}
            name="currentPassword"
          />
          <PasswordInput
            label="New password"
            description={`At least ${MIN_LENGTH} characters`}
            autoComplete="new-password"
            required
            value={next}
            onChange={(e) => setNext(e.currentTarget.value)}
            error={tooShort ? `Use at least ${MIN_LENGTH} characters` : undefined}
            name="newPassword"
          />
          <PasswordInput
            label="Repeat new password"
            autoComplete="new-password"
            required
            value={repeat}
            onChange={(e) => setRepeat(e.currentTarget.value)}
            error={mismatch ? 'The passwords differ' : undefined}
            name="repeatPassword"
          />
          <ErrorAlert error={change.error} title="Could not change the password" />
          {done && (
            <Alert color="teal" variant="light" role="status">
              Password changed.
            </Alert>
          )}
          <Button type="submit" loading={change.isPending} w="fit-content">
            Change password
          </Button>
        </Stack>
      </form>
    </Card>
  );
}
