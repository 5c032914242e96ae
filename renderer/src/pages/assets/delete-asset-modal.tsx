import type { Asset } from '../../api/entities-api.ts';
import { useDeleteAsset } from '../../api/entities-hooks.ts';
import { ConfirmModal } from '../../components/confirm-modal.tsx';

/** Deletes an asset after asking (its attributes, telemetry, relations and alarms go with it). */
export function DeleteAssetModal({
  asset,
  onClose,
  onDeleted,
}: {
  asset: Asset | null;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  const remove = useDeleteAsset();
  return (
    <ConfirmModal
      opened={asset !== null}
      title="Delete asset"
      confirmLabel="Delete"
      busy={remove.isPending}
      error={remove.error}
      onClose={() => {
        remove.reset();
        onClose();
      }}
      onConfirm={() =>
        asset &&
        remove.mutate(asset.id.id, {
          onSuccess: () => {
            onClose();
            onDeleted?.();
          },
        })
      }
      testId="asset-delete-confirm"
    >
      {`Delete “${asset?.name ?? ''}” with its attributes, telemetry, relations and alarms?`}
    </ConfirmModal>
  );
}
