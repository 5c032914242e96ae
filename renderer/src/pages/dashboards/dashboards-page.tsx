import { Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useApi } from '../../api/api-context.tsx';
import { dashboard as fetchDashboard, type DashboardInfo } from '../../api/dashboards-api.ts';
import { useDashboards, useDeleteDashboard, useSaveDashboard } from '../../api/dashboards-hooks.ts';
import { useDeviceOwnerScope } from '../../api/hooks.ts';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { fileNameFor, openTextFile, saveTextFile } from '../../components/desktop-files.ts';
import {
  EntityList,
  createdColumn,
  nameColumn,
  useEntityListState,
  type EntityColumn,
} from '../../components/entity-list.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { navigate } from '../../router.tsx';
import { exportDashboard, newDashboard, normalizeDashboard } from './dashboard-model.ts';

type SortProperty = 'createdTime' | 'title';
type Row = DashboardInfo & { name: string };

const hrefOf = (d: Row) => `/dashboards/${d.id.id}`;
const columns: EntityColumn<Row, SortProperty>[] = [
  nameColumn(hrefOf, 'dashboard-link', 'title'),
  createdColumn('createdTime'),
];

/** The dashboards list: open, create, import a ThingsBoard JSON file, export and delete. */
export default function DashboardsPage() {
  const scope = useDeviceOwnerScope();
  const client = useApi();
  const list = useEntityListState<SortProperty>('createdTime');
  const dashboards = useDashboards(list.query);
  const save = useSaveDashboard();
  const remove = useDeleteDashboard();
  const [creating, setCreating] = useState(false);
  const [title, setTitle] = useState('');
  const [deleting, setDeleting] = useState<Row | null>(null);
  const [error, setError] = useState<unknown>(null);
  const data = dashboards.data && {
    ...dashboards.data,
    data: dashboards.data.data.map((d) => ({ ...d, name: d.title })),
  };

  const importFile = async () => {
    setError(null);
    try {
      const file = await openTextFile({
        title: 'Import a ThingsBoard dashboard',
        filters: [{ name: 'Dashboard JSON', extensions: ['json'] }],
      });
      if (!file) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(file.contents);
      } catch (err) {
        throw new Error(`${file.name} is not JSON: ${(err as Error).message}`, { cause: err });
      }
      const d = normalizeDashboard(parsed);
      const saved = await save.mutateAsync({
        ...exportDashboard(d),
        configuration: d.configuration,
        title: d.title,
      } as typeof d);
      navigate(`/dashboards/${saved.id!.id}`);
    } catch (err) {
      setError(err);
    }
  };

  const exportOne = async (row: Row) => {
    setError(null);
    try {
      const d = await fetchDashboard(client, row.id.id);
      await saveTextFile(fileNameFor(row.title), JSON.stringify(exportDashboard(d), null, 2), {
        title: 'Export dashboard',
      });
    } catch (err) {
      setError(err);
    }
  };

  return (
    <Stack gap="md">
      <PageHeader
        title="Dashboards"
        description="ThingsBoard dashboards, rendered live: import one exported from ThingsBoard, or build one here. Present it full screen on a projector."
        actions={
          scope.canEdit && (
            <>
              <Button variant="default" onClick={() => void importFile()} data-testid="import-dashboard">
                Import
              </Button>
              <Button onClick={() => setCreating(true)} data-testid="add-dashboard">
                Add dashboard
              </Button>
            </>
          )
        }
      />
      <ErrorAlert error={error} />
      <EntityList
        noun="dashboard"
        state={list}
        data={data}
        error={dashboards.error}
        stale={dashboards.isPlaceholderData}
        columns={[
          ...columns,
          {
            label: 'Export',
            render: (row) => (
              <Button
                size="compact-xs"
                variant="subtle"
                onClick={() => void exportOne(row)}
                data-testid="export-dashboard"
              >
                Export JSON
              </Button>
            ),
          },
        ]}
        hrefOf={hrefOf}
        tableTestId="dashboards-table"
        searchTestId="dashboard-search"
        onDelete={scope.canEdit ? setDeleting : undefined}
        empty={
          scope.canEdit
            ? 'No dashboards yet. Import one exported from ThingsBoard, or add one.'
            : 'No dashboards are assigned to your customer.'
        }
      />
      <Modal opened={creating} onClose={() => setCreating(false)} title="Add dashboard" centered>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!title.trim()) return;
            save.mutate(newDashboard(title.trim()), {
              onSuccess: (saved) => {
                setCreating(false);
                setTitle('');
                navigate(`/dashboards/${saved.id!.id}?edit=1`);
              },
            });
          }}
        >
          <Stack gap="sm">
            <TextInput
              label="Title"
              required
              value={title}
              onChange={(e) => setTitle(e.currentTarget.value)}
              data-autofocus
              data-testid="dashboard-title"
            />
            <ErrorAlert error={save.error} />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setCreating(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={save.isPending} data-testid="create-dashboard">
                Create
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
      <ConfirmModal
        opened={deleting !== null}
        title="Delete dashboard"
        confirmLabel="Delete"
        busy={remove.isPending}
        error={remove.error}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting.id.id, { onSuccess: () => setDeleting(null) })}
        testId="confirm-delete-dashboard"
      >
        {`Delete the dashboard "${deleting?.title ?? ''}"? Devices and their data stay.`}
      </ConfirmModal>
    </Stack>
  );
}
