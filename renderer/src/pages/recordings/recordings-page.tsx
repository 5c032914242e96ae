import { Alert, Button, Code, Group, Modal, Stack, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { useState } from 'react';
import { useApi } from '../../api/api-context.tsx';
import { useCurrentUser } from '../../api/hooks.ts';
import { recordingFile, type RecordingInfo } from '../../api/recordings-api.ts';
import {
  useDeleteRecording,
  useRecordings,
  useRenameRecording,
  useStopRecording,
} from '../../api/recordings-hooks.ts';
import { AdminOnlyPage } from '../../components/admin-only-page.tsx';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { CopyValue } from '../../components/copy-value.tsx';
import { fileNameFor, saveTextFile } from '../../components/desktop-files.ts';
import { EmptyTableRow } from '../../components/empty-table-row.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { countersOf, durationOf, formatBytes, RecordingStateBadge } from './recording-ui.tsx';
import { RecordingRowActions } from './recording-row-actions.tsx';

function RenameModal({ recording, onClose }: { recording: RecordingInfo | null; onClose: () => void }) {
  const rename = useRenameRecording();
  const [name, setName] = useState('');
  const save = () => {
    if (!recording || !name.trim()) return;
    rename.mutate({ id: recording.id, name: name.trim() }, { onSuccess: onClose });
  };
  return (
    <Modal opened={recording !== null} onClose={onClose} title="Rename the recording" centered>
      <Stack gap="sm">
        <TextInput
          label="Name"
          data-autofocus
          maxLength={255}
          defaultValue={recording?.name}
          onChange={(e) => setName(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Enter' && save()}
          data-testid="rename-recording-name"
        />
        <ErrorAlert error={rename.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={save} loading={rename.isPending} data-testid="rename-recording-save">
            Rename
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function whatOf(r: RecordingInfo): string {
  const { devices, deviceTypes, topics } = r.filter;
  const parts = [
    devices?.length ? `devices ${devices.join(', ')}` : '',
    deviceTypes?.length ? `types ${deviceTypes.join(', ')}` : '',
    topics?.length ? `topics ${topics.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'every device';
}

const CURL = `curl -X POST "$SANDBOARD/api/sandboard/recordings" \\
  -H "X-Authorization: Bearer $TOKEN" -H "content-type: application/json" \\
  -d '{"durationMs":60000,"filter":{"deviceTypes":["thermostat"]},"name":"Nightly"}'`;

/** Recordings of device traffic and its outcomes: their counters, and what to do with each. */
export default function RecordingsPage() {
  const client = useApi();
  const user = useCurrentUser();
  const recordings = useRecordings();
  const stop = useStopRecording();
  const remove = useDeleteRecording();
  const [renaming, setRenaming] = useState<RecordingInfo | null>(null);
  const [deleting, setDeleting] = useState<RecordingInfo | null>(null);
  const [downloadError, setDownloadError] = useState<unknown>(null);

  if (user.data && user.data.authority !== 'TENANT_ADMIN')
    return <AdminOnlyPage title="Recordings">Recordings belong to the tenant administrator.</AdminOnlyPage>;

  const download = async (r: RecordingInfo) => {
    setDownloadError(null);
    try {
      await saveTextFile(fileNameFor(r.name, 'ndjson'), await recordingFile(client, r.id), {
        title: 'Save the recording',
        filters: [{ name: 'Recording (JSON Lines)', extensions: ['ndjson', 'jsonl'] }],
        type: 'application/x-ndjson',
      });
    } catch (err) {
      setDownloadError(err);
    }
  };

  const data = recordings.data;
  const list = data?.recordings ?? [];
  return (
    <Stack gap="md">
      <PageHeader
        title="Recordings"
        description="Device and gateway traffic with its outcomes (reason codes, RPC answers, alarms, latest values), recorded with Record on the MQTT page or a simulation, one JSON Lines file each."
      />
      {data && (
        <Text size="sm" c="dimmed" data-testid="recordings-usage">
          {formatBytes(data.usedBytes)} of {formatBytes(data.totalMaxBytes)} for all recordings; each at most{' '}
          {formatBytes(data.recordingMaxBytes)}.
        </Text>
      )}
      <ErrorAlert error={recordings.error} title="Could not load the recordings" />
      <ErrorAlert error={downloadError} title="Could not download" />
      <ErrorAlert error={stop.error} title="Could not stop" />
      <Table.ScrollContainer minWidth={900}>
        <Table striped highlightOnHover data-testid="recordings-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>Started</Table.Th>
              <Table.Th>Duration</Table.Th>
              <Table.Th>Records</Table.Th>
              <Table.Th>What</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.length === 0 && (
              <EmptyTableRow columns={7} roomy>
                {recordings.isLoading
                  ? 'Loading…'
                  : 'No recordings yet: press Record on the MQTT page or on a simulation.'}
              </EmptyTableRow>
            )}
            {list.map((r) => (
              <Table.Tr key={r.id} data-testid="recording-row" data-name={r.name}>
                <Table.Td>
                  <Text size="sm" fw={500}>
                    {r.name}
                  </Text>
                  {r.reason && (
                    <Text size="xs" c={r.truncated ? 'red' : 'dimmed'} data-testid="recording-reason">
                      {r.truncated ? 'Truncated: ' : ''}
                      {r.reason}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <RecordingStateBadge recording={r} />
                </Table.Td>
                <Table.Td>{formatDateTime(r.startedAt)}</Table.Td>
                <Table.Td>{durationOf(r)}</Table.Td>
                <Table.Td data-testid="recording-counters">{countersOf(r)}</Table.Td>
                <Table.Td>
                  <Text size="xs" c="dimmed" lineClamp={2} maw={220}>
                    {whatOf(r)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    {r.state === 'recording' && (
                      <Button size="compact-xs" color="red" variant="light" onClick={() => stop.mutate(r.id)}>
                        Stop
                      </Button>
                    )}
                    <Tooltip label="The file, JSON Lines (docs/recordings.md)">
                      <Button size="compact-xs" variant="default" onClick={() => void download(r)}>
                        Download
                      </Button>
                    </Tooltip>
                    <Button size="compact-xs" variant="default" onClick={() => setRenaming(r)}>
                      Rename
                    </Button>
                    <RecordingRowActions recording={r} />
                    <Button size="compact-xs" variant="subtle" color="red" onClick={() => setDeleting(r)}>
                      Delete
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Alert variant="light" color="gray" title="From a script">
        <Stack gap={4}>
          <Text size="sm">
            Start one with the REST API, then fetch <Code>GET /api/sandboard/recordings/{'{id}'}/file</Code>:
          </Text>
          <CopyValue value={CURL} block label="Copy the curl command" />
        </Stack>
      </Alert>
      <RenameModal key={renaming?.id ?? ''} recording={renaming} onClose={() => setRenaming(null)} />
      <ConfirmModal
        opened={deleting !== null}
        title="Delete the recording"
        confirmLabel="Delete"
        busy={remove.isPending}
        error={remove.error}
        onConfirm={() => deleting && remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })}
        onClose={() => setDeleting(null)}
        testId="confirm-delete-recording"
      >
        {`Delete ${deleting?.name ?? ''} and its file${deleting?.state === 'recording' ? ' (it stops recording)' : ''}?`}
      </ConfirmModal>
    </Stack>
  );
}
