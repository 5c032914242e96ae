import { useState } from 'react';
import { useAsset } from '../../api/entities-hooks.ts';
import { useDeviceOwnerScope } from '../../api/hooks.ts';
import { EntityDetail } from '../../components/entity-detail.tsx';
import { formatDateTime } from '../../components/format.ts';
import { navigate } from '../../router.tsx';
import { entityDataSections } from '../entity-sections.tsx';
import { AssetFormModal } from './asset-form-modal.tsx';
import { DeleteAssetModal } from './delete-asset-modal.tsx';

export default function AssetDetailPage({ params }: { params: Record<string, string> }) {
  const id = params.id!;
  const asset = useAsset(id);
  const scope = useDeviceOwnerScope();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const a = asset.data;
  return (
    <EntityDetail
      back={{ to: '/assets', label: 'Assets' }}
      state={{ error: asset.error, loading: !a, errorTitle: 'Could not load the asset' }}
      testId="asset-detail"
      title={a && <span data-testid="asset-name-title">{a.name}</span>}
      description={
        a && `Type ${a.type}${a.label ? ` · ${a.label}` : ''} · created ${formatDateTime(a.createdTime)}`
      }
      onEdit={scope.canEdit ? () => setEditing(true) : undefined}
      onDelete={scope.canEdit ? () => setDeleting(true) : undefined}
      sections={entityDataSections({ entityType: 'ASSET', id })}
    >
      {a && (
        <>
          <AssetFormModal asset={a} opened={editing} onClose={() => setEditing(false)} />
          <DeleteAssetModal
            asset={deleting ? a : null}
            onClose={() => setDeleting(false)}
            onDeleted={() => navigate('/assets', { replace: true })}
          />
        </>
      )}
    </EntityDetail>
  );
}
