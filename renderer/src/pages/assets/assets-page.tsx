import { Button, Stack } from '@mantine/core';
import { useState } from 'react';
import type { Asset, AssetPageQuery } from '../../api/entities-api.ts';
import { useAssets } from '../../api/entities-hooks.ts';
import { useDeviceOwnerScope } from '../../api/hooks.ts';
import {
  EntityList,
  createdColumn,
  nameColumn,
  useEntityListState,
  type EntityColumn,
} from '../../components/entity-list.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { navigate } from '../../router.tsx';
import { AssetFormModal } from './asset-form-modal.tsx';
import { DeleteAssetModal } from './delete-asset-modal.tsx';

type SortProperty = NonNullable<AssetPageQuery['sortProperty']>;

const hrefOf = (a: Asset) => `/assets/${a.id.id}`;

const columns: EntityColumn<Asset, SortProperty>[] = [
  nameColumn(hrefOf, 'asset-link', 'name'),
  { label: 'Type', sortProperty: 'type', render: (a) => a.type },
  { label: 'Label', sortProperty: 'label', render: (a) => a.label ?? '' },
  createdColumn('createdTime'),
];

export default function AssetsPage() {
  const scope = useDeviceOwnerScope();
  const list = useEntityListState<SortProperty>('createdTime');
  const [editing, setEditing] = useState<Asset | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Asset | null>(null);
  const assets = useAssets(list.query);
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
      <EntityList
        noun="asset"
        state={list}
        data={assets.data}
        error={assets.error}
        stale={assets.isPlaceholderData}
        columns={columns}
        hrefOf={hrefOf}
        tableTestId="assets-table"
        searchTestId="asset-search"
        onEdit={scope.canEdit ? setEditing : undefined}
        onDelete={scope.canEdit ? setDeleting : undefined}
        empty={
          scope.canEdit
            ? 'No assets yet. Add a building or a line, then relate devices to it.'
            : 'No assets are assigned to your customer.'
        }
      />
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
