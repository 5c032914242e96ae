import { Badge, Button, Card, FileButton, Group, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useCurrentUser } from '../../api/hooks.ts';
import { useRecordings } from '../../api/recordings-hooks.ts';
import { useReplayRuns } from '../../api/replay-hooks.ts';
import { AdminOnlyPage } from '../../components/admin-only-page.tsx';
import { CopyValue } from '../../components/copy-value.tsx';
import { formatDateTime, formatNumber } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { ReplayPanel, type ReplaySource } from './replay-panel.tsx';

/** The largest recording file read in the browser (the server's bound for a recording sent as text). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

const CLI_EXAMPLE =
  'sandboard replay recording.jsonl --http http://127.0.0.1:8080 --mqtt mqtt://127.0.0.1:1883 ' +
  '--username tenant@thingsboard.org --password tenant --speed max --assert --report junit.xml';

/** Replay a recording file against this Sandboard and see expected against actual for each check. */
export default function ReplayPage() {
  const user = useCurrentUser();
  const isAdmin = user.data?.authority === 'TENANT_ADMIN';
  const runs = useReplayRuns(isAdmin);
  const recordings = useRecordings();
  // the Recordings page's Replay opens this page with ?recording=<id>
  const [chosenId, setChosenId] = useState<string | null>(() =>
    new URLSearchParams(window.location.search).get('recording'),
  );
  const [file, setFile] = useState<ReplaySource | undefined>();
  const saved = (recordings.data?.recordings ?? []).filter((r) => r.state !== 'recording');
  const chosen = saved.find((r) => r.id === chosenId);
  const source: ReplaySource | undefined = chosen ? { name: chosen.name, recordingId: chosen.id } : file;
  const [fileError, setFileError] = useState<string | undefined>();

  if (user.data && !isAdmin)
    return (
      <AdminOnlyPage title="Replay">
        Replays create devices: they belong to the tenant administrator.
      </AdminOnlyPage>
    );

  const pick = (file: File | null) => {
    setFileError(undefined);
    if (!file) return;
    if (file.size > MAX_FILE_BYTES) {
      setFileError(
        `${file.name} is ${formatNumber(file.size)} bytes, more than the ${formatNumber(MAX_FILE_BYTES)} allowed`,
      );
      return;
    }
    void file.text().then((text) => {
      setChosenId(null);
      setFile({ name: file.name, file: text });
    });
  };

  return (
    <Stack gap="md">
      <PageHeader
        title="Replay"
        description="Replay a recording (docs/recordings.md) against this Sandboard and check that the outcome is the same: reason codes, stored values, alarms, RPC answers."
      />
      <Group align="flex-end">
        <Select
          label="Saved recording"
          placeholder={saved.length ? 'Pick one' : 'None yet: record on the MQTT page or a simulation'}
          data={saved.map((r) => ({ value: r.id, label: `${r.name} (${formatNumber(r.records)} records)` }))}
          value={chosen ? chosen.id : null}
          onChange={setChosenId}
          searchable
          clearable
          w={360}
          data-testid="replay-pick-recording"
        />
        <Text size="sm" c="dimmed" mb={8}>
          or
        </Text>
        <FileButton onChange={pick} accept=".jsonl,.json,.ndjson,application/x-ndjson,application/json">
          {(props) => (
            <Button {...props} data-testid="replay-pick-file">
              Open a recording…
            </Button>
          )}
        </FileButton>
      </Group>
      {fileError && (
        <Text c="red" size="sm">
          {fileError}
        </Text>
      )}
      <ReplayPanel source={source} />
      <Card withBorder>
        <Stack gap="xs">
          <Title order={4}>In CI</Title>
          <Text size="sm" c="dimmed">
            The same replay from a shell, against a Sandboard or a real ThingsBoard, exits 1 naming each
            mismatch:
          </Text>
          <CopyValue value={CLI_EXAMPLE} block />
        </Stack>
      </Card>
      {(runs.data?.length ?? 0) > 0 && (
        <Card withBorder>
          <Title order={4} mb="xs">
            Recent replays
          </Title>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Recording</Table.Th>
                <Table.Th>Started</Table.Th>
                <Table.Th>Speed</Table.Th>
                <Table.Th>Sent</Table.Th>
                <Table.Th>Checks</Table.Th>
                <Table.Th>Result</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {runs.data!.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>{r.recording}</Table.Td>
                  <Table.Td>{formatDateTime(r.startedAt)}</Table.Td>
                  <Table.Td>{r.speed}</Table.Td>
                  <Table.Td>
                    {formatNumber(r.progress.messagesSent)} / {formatNumber(r.progress.messagesTotal)}
                  </Table.Td>
                  <Table.Td>
                    {r.progress.checksPassed} passed, {r.progress.checksFailed} failed
                  </Table.Td>
                  <Table.Td>
                    <Badge
                      color={
                        r.progress.state === 'passed'
                          ? 'green'
                          : r.progress.state === 'running'
                            ? 'blue'
                            : 'red'
                      }
                    >
                      {r.progress.state}
                    </Badge>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Card>
      )}
    </Stack>
  );
}
