/**
 * The rule chain editor's Test tab: test cases (the CASES document of `sandboard test-chain`, see
 * docs/rule-chain-tests.md) edited as JSON, loaded from and saved to a file, run against the saved chain in
 * a scratch copy of the platform (POST /api/sandboard/ruleChain/{id}/test); pass or fail per case, and the
 * way a case's message took shown on the graph as the message trace shows it.
 */
import '../../components/typebox-csp.ts';
import { Alert, Badge, Button, Group, Paper, ScrollArea, Stack, Text, Textarea } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import type { MessageTraceEvent } from '../../../../shared/rule-engine.ts';
import {
  chainTestsIssues,
  CHAIN_TESTS_VERSION,
  type ChainTestReport,
} from '../../../../shared/schemas/chain-tests.ts';
import { useApi } from '../../api/api-context.tsx';
import { fileNameFor, openTextFile, saveTextFile } from '../../components/desktop-files.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';

const STORAGE_PREFIX = 'sandboard.chainTests.';
/** Kept in the browser per chain up to this size; a larger document is only kept while the page is open. */
const STORED_TEXT_MAX = 256 * 1024;

const starter = (chainName: string) =>
  JSON.stringify(
    {
      version: CHAIN_TESTS_VERSION,
      name: `${chainName} tests`,
      originator: { name: 'Test device', type: 'DEVICE' },
      cases: [
        {
          name: 'telemetry goes through',
          input: { type: 'POST_TELEMETRY_REQUEST', data: { temperature: 25 } },
          expect: { latest: { temperature: 25 } },
        },
      ],
    },
    null,
    2,
  );

function storedText(chainId: string): string | null {
  try {
    return localStorage.getItem(STORAGE_PREFIX + chainId);
  } catch {
    return null;
  }
}

/** The Test tab's state, kept by the editor so that it outlives switching tabs. */
export function useChainTests(chainId: string, chainName: string) {
  const client = useApi();
  const [text, setTextState] = useState(() => storedText(chainId) ?? starter(chainName));
  const [shown, setShown] = useState<string | null>(null);
  const run = useMutation({
    mutationFn: (body: unknown) =>
      client.request<ChainTestReport>(
        'POST',
        `/api/sandboard/ruleChain/${encodeURIComponent(chainId)}/test`,
        {
          body,
        },
      ),
    onSuccess: (report) =>
      setShown(report.cases.find((c) => !c.passed)?.name ?? report.cases[0]?.name ?? null),
  });
  const setText = (next: string) => {
    setTextState(next);
    try {
      if (next.length <= STORED_TEXT_MAX) localStorage.setItem(STORAGE_PREFIX + chainId, next);
    } catch {
      // private mode, or the storage is full: the text stays while the page is open
    }
  };
  const parsed = useMemo((): { doc: unknown; problems: string[] } => {
    let doc: unknown;
    try {
      doc = JSON.parse(text) as unknown;
    } catch (err) {
      return { doc: undefined, problems: [`not JSON: ${(err as Error).message}`] };
    }
    return { doc, problems: chainTestsIssues(doc).map((i) => `${i.path || '(document)'}: ${i.message}`) };
  }, [text]);
  const report = run.data;
  /** the way of the case shown on the graph */
  const trace: MessageTraceEvent[] | undefined = report?.cases.find((c) => c.name === shown)?.trace;
  return { text, setText, parsed, run, report, shown, setShown, trace };
}

export type ChainTests = ReturnType<typeof useChainTests>;

export function ChainTestPanel({
  tests,
  chainName,
  dirty,
}: {
  tests: ChainTests;
  chainName: string;
  /** the editor holds unsaved changes: the tests run the chain as saved */
  dirty: boolean;
}) {
  const { text, setText, parsed, run, report, shown, setShown } = tests;
  const [fileError, setFileError] = useState<unknown>(null);
  const load = () => {
    setFileError(null);
    openTextFile({ title: 'Load test cases', filters: [{ name: 'JSON', extensions: ['json'] }] }).then(
      (file) => file && setText(file.contents),
      setFileError,
    );
  };
  const save = () => {
    setFileError(null);
    saveTextFile(fileNameFor(`${chainName} tests`), text, { title: 'Save test cases' }).catch(setFileError);
  };
  return (
    <Stack gap="sm" data-testid="chain-test-panel">
      <Text size="xs" c="dimmed">
        Each case sends a message into this chain in a scratch copy of Sandboard (nothing reaches your data)
        and checks the relations nodes emitted, the messages that reached nodes, alarms and saved values. The
        same file runs in CI: <code>npx sandboard test-chain chain.json cases.json</code>.
      </Text>
      {dirty && (
        <Alert color="yellow" variant="light" p="xs" data-testid="chain-test-unsaved">
          The tests run the chain as last saved; save it to test your changes.
        </Alert>
      )}
      <Textarea
        label="Test cases (JSON)"
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        autosize
        minRows={8}
        maxRows={18}
        spellCheck={false}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 12 } }}
        error={parsed.problems.length > 0 ? parsed.problems.slice(0, 5).join('\n') : undefined}
        data-testid="chain-test-cases"
      />
      <Group gap="xs">
        <Button
          onClick={() => run.mutate(parsed.doc)}
          loading={run.isPending}
          disabled={parsed.problems.length > 0}
          data-testid="chain-test-run"
        >
          Run tests
        </Button>
        <Button variant="default" onClick={load} data-testid="chain-test-load">
          Load file…
        </Button>
        <Button variant="default" onClick={save}>
          Save file…
        </Button>
      </Group>
      <ErrorAlert error={run.error ?? fileError} title="The tests did not run" />
      {report && (
        <Text
          size="sm"
          fw={600}
          c={report.failed ? 'red' : 'teal'}
          data-testid="chain-test-summary"
          role="status"
        >
          {report.passed} passed, {report.failed} failed ({report.durationMs} ms)
        </Text>
      )}
      {report && (
        <ScrollArea.Autosize mah={420} type="auto">
          <Stack gap={6}>
            {report.cases.map((c) => (
              <Paper
                key={c.name}
                withBorder
                p={6}
                radius="sm"
                data-testid="chain-test-case"
                data-passed={c.passed}
                style={shown === c.name ? { borderColor: 'var(--mantine-color-orange-6)' } : undefined}
              >
                <Group justify="space-between" wrap="nowrap" align="flex-start">
                  <div style={{ minWidth: 0 }}>
                    <Group gap={6} wrap="nowrap">
                      <Badge size="sm" color={c.passed ? 'teal' : 'red'} variant="filled">
                        {c.passed ? 'pass' : 'fail'}
                      </Badge>
                      <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
                        {c.name}
                      </Text>
                    </Group>
                    {c.failures.map((f, i) => (
                      <Text key={i} size="xs" c="red" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                        {f}
                      </Text>
                    ))}
                  </div>
                  <Button
                    size="compact-xs"
                    variant={shown === c.name ? 'filled' : 'light'}
                    color="orange"
                    onClick={() => setShown(shown === c.name ? null : c.name)}
                    aria-pressed={shown === c.name}
                    data-testid="chain-test-show"
                    style={{ flexShrink: 0 }}
                  >
                    {shown === c.name ? 'Shown' : 'Show way'}
                  </Button>
                </Group>
              </Paper>
            ))}
          </Stack>
        </ScrollArea.Autosize>
      )}
    </Stack>
  );
}
