import '../../components/typebox-csp.ts';
import {
  Badge,
  Button,
  Card,
  Grid,
  Group,
  NavLink,
  ScrollArea,
  Skeleton,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useDebouncedValue, useMediaQuery } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useCurrentUser, usePlatformInfo } from '../../api/hooks.ts';
import type { PreviewRequest, TableView, TableViewConfig, ViewReportRequest } from '../../api/reports-api.ts';
import {
  reportKeys,
  useDeleteTableView,
  useDemoStatus,
  useDeviceCatalog,
  useDeviceProfiles,
  useLoadDemo,
  usePreview,
  useSaveTableView,
  useTableViews,
  useTenantDevices,
} from '../../api/reports-hooks.ts';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { AdminOnlyPage } from '../../components/admin-only-page.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { ApiCallCard } from './api-call-card.tsx';
import { DemoCard } from './demo-card.tsx';
import { PreviewCard } from './preview-card.tsx';
import { ReportChart } from './report-chart.tsx';
import { cleanConfig, configIssues, newViewConfig } from './report-model.ts';
import { ViewBuilder } from './view-builder.tsx';

const SAMPLE_DEVICES = 12;

interface Draft {
  name: string;
  config: TableViewConfig;
}

/** The view being edited is kept in the address (?view=id). */
function useViewParam(): [string | null, (id: string | null) => void] {
  const [id, setId] = useState<string | null>(() => new URLSearchParams(window.location.search).get('view'));
  const set = (next: string | null) => {
    setId(next);
    const url = new URL(window.location.href);
    if (next) url.searchParams.set('view', next);
    else url.searchParams.delete('view');
    window.history.replaceState(null, '', url.pathname + url.search);
  };
  return [id, set];
}

const draftOf = (v: TableView): Draft => ({ name: v.name, config: v.config });
const same = (a: Draft, b: Draft) =>
  a.name.trim() === b.name.trim() &&
  JSON.stringify(cleanConfig(a.config)) === JSON.stringify(cleanConfig(b.config));

export default function ReportsPage() {
  const qc = useQueryClient();
  const user = useCurrentUser();
  const isAdmin = user.data?.authority === 'TENANT_ADMIN';
  const info = usePlatformInfo();
  const views = useTableViews();
  const demo = useDemoStatus(isAdmin);
  const loadDemo = useLoadDemo();
  const profiles = useDeviceProfiles();
  const devices = useTenantDevices();
  const save = useSaveTableView();
  const remove = useDeleteTableView();
  const [viewId, setViewId] = useViewParam();
  const [draft, setDraft] = useState<Draft>({ name: 'New view', config: newViewConfig() });
  // wide screens: the preview beside the form instead of under it
  const wide = useMediaQuery('(min-width: 1600px)') ?? false;
  const [overrides, setOverrides] = useState<ViewReportRequest>({});
  const [limit, setLimit] = useState(1000);
  const [deleting, setDeleting] = useState(false);
  const loadedId = useRef<string | null>(null);

  const list = views.data ?? [];
  const saved = list.find((v) => v.id.id === viewId) ?? null;
  const dirty = saved ? !same(draft, draftOf(saved)) : true;

  // a view chosen (or in the address) is loaded into the builder once
  useEffect(() => {
    if (saved && loadedId.current !== saved.id.id) {
      loadedId.current = saved.id.id;
      setDraft(draftOf(saved));
      setOverrides({});
    }
  }, [saved]);

  // the demo's devices and views appear once it has loaded
  const demoState = demo.data?.state;
  useEffect(() => {
    if (demoState !== 'DONE') return;
    void qc.invalidateQueries({ queryKey: reportKeys.views });
    void qc.invalidateQueries({ queryKey: reportKeys.devices });
    void qc.invalidateQueries({ queryKey: reportKeys.profiles });
  }, [demoState]);

  // keys offered by the builder: from a sample of the devices the view covers
  const sample = useMemo(() => {
    const all = devices.data?.data ?? [];
    const chosen = new Set(draft.config.entities.deviceIds ?? []);
    const profileIds = new Set(draft.config.entities.deviceProfileIds ?? []);
    const covered =
      chosen.size || profileIds.size
        ? all.filter((d) => chosen.has(d.id.id) || profileIds.has(d.deviceProfileId.id))
        : all;
    // a few of each profile, so every profile's keys are offered
    const perProfile = new Map<string, string[]>();
    for (const d of covered) {
      const ids = perProfile.get(d.deviceProfileId.id) ?? [];
      if (ids.length < 3) ids.push(d.id.id);
      perProfile.set(d.deviceProfileId.id, ids);
    }
    return [...perProfile.values()].flat().slice(0, SAMPLE_DEVICES);
  }, [devices.data, draft.config.entities]);
  const catalog = useDeviceCatalog(sample);

  // the live preview: the definition (and the overrides) once it is complete, a moment after the last edit
  const issues = useMemo(() => configIssues(draft.config), [draft.config]);
  const request = useMemo<PreviewRequest | null>(
    () => (issues.length ? null : { config: cleanConfig(draft.config), ...overrides, limit }),
    [draft.config, overrides, limit, issues.length],
  );
  const [debounced] = useDebouncedValue(request, 400);
  const preview = usePreview(debounced);
  const shownConfig = preview.data?.config ?? draft.config;

  const newView = () => {
    setViewId(null);
    loadedId.current = null;
    setDraft({ name: 'New view', config: newViewConfig() });
    setOverrides({});
    save.reset();
  };
  const open = (v: TableView) => {
    setViewId(v.id.id);
    save.reset();
  };
  const onSave = (asNew: boolean) => {
    save.mutate(
      {
        ...(saved && !asNew ? { id: { entityType: 'TABLE_VIEW' as const, id: saved.id.id } } : {}),
        name: draft.name.trim(),
        config: cleanConfig(draft.config),
      },
      {
        onSuccess: (view) => {
          qc.setQueryData<TableView[]>(reportKeys.views, (old) =>
            old ? [...old.filter((v) => v.id.id !== view.id.id), view] : [view],
          );
          loadedId.current = view.id.id;
          setViewId(view.id.id);
          setDraft(draftOf(view));
        },
      },
    );
  };

  if (user.data && !isAdmin) {
    return (
      <AdminOnlyPage title="Reports">
        Table views and the demo data belong to the tenant administrator.
      </AdminOnlyPage>
    );
  }

  const waitingFor = issues.length ? issues[0]!.message : null;
  const showDemo = demo.data && demo.data.state !== 'DONE';

  const results = (
    <>
      <PreviewCard
        result={preview.data}
        config={shownConfig}
        name={draft.name}
        fetching={preview.isFetching || (request !== null && request !== debounced)}
        error={preview.error}
        limit={limit}
        onLimit={setLimit}
        waitingFor={waitingFor}
      />
      {preview.data && <ReportChart result={preview.data} config={shownConfig} />}
      <ApiCallCard
        view={saved}
        dirty={dirty}
        filters={draft.config.filters ?? []}
        overrides={overrides}
        onOverrides={setOverrides}
        analyticsUrl={info.data?.analytics}
        preview={preview.data}
      />
    </>
  );

  return (
    <Stack gap="md">
      <PageHeader
        title="Reports"
        description={
          <>
            Table views over telemetry (dimensions, a date grouping, aggregated measures), previewed live and
            run through the report API
            {info.data?.analytics ? (
              <>
                {' '}
                at <code>{info.data.analytics}</code>
              </>
            ) : null}
            .
          </>
        }
        actions={
          demo.data?.state === 'DONE' ? (
            <Badge variant="light" color="teal" size="lg" data-testid="demo-loaded">
              Smart building demo loaded
            </Badge>
          ) : undefined
        }
      />
      {showDemo && (
        <DemoCard status={demo.data} onLoad={() => loadDemo.mutate()} starting={loadDemo.isPending} />
      )}
      <ErrorAlert error={loadDemo.error} title="Could not load the demo" />
      <ErrorAlert error={views.error} title="Could not load the table views" />

      <Grid gap="md">
        <Grid.Col span={wide ? 2 : { base: 12, md: 3 }}>
          <Card withBorder radius="md" p="sm" data-testid="table-views">
            <Group justify="space-between" mb="xs">
              <Title order={5}>Table views</Title>
              <Button size="compact-xs" variant="light" onClick={newView} data-testid="new-view">
                New view
              </Button>
            </Group>
            {!views.data && !views.error && <Skeleton h={80} />}
            <ScrollArea.Autosize mah={480}>
              {list
                .slice()
                .sort((a, b) => a.name.localeCompare(b.name))
                .map((v) => (
                  <NavLink
                    key={v.id.id}
                    label={v.name}
                    description={v.columnLabels.join(' · ')}
                    active={v.id.id === viewId}
                    onClick={() => open(v)}
                    data-testid="table-view-link"
                  />
                ))}
            </ScrollArea.Autosize>
            {views.data && list.length === 0 && (
              <Text size="sm" c="dimmed">
                No saved views yet.
              </Text>
            )}
          </Card>
        </Grid.Col>
        <Grid.Col span={wide ? 5 : { base: 12, md: 9 }}>
          <Stack gap="md">
            <Group justify="space-between" wrap="wrap">
              <Group gap="xs">
                <Title order={3} data-testid="editing-title">
                  {saved ? saved.name : 'New view'}
                </Title>
                {saved && dirty && (
                  <Badge variant="light" color="yellow">
                    unsaved changes
                  </Badge>
                )}
              </Group>
              <Group gap="xs">
                {saved && (
                  <Button variant="subtle" color="red" size="xs" onClick={() => setDeleting(true)}>
                    Delete
                  </Button>
                )}
                {saved && (
                  <Button
                    variant="default"
                    size="xs"
                    onClick={() => onSave(true)}
                    disabled={issues.length > 0 || !draft.name.trim() || save.isPending}
                  >
                    Save as new
                  </Button>
                )}
                <Button
                  size="xs"
                  onClick={() => onSave(false)}
                  loading={save.isPending}
                  disabled={issues.length > 0 || !draft.name.trim() || (saved !== null && !dirty)}
                  data-testid="save-view"
                >
                  {saved ? 'Save' : 'Save view'}
                </Button>
              </Group>
            </Group>
            <ErrorAlert error={save.error} title="Could not save the view" />
            <ViewBuilder
              name={draft.name}
              onName={(name) => setDraft((d) => ({ ...d, name }))}
              config={draft.config}
              onChange={(config) => setDraft((d) => ({ ...d, config }))}
              profiles={profiles.data ?? []}
              devices={devices.data?.data ?? []}
              catalog={catalog}
              issues={issues}
            />
            {!wide && results}
          </Stack>
        </Grid.Col>
        {wide && (
          <Grid.Col span={5} data-testid="report-results-column">
            <Stack gap="md">{results}</Stack>
          </Grid.Col>
        )}
      </Grid>
      <ConfirmModal
        opened={deleting}
        title="Delete the view"
        confirmLabel="Delete"
        busy={remove.isPending}
        error={remove.error}
        onClose={() => setDeleting(false)}
        onConfirm={() =>
          saved &&
          remove.mutate(saved.id.id, {
            onSuccess: () => {
              setDeleting(false);
              newView();
            },
          })
        }
      >
        {`Deletes the table view ${saved?.name ?? ''}. Report API calls naming it will answer 404.`}
      </ConfirmModal>
    </Stack>
  );
}
