import { Anchor, Button, Group, NumberInput, Popover, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useCurrentUser } from '../../api/hooks.ts';
import type { RecordingFilter } from '../../api/recordings-api.ts';
import { useRecording, useStartRecording, useStopRecording } from '../../api/recordings-hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { Link } from '../../router.tsx';
import { countersOf, durationOf } from './recording-ui.tsx';

const DEFAULT_SECONDS = 60;

/** The recording a page started, kept for the browser tab's life so that coming back shows it. */
function useStartedHere(scope: string): [string | null, (id: string | null) => void] {
  const key = `sandboard.recording.${scope}`;
  const [id, setId] = useState<string | null>(() => sessionStorage.getItem(key));
  const set = (next: string | null) => {
    if (next === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, next);
    setId(next);
  };
  return [id, set];
}

/**
 * Record: starts a recording of `filter`'s devices (docs/recordings.md), then shows its live counters
 * and a Stop; once it ended, what it holds and, when its size bound cut it, why.
 */
export function RecordButton({
  filter,
  scope,
  what,
  defaultName,
}: {
  filter: RecordingFilter;
  /** where it is (the MQTT page, a simulation): the page shows the recording it started */
  scope: string;
  /** what it records, for the form: "every device", "this simulation's devices" */
  what: string;
  defaultName?: string;
}) {
  const [id, setId] = useStartedHere(scope);
  const [opened, setOpened] = useState(false);
  const [seconds, setSeconds] = useState<number | string>(DEFAULT_SECONDS);
  const [name, setName] = useState('');
  const start = useStartRecording();
  const stop = useStopRecording();
  const recording = useRecording(id);
  const r = recording.data;

  const onStart = () => {
    const s = typeof seconds === 'number' && seconds > 0 ? seconds : DEFAULT_SECONDS;
    const chosen = name.trim() || defaultName;
    start.mutate(
      { durationMs: Math.round(s * 1000), filter, ...(chosen ? { name: chosen } : {}) },
      {
        onSuccess: (started) => {
          setOpened(false);
          setId(started.id);
        },
      },
    );
  };

  const user = useCurrentUser();
  const gone = id !== null && recording.error !== null;
  useEffect(() => {
    if (gone) setId(null); // deleted meanwhile
  }, [gone]);

  if (user.data?.authority !== 'TENANT_ADMIN') return null;
  if (r?.state === 'recording')
    return (
      <Group gap="xs" wrap="nowrap" data-testid="record-live">
        <Text size="sm" c="red" fw={600} aria-live="polite" data-testid="record-counters">
          ● {countersOf(r)} · {durationOf(r)}
        </Text>
        <Button
          size="xs"
          color="red"
          variant="light"
          loading={stop.isPending}
          onClick={() => stop.mutate(r.id)}
          data-testid="record-stop"
        >
          Stop
        </Button>
      </Group>
    );
  return (
    <Group gap="xs" wrap="nowrap">
      {r && (
        <Text size="sm" c={r.truncated ? 'red' : 'dimmed'} data-testid="record-done">
          {r.truncated ? `Cut at its size bound (${r.reason ?? 'truncated'}): ` : 'Recorded '}
          {countersOf(r)} ·{' '}
          <Anchor component={Link} to="/recordings" size="sm">
            Recordings
          </Anchor>
        </Text>
      )}
      <Popover opened={opened} onChange={setOpened} position="bottom-end" withArrow trapFocus>
        <Popover.Target>
          <Button
            size="xs"
            color="red"
            variant="light"
            onClick={() => setOpened((o) => !o)}
            data-testid="record-button"
          >
            ● Record
          </Button>
        </Popover.Target>
        <Popover.Dropdown>
          <Stack gap="xs" w={260}>
            <Text size="sm">Record {what}: traffic, RPC, attribute updates and their outcomes.</Text>
            <NumberInput
              label="Duration (seconds)"
              min={1}
              max={86_400}
              allowDecimal={false}
              value={seconds}
              onChange={setSeconds}
              data-testid="record-seconds"
            />
            <TextInput
              label="Name"
              placeholder={defaultName ?? 'Recording and the time'}
              value={name}
              maxLength={255}
              onChange={(e) => setName(e.currentTarget.value)}
              onKeyDown={(e) => e.key === 'Enter' && onStart()}
              data-testid="record-name"
            />
            <ErrorAlert error={start.error} />
            <Button
              size="xs"
              color="red"
              onClick={onStart}
              loading={start.isPending}
              data-testid="record-start"
            >
              Start recording
            </Button>
          </Stack>
        </Popover.Dropdown>
      </Popover>
      <ErrorAlert error={stop.error} />
    </Group>
  );
}
