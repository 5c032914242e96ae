import {
  Alert,
  Button,
  Card,
  Checkbox,
  FileInput,
  Group,
  Progress,
  SegmentedControl,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type {
  ClassStartStatus,
  SandboxConflictMode,
  SandboxImportResult,
  SandboxJob,
  SandboxPlan,
} from '../../../../shared/schemas/sandbox.ts';
import { useApi } from '../../api/api-context.tsx';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { saveTextFile } from '../../components/desktop-files.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageHeader } from '../../components/page-header.tsx';

const BASE = '/api/sandboard/sandbox';
/** what a reset is said to lose, in words, by the counts' keys */
const COUNTED: [key: string, label: string][] = [
  ['devices', 'devices'],
  ['assets', 'assets'],
  ['customers', 'customers'],
  ['users', 'users'],
  ['dashboards', 'dashboards'],
  ['rule_chains', 'rule chains'],
  ['alarms', 'alarms'],
  ['history', 'telemetry rows'],
  ['recordings', 'recordings'],
];

function ExportCard() {
  const client = useApi();
  const [history, setHistory] = useState(true);
  const [passwords, setPasswords] = useState(false);
  const [recordings, setRecordings] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const text = await client.request<string>('GET', `${BASE}/export`, {
        query: { history, includePasswords: passwords, recordings },
        text: true,
        headers: { accept: 'application/x-ndjson' },
      });
      const day = new Date().toISOString().slice(0, 10);
      setSaved(await saveTextFile(`sandbox-${day}.sandbox.jsonl`, text, { type: 'application/x-ndjson' }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="xs">
        <Title order={4}>Export this sandbox</Title>
        <Text size="sm" c="dimmed">
          One file with devices and their credentials, profiles, assets, relations, customers, users, rule
          chains, dashboards, simulations, REST connectors, table views, MQTT snippets and recordings, plus
          the parts ThingsBoard imports in its own formats.
        </Text>
        <Checkbox
          label="Telemetry history"
          checked={history}
          onChange={(e) => setHistory(e.currentTarget.checked)}
        />
        <Checkbox
          label="Users' passwords (hashed) and API keys"
          checked={passwords}
          onChange={(e) => setPasswords(e.currentTarget.checked)}
        />
        <Checkbox
          label="Recordings of device traffic"
          checked={recordings}
          onChange={(e) => setRecordings(e.currentTarget.checked)}
          data-testid="sandbox-export-recordings"
        />
        <ErrorAlert error={error} title="The export failed" />
        {saved && <Text size="sm">Saved {saved}</Text>}
        <Group>
          <Button onClick={() => void run()} loading={busy} data-testid="sandbox-export">
            Export
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

function PlanTable({ plan }: { plan: SandboxPlan }) {
  return (
    <Table data-testid="sandbox-plan" striped>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Table</Table.Th>
          <Table.Th>New</Table.Th>
          <Table.Th>Replaced (same id)</Table.Th>
          <Table.Th>Conflicts (same name, other id)</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {Object.entries(plan.tables).map(([table, c]) => (
          <Table.Tr key={table}>
            <Table.Td>{table}</Table.Td>
            <Table.Td>{c.new}</Table.Td>
            <Table.Td>{c.replace}</Table.Td>
            <Table.Td>{c.conflict}</Table.Td>
          </Table.Tr>
        ))}
        <Table.Tr>
          <Table.Td>telemetry</Table.Td>
          <Table.Td colSpan={3}>
            {plan.telemetryRows} history rows, {plan.latestRows} latest values
          </Table.Td>
        </Table.Tr>
      </Table.Tbody>
    </Table>
  );
}

function ImportCard() {
  const client = useApi();
  const queries = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [plan, setPlan] = useState<SandboxPlan | null>(null);
  const [mode, setMode] = useState<SandboxConflictMode | 'replaceAll'>('keep');
  const [job, setJob] = useState<SandboxJob | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const choose = async (f: File | null) => {
    setFile(f);
    setPlan(null);
    setJob(null);
    setError(null);
    if (!f) return;
    setBusy(true);
    try {
      setPlan(
        await client.request<SandboxPlan>('POST', `${BASE}/import`, { query: { dryRun: true }, file: f }),
      );
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const confirm = async () => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const query = mode === 'replaceAll' ? { replaceAll: true } : { onConflict: mode };
      let current = await client.request<SandboxJob>('POST', `${BASE}/import`, { query, file });
      setJob(current);
      while (current.state === 'running') {
        await new Promise((r) => setTimeout(r, 300));
        current = await client.request<SandboxJob>('GET', `${BASE}/import/${current.id}`);
        setJob(current);
      }
      await queries.invalidateQueries();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const result: SandboxImportResult | undefined = job?.result;
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="xs">
        <Title order={4}>Import a sandbox</Title>
        <Text size="sm" c="dimmed">
          The plan is shown first. The import is all or nothing: a refused or interrupted import leaves
          everything as it was.
        </Text>
        <FileInput
          label="Sandbox file (.sandbox.jsonl, gzipped or not)"
          placeholder="Choose a file"
          value={file}
          onChange={(f) => void choose(f)}
          clearable
          data-testid="sandbox-file"
        />
        <ErrorAlert error={error} title="The sandbox cannot be imported" />
        {plan && (
          <>
            <PlanTable plan={plan} />
            {plan.unknownTables.length > 0 && (
              <Text size="sm">Skipped, unknown here: {plan.unknownTables.join(', ')}</Text>
            )}
            <SegmentedControl
              aria-label="On a conflict"
              w="fit-content"
              value={mode}
              onChange={(v) => setMode(v as typeof mode)}
              data={[
                { value: 'keep', label: 'Keep mine on conflict' },
                { value: 'rename', label: 'Rename imported' },
                { value: 'replace', label: 'Replace mine' },
                { value: 'replaceAll', label: 'Replace everything' },
              ]}
            />
            <Group>
              <Button onClick={() => void confirm()} loading={busy} data-testid="sandbox-import">
                Import
              </Button>
            </Group>
          </>
        )}
        {job && (
          <Stack gap={4}>
            <Progress
              value={job.progress * 100}
              animated={job.state === 'running'}
              aria-label="Import progress"
            />
            <Text size="sm" data-testid="sandbox-import-state">
              {job.state === 'failed' ? `Failed: ${job.error ?? ''}` : job.phase}
            </Text>
          </Stack>
        )}
        {result && (
          <Alert color="green" title="Imported">
            {Object.entries(result.tables)
              .filter(([table]) => table !== 'recordings')
              .reduce((a, [, n]) => a + n, 0)}{' '}
            rows, {result.telemetryRows} telemetry rows
            {result.tables.recordings ? `, ${result.tables.recordings} recordings` : ''}
            {result.renamed ? `, ${result.renamed} renamed` : ''}
            {result.kept ? `, ${result.kept} kept as they were` : ''}.
          </Alert>
        )}
      </Stack>
    </Card>
  );
}

const describeCounts = (counts: Record<string, number> | undefined) =>
  COUNTED.map(([k, label]) => `${counts?.[k] ?? 0} ${label}`).join(', ');

function TrainerCard() {
  const client = useApi();
  const queries = useQueryClient();
  const status = useQuery({
    queryKey: ['sandbox', 'classStart'],
    queryFn: () => client.request<ClassStartStatus>('GET', `${BASE}/classStart`),
  });
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const act = async (path: string, message: string) => {
    setBusy(true);
    setError(null);
    try {
      await client.request('POST', path);
      setDone(message);
      setAsking(false);
      await queries.invalidateQueries();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const s = status.data;
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="xs">
        <Title order={4}>Trainer mode</Title>
        <Text size="sm" c="dimmed">
          Save the set-up a class starts from, and bring it back in one click after the class played with it.
          sandboard serve --reset-to FILE resets at every start.
        </Text>
        <ErrorAlert error={status.error ?? (asking ? null : error)} />
        {s && (
          <Text size="sm" data-testid="class-start-status">
            {s.saved
              ? `Class start saved ${new Date(s.savedAt ?? 0).toLocaleString()}: ${describeCounts(s.savedCounts)}.`
              : 'No class start is saved yet.'}
          </Text>
        )}
        {done && <Text size="sm">{done}</Text>}
        <Group>
          <Button
            variant="default"
            loading={busy && !asking}
            onClick={() => void act(`${BASE}/classStart`, 'Saved as the class start.')}
            data-testid="class-start-save"
          >
            Save this as the class start
          </Button>
          <Button
            color="red"
            disabled={!s?.saved}
            onClick={() => setAsking(true)}
            data-testid="class-start-reset"
          >
            Reset to class start
          </Button>
        </Group>
      </Stack>
      <ConfirmModal
        opened={asking}
        title="Reset to the class start?"
        confirmLabel="Reset"
        busy={busy}
        error={error}
        onConfirm={() => void act(`${BASE}/classStart/reset`, 'Reset to the class start.')}
        onClose={() => setAsking(false)}
        testId="class-start-reset-confirm"
      >
        {`Everything now (${describeCounts(s?.currentCounts)}) is replaced by the class start (${describeCounts(
          s?.savedCounts,
        )}). What was added or changed since it was saved is lost.`}
      </ConfirmModal>
    </Card>
  );
}

export default function SandboxPage() {
  return (
    <Stack gap="lg">
      <PageHeader
        title="Sandbox"
        description="Carry this whole set-up as one file, bring one in, and reset a class to where it started."
      />
      <ExportCard />
      <ImportCard />
      <TrainerCard />
    </Stack>
  );
}
