import {
  Alert,
  Badge,
  Button,
  Card,
  Code,
  Group,
  ScrollArea,
  Select,
  SimpleGrid,
  Stack,
  TagsInput,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useEffect, useState } from 'react';
import { useApi, useSession } from '../../api/api-context.tsx';
import type { ReportResponse, TableView, ViewFilter, ViewReportRequest } from '../../api/reports-api.ts';
import { useRunTableView } from '../../api/reports-hooks.ts';
import { CopyValue, CopyValueButton } from '../../components/copy-value.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDuration } from '../../components/format.ts';
import {
  REPORT_PATHS,
  buildReportBody,
  buildReportCurl,
  fromLocalInput,
  toLocalInput,
} from './report-model.ts';

/** A JWT shown without what makes it usable: its first characters, then dots. */
function maskToken(token: string): string {
  return token ? `${token.slice(0, 6)}••••••••` : '';
}

/** A token with less life left than this is renewed when the panel shows (the curl should work for a while). */
const FRESH_MS = 10 * 60_000;

function sameResult(a: ReportResponse | undefined, b: ReportResponse | undefined): boolean {
  if (!a || !b) return false;
  return (
    JSON.stringify(a.columnLabels) === JSON.stringify(b.columnLabels) &&
    JSON.stringify(a.dataTable) === JSON.stringify(b.dataTable)
  );
}

/**
 * The report API call of the saved view: range and filter overrides (the preview uses them too), the
 * exact curl command with a fresh token, and a run of the same request from here.
 */
export function ApiCallCard({
  view,
  dirty,
  filters,
  overrides,
  onOverrides,
  analyticsUrl,
  preview,
}: {
  view: TableView | null;
  dirty: boolean;
  /** the filters of the definition being edited */
  filters: ViewFilter[];
  overrides: ViewReportRequest;
  onOverrides: (o: ViewReportRequest) => void;
  analyticsUrl: string | undefined;
  preview: ReportResponse | undefined;
}) {
  const client = useApi();
  const session = useSession();
  const run = useRunTableView();
  const [path, setPath] = useState<string>(REPORT_PATHS[0]);
  const [renewing, setRenewing] = useState(false);
  const [renewError, setRenewError] = useState<unknown>(null);
  const [now, setNow] = useState(() => Date.now());

  const renew = async () => {
    setRenewing(true);
    setRenewError(null);
    try {
      await client.refreshSession();
    } catch (err) {
      setRenewError(err);
    } finally {
      setRenewing(false);
    }
  };
  useEffect(() => {
    if (session && session.expiresAt - Date.now() < FRESH_MS) void renew();
    const t = setInterval(() => setNow(Date.now()), 15_000);
    return () => clearInterval(t);
  }, []);

  const setFilter = (name: string, values: string[]) => {
    const next = { ...(overrides.filters ?? {}) };
    if (values.length) next[name] = values;
    else delete next[name];
    onOverrides({ ...overrides, filters: Object.keys(next).length ? next : undefined });
  };

  const token = session?.token ?? '';
  const body = view ? buildReportBody(view.id.id, overrides) : null;
  const curl = body && analyticsUrl ? buildReportCurl(analyticsUrl, path, token, body) : null;
  // the login token is a password for a while: shown masked, copied whole
  const shownCurl = body && analyticsUrl ? buildReportCurl(analyticsUrl, path, maskToken(token), body) : null;

  return (
    <Card withBorder radius="md" p="md" data-testid="api-call">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Title order={4}>API call</Title>
          <Select
            aria-label="Report API path"
            size="xs"
            w={320}
            data={[...REPORT_PATHS]}
            value={path}
            onChange={(v) => v && setPath(v)}
            allowDeselect={false}
          />
        </Group>
        <Text size="sm" c="dimmed">
          <code>buildReport</code> runs a saved view on the report API
          {analyticsUrl ? ` (${analyticsUrl})` : ''}; the range and the filter values below override the
          view&apos;s for one call. The preview uses them too.
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            type="datetime-local"
            label="rangeStartTs"
            description={overrides.rangeStartTs ? String(overrides.rangeStartTs) : "blank: the view's"}
            value={toLocalInput(overrides.rangeStartTs)}
            onChange={(e) =>
              onOverrides({ ...overrides, rangeStartTs: fromLocalInput(e.currentTarget.value) })
            }
            data-testid="override-start"
          />
          <TextInput
            type="datetime-local"
            label="rangeEndTs (exclusive)"
            description={overrides.rangeEndTs ? String(overrides.rangeEndTs) : "blank: the view's"}
            value={toLocalInput(overrides.rangeEndTs)}
            onChange={(e) => onOverrides({ ...overrides, rangeEndTs: fromLocalInput(e.currentTarget.value) })}
            data-testid="override-end"
          />
        </SimpleGrid>
        {filters.filter((f) => f.name.trim()).length > 0 && (
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            {filters
              .filter((f) => f.name.trim())
              .map((f) => (
                <TagsInput
                  key={f.name}
                  label={`filters.${f.name}`}
                  description={
                    f.values.length ? `the view keeps ${f.values.join(', ')}` : 'the view keeps all'
                  }
                  placeholder="values (blank: the view's)"
                  value={overrides.filters?.[f.name]?.map(String) ?? []}
                  onChange={(values) => setFilter(f.name, values)}
                  clearable
                />
              ))}
          </SimpleGrid>
        )}
        {!view && (
          <Alert variant="light" color="gray" data-testid="api-call-unsaved">
            Save the view to call it through the report API: the call names it by its id.
          </Alert>
        )}
        {view && dirty && (
          <Alert variant="light" color="yellow" data-testid="api-call-dirty">
            The definition has unsaved changes: the call runs the saved view, the preview shows the changes.
          </Alert>
        )}
        {curl && (
          <>
            <Group gap="xs" justify="space-between">
              <Group gap="xs">
                <Text size="xs" c="dimmed">
                  Token {session ? `valid for ${formatDuration(session.expiresAt - now)}` : 'missing'}
                </Text>
                {token && <CopyValueButton value={token} label="Copy the login token" />}
                <Button size="compact-xs" variant="subtle" onClick={() => void renew()} loading={renewing}>
                  New token
                </Button>
              </Group>
              <Text size="xs" c="dimmed">
                view {view?.id.id}
              </Text>
            </Group>
            <ErrorAlert error={renewError} title="Could not renew the token" />
            <CopyValue
              value={curl}
              shown={shownCurl ?? curl}
              block
              label="Copy curl command"
              testId="api-curl"
            />
            <Group gap="xs">
              <Button
                size="xs"
                variant="light"
                loading={run.isPending}
                onClick={() => view && run.mutate({ id: view.id.id, overrides })}
                data-testid="run-api-call"
              >
                Run it here
              </Button>
              {run.data && !dirty && (
                <Badge
                  variant="light"
                  color={sameResult(run.data, preview) ? 'teal' : 'yellow'}
                  data-testid="api-run-match"
                >
                  {sameResult(run.data, preview) ? 'same rows as the preview' : 'differs from the preview'}
                </Badge>
              )}
            </Group>
            <ErrorAlert error={run.error} title="The report did not run" />
            {run.data && (
              <Text size="xs" c="dimmed" data-testid="api-date-note">
                As the report API answers it: dates are epoch-ms strings (as in Trendz), where the preview
                shows them readable.
              </Text>
            )}
            {run.data && (
              <ScrollArea.Autosize mah={240} type="auto">
                <Code block style={{ fontSize: 12 }} data-testid="api-run-result">
                  {JSON.stringify(run.data, null, 2)}
                </Code>
              </ScrollArea.Autosize>
            )}
          </>
        )}
      </Stack>
    </Card>
  );
}
