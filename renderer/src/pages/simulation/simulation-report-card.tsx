import { Button, Card, Group, SimpleGrid, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { junitXml } from '../../../../shared/simulation-junit.ts';
import type { SimulationReport, SimulationStatus } from '../../api/client.ts';
import { useApi } from '../../api/api-context.tsx';
import { saveTextFile } from '../../components/desktop-files.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatNumber } from '../../components/format.ts';
import { StatTile } from '../../components/stat-tile.tsx';

const fileBase = (name: string) =>
  `${name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'simulation'}-report`;
const ms = (v: number) => `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`;

/** The summary of a finished run, with downloads as JSON and as JUnit XML. */
export function SimulationReportCard({ status }: { status: SimulationStatus }) {
  const client = useApi();
  const ended = status.stoppedAt !== null && (status.state === 'stopped' || status.state === 'failed');
  const report = useQuery({
    queryKey: ['simulation-report', status.id, status.stoppedAt],
    queryFn: () => client.simulationReport(status.id),
    enabled: ended,
  });
  const [saveError, setSaveError] = useState<unknown>(null);
  if (!ended) return null;
  const r = report.data;
  const save = async (r: SimulationReport, kind: 'json' | 'junit') => {
    setSaveError(null);
    try {
      if (kind === 'json')
        await saveTextFile(`${fileBase(r.name)}.json`, `${JSON.stringify(r, null, 2)}\n`, {
          title: 'Save the run report',
          filters: [{ name: 'Report (JSON)', extensions: ['json'] }],
        });
      else
        await saveTextFile(`${fileBase(r.name)}.xml`, junitXml(r), {
          title: 'Save the run report as JUnit',
          filters: [{ name: 'JUnit XML', extensions: ['xml'] }],
          type: 'application/xml',
        });
    } catch (err) {
      setSaveError(err);
    }
  };
  const refused = r ? Object.entries(r.refusedByReason).map(([k, n]) => `${k}: ${formatNumber(n)}`) : [];
  return (
    <Card withBorder radius="md" p="md" data-testid="simulation-report">
      <Group justify="space-between" mb="sm">
        <Title order={5}>Run report</Title>
        <Group gap="xs">
          <Button
            size="xs"
            variant="default"
            disabled={!r}
            onClick={() => r && void save(r, 'json')}
            data-testid="report-json"
          >
            Download JSON
          </Button>
          <Button
            size="xs"
            variant="default"
            disabled={!r}
            onClick={() => r && void save(r, 'junit')}
            data-testid="report-junit"
          >
            Download JUnit
          </Button>
        </Group>
      </Group>
      <ErrorAlert error={report.error} title="Could not load the report" />
      <ErrorAlert error={saveError} title="Could not save the report" />
      {r && (
        <SimpleGrid cols={{ base: 2, sm: 4, lg: r.ota ? 8 : 7 }}>
          <StatTile label="Sent" value={formatNumber(r.sent)} testId="report-sent" />
          <StatTile label="Acknowledged" value={formatNumber(r.acknowledged)} testId="report-acknowledged" />
          <StatTile
            label="Refused"
            value={formatNumber(r.refused)}
            testId="report-refused"
            color={r.refused ? 'red' : undefined}
            note={refused.join(', ') || undefined}
          />
          <StatTile label="Faults injected" value={formatNumber(r.faultsInjected)} testId="report-faults" />
          <StatTile
            label="Alarms raised"
            value={r.alarmsRaised === null ? '—' : formatNumber(r.alarmsRaised)}
            testId="report-alarms"
          />
          <StatTile
            label="RPC answered"
            value={`${formatNumber(r.rpcAnswered)} / ${formatNumber(r.rpcRequests)}`}
            testId="report-rpc"
          />
          <StatTile
            label="PUBACK latency p50"
            value={r.latencyMs ? ms(r.latencyMs.p50) : '—'}
            testId="report-latency"
            note={r.latencyMs ? `p90 ${ms(r.latencyMs.p90)} · p99 ${ms(r.latencyMs.p99)}` : undefined}
          />
          {r.ota && (
            <StatTile
              label="OTA updated"
              value={`${formatNumber(r.ota.updated)} / ${formatNumber(r.ota.devices)}`}
              testId="report-ota"
              note={`${formatNumber(r.ota.failed)} failed (${formatNumber(r.ota.failingOnPurpose)} on purpose)`}
            />
          )}
        </SimpleGrid>
      )}
      {!r && !report.error && (
        <Text size="sm" c="dimmed">
          Loading the report…
        </Text>
      )}
    </Card>
  );
}
