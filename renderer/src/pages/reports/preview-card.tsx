import {
  Badge,
  Button,
  Card,
  Code,
  Group,
  Loader,
  ScrollArea,
  SegmentedControl,
  Select,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import type { PreviewResponse, TableViewConfig } from '../../api/reports-api.ts';
import { fileNameFor, saveTextFile } from '../../components/desktop-files.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatNumber } from '../../components/format.ts';
import { columnKinds, formatDateValue, formatMeasure, toCsv } from './report-model.ts';
import { EmptyTableRow } from '../../components/empty-table-row.tsx';

export const PREVIEW_LIMITS = ['100', '1000', '10000'];
const SHOWN_ROWS = 500;

/** The live preview: the result as a table (dates readable) or as the exact JSON, and its export. */
export function PreviewCard({
  result,
  config,
  name,
  fetching,
  error,
  limit,
  onLimit,
  waitingFor,
}: {
  result: PreviewResponse | undefined;
  /** the definition the result is of */
  config: TableViewConfig;
  name: string;
  fetching: boolean;
  error: unknown;
  limit: number;
  onLimit: (n: number) => void;
  /** why nothing runs yet */
  waitingFor: string | null;
}) {
  const [view, setView] = useState<'table' | 'json'>('table');
  const [exported, setExported] = useState<string | null>(null);
  const kinds = result ? columnKinds(config, result.columnLabels) : [];
  const data = result ? { columnLabels: result.columnLabels, dataTable: result.dataTable } : null;
  const base = name.trim() || 'report';

  const exportAs = async (format: 'csv' | 'json') => {
    if (!data) return;
    const saved =
      format === 'csv'
        ? await saveTextFile(fileNameFor(base, 'csv'), toCsv(data), {
            title: 'Export the report as CSV',
            filters: [{ name: 'CSV', extensions: ['csv'] }],
            type: 'text/csv',
          })
        : await saveTextFile(fileNameFor(base, 'json'), `${JSON.stringify(data, null, 2)}\n`, {
            title: 'Export the report as JSON',
            filters: [{ name: 'JSON', extensions: ['json'] }],
          });
    if (saved) setExported(saved);
  };

  return (
    <Card
      withBorder
      radius="md"
      p="md"
      data-testid="report-preview"
      data-rows={result?.dataTable.length ?? ''}
    >
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Group gap="xs">
            <Title order={4}>Preview</Title>
            {fetching && <Loader size="xs" aria-label="Running the report" />}
            {result && (
              <Text size="sm" c="dimmed" data-testid="preview-summary">
                {formatNumber(result.dataTable.length)} row{result.dataTable.length === 1 ? '' : 's'} ·{' '}
                {result.elapsedMs} ms
              </Text>
            )}
            {result?.truncated && (
              <Badge color="yellow" variant="light">
                first {formatNumber(limit)} rows
              </Badge>
            )}
          </Group>
          <Group gap="xs">
            <Select
              aria-label="Rows"
              size="xs"
              w={130}
              value={String(limit)}
              onChange={(v) => v && onLimit(Number(v))}
              data={PREVIEW_LIMITS.map((l) => ({ value: l, label: `≤ ${formatNumber(Number(l))} rows` }))}
              allowDeselect={false}
            />
            <SegmentedControl
              size="xs"
              value={view}
              onChange={(v) => setView(v as 'table' | 'json')}
              data={[
                { value: 'table', label: 'Table' },
                { value: 'json', label: 'JSON' },
              ]}
              data-testid="preview-view"
            />
            <Button
              size="xs"
              variant="default"
              disabled={!data}
              onClick={() => void exportAs('csv')}
              data-testid="export-csv"
            >
              CSV
            </Button>
            <Button
              size="xs"
              variant="default"
              disabled={!data}
              onClick={() => void exportAs('json')}
              data-testid="export-json"
            >
              JSON
            </Button>
          </Group>
        </Group>
        {exported && (
          <Text size="xs" c="dimmed">
            Saved {exported}
          </Text>
        )}
        <ErrorAlert error={error} title="The report did not run" />
        {!result && !error && (
          <Text size="sm" c="dimmed" py="md" ta="center">
            {waitingFor ?? 'Running…'}
          </Text>
        )}
        {result && view === 'table' && kinds.includes('date') && (
          <Text size="xs" c="dimmed" data-testid="date-column-note">
            Dates are shown readable here; the report API (and the JSON view) sends them as epoch-ms strings,
            as Trendz does.
          </Text>
        )}
        {result && view === 'table' && (
          <ScrollArea.Autosize mah={420} type="auto">
            <Table striped stickyHeader verticalSpacing={4} fz="sm" data-testid="preview-table">
              <Table.Thead>
                <Table.Tr>
                  {result.columnLabels.map((l, i) => (
                    <Table.Th
                      key={l}
                      ta={kinds[i] === 'measure' ? 'right' : undefined}
                      style={{ whiteSpace: 'nowrap' }}
                    >
                      {l}
                    </Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {result.dataTable.slice(0, SHOWN_ROWS).map((row, r) => (
                  <Table.Tr key={r}>
                    {result.columnLabels.map((l, i) => (
                      <Table.Td
                        key={l}
                        ta={kinds[i] === 'measure' ? 'right' : undefined}
                        ff={kinds[i] === 'dimension' ? undefined : 'monospace'}
                        title={kinds[i] === 'date' ? String(row[l]) : undefined}
                      >
                        {kinds[i] === 'date'
                          ? formatDateValue(row[l], config.date!.grouping, config.timezoneOffsetMinutes ?? 0)
                          : kinds[i] === 'measure'
                            ? formatMeasure(row[l])
                            : (row[l] ?? '—')}
                      </Table.Td>
                    ))}
                  </Table.Tr>
                ))}
                {result.dataTable.length === 0 && (
                  <EmptyTableRow columns={result.columnLabels.length}>
                    No rows: no telemetry of these keys from these devices in the range.
                  </EmptyTableRow>
                )}
              </Table.Tbody>
            </Table>
            {result.dataTable.length > SHOWN_ROWS && (
              <Text size="xs" c="dimmed" mt={4}>
                Showing {SHOWN_ROWS} of {formatNumber(result.dataTable.length)} rows; the export has them all.
              </Text>
            )}
          </ScrollArea.Autosize>
        )}
        {data && view === 'json' && (
          <ScrollArea.Autosize mah={420} type="auto">
            <Code block data-testid="preview-json" style={{ fontSize: 12 }}>
              {JSON.stringify(data, null, 2)}
            </Code>
          </ScrollArea.Autosize>
        )}
      </Stack>
    </Card>
  );
}
