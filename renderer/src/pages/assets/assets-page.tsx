import { Anchor, Button, Group, Pagination, Paper, Stack, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import type { Asset } from '../../api/entities-api.ts';
import { useAssets } from '../../api/entities-hooks.ts';
import { useDeviceOwnerScope } from '../../api/hooks.ts';
import { EmptyTableRow } from '../../components/empty-table-row.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime } from '../../components/format.ts';
import { PageHeader } from '../../components/page-header.tsx';
import { Link, navigate } from '../../router.tsx';
import { AssetFormModal } from './asset-form-modal.tsx';
import { DeleteAssetModal } from './delete-asset-modal.tsx';

const PAGE_SIZE = 20;

export default function AssetsPage() {
  const scope = useDeviceOwnerScope();
  const [search, setSearch] = useState('');
  const [textSearch] = useDebouncedValue(search.trim(), 300);
  const [page, setPage] = useState(0);
  const [editing, setEditing] = useState<Asset | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Asset | null>(null);
  const assets = useAssets({
    page,
    pageSize: PAGE_SIZE,
    textSearch: textSearch || undefined,
    sortProperty: 'createdTime',
    sortOrder: 'DESC',
  });
  const data = assets.data;
  const rows = data?.data ?? [];
  return (
    <Stack gap="md">
      <PageHeader
        title="Assets"
        description="Buildings, floors, lines: what your devices belong to. Relate them, give them attributes and telemetry; reports can group by them."
        actions={
          scope.canEdit && (
            <Button onClick={() => setEditing('new')} data-testid="add-asset">
              Add asset
            </Button>
          )
        }
      />
      <Group justify="space-between" wrap="wrap">
        <TextInput
          placeholder="Search by name"
          aria-label="Search assets by name"
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(0);
          }}
          w={320}
          maw="100%"
          data-testid="asset-search"
        />
        <Text size="sm" c="dimmed" aria-live="polite">
          {data ? `${data.totalElements} asset${data.totalElements === 1 ? '' : 's'}` : 'Loading…'}
        </Text>
      </Group>
      <ErrorAlert error={assets.error} title="Could not load the assets" />
      <Paper withBorder radius="md">
        <Table.ScrollContainer minWidth={560}>
          <Table highlightOnHover verticalSpacing="sm" data-testid="assets-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Type</Table.Th>
                <Table.Th>Label</Table.Th>
                <Table.Th>Created</Table.Th>
                {scope.canEdit && <Table.Th style={{ width: 1 }} aria-label="Actions" />}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody style={{ opacity: assets.isPlaceholderData ? 0.6 : 1 }}>
              {rows.map((asset) => (
                <Table.Tr
                  key={asset.id.id}
                  style={{ cursor: 'pointer' }}
                  onClick={(e) => {
                    if ((e.target as HTMLElement).closest('a, button')) return;
                    navigate(`/assets/${asset.id.id}`);
                  }}
                >
                  <Table.Td>
                    <Anchor component={Link} to={`/assets/${asset.id.id}`} fw={500} data-testid="asset-link">
                      {asset.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{asset.type}</Table.Td>
                  <Table.Td>{asset.label ?? ''}</Table.Td>
                  <Table.Td>
                    <Text size="sm" c="dimmed">
                      {formatDateTime(asset.createdTime)}
                    </Text>
                  </Table.Td>
                  {scope.canEdit && (
                    <Table.Td>
                      <Group gap={4} wrap="nowrap">
                        <Button size="compact-sm" variant="subtle" onClick={() => setEditing(asset)}>
                          Edit
                        </Button>
                        <Button
                          size="compact-sm"
                          variant="subtle"
                          color="red"
                          onClick={() => setDeleting(asset)}
                        >
                          Delete
                        </Button>
                      </Group>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
              {data && rows.length === 0 && (
                <EmptyTableRow columns={5} roomy>
                  {textSearch
                    ? `No asset name contains “${textSearch}”.`
                    : scope.canEdit
                      ? 'No assets yet. Add a building or a line, then relate devices to it.'
                      : 'No assets are assigned to your customer.'}
                </EmptyTableRow>
              )}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
      {data && data.totalPages > 1 && (
        <Group justify="flex-end">
          <Pagination total={data.totalPages} value={page + 1} onChange={(p) => setPage(p - 1)} />
        </Group>
      )}
      <AssetFormModal
        asset={editing === 'new' ? null : editing}
        opened={editing !== null}
        onClose={() => setEditing(null)}
        onSaved={(asset) => {
          if (editing === 'new') navigate(`/assets/${asset.id.id}`);
        }}
      />
      <DeleteAssetModal asset={deleting} onClose={() => setDeleting(null)} />
    </Stack>
  );
}
