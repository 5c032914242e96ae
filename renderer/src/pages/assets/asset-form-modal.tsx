import { Autocomplete, Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import type { Asset } from '../../api/entities-api.ts';
import { useAssetProfiles, useSaveAsset } from '../../api/entities-hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';

/** Creates an asset (asset = null) or edits one; its type names a profile, created when new. */
export function AssetFormModal({
  asset,
  opened,
  onClose,
  onSaved,
}: {
  asset: Asset | null;
  opened: boolean;
  onClose: () => void;
  onSaved?: (asset: Asset) => void;
}) {
  const save = useSaveAsset();
  const profiles = useAssetProfiles();
  const [name, setName] = useState('');
  const [type, setType] = useState('default');
  const [label, setLabel] = useState('');
  const { reset } = save;
  useEffect(() => {
    if (!opened) return;
    setName(asset?.name ?? '');
    setType(asset?.type ?? 'default');
    setLabel(asset?.label ?? '');
    reset();
  }, [opened, asset, reset]);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(
      {
        ...(asset
          ? { id: { entityType: 'ASSET' as const, id: asset.id.id }, customerId: asset.customerId }
          : {}),
        name: name.trim(),
        type: type.trim() || 'default',
        label: label.trim() || null,
        additionalInfo: asset?.additionalInfo ?? {},
      },
      {
        onSuccess: (saved) => {
          onClose();
          onSaved?.(saved);
        },
      },
    );
  };
  return (
    <Modal opened={opened} onClose={onClose} title={asset ? 'Edit asset' : 'Add asset'}>
      <form onSubmit={onSubmit} aria-label={asset ? 'Edit asset' : 'Add asset'}>
        <Stack gap="sm">
          <TextInput
            label="Name"
            required
            maxLength={255}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            data-autofocus
            data-testid="asset-name"
          />
          <Autocomplete
            label="Type (asset profile)"
            description="A building, a floor, a production line… a new type creates its profile"
            data={(profiles.data?.data ?? []).map((p) => p.name)}
            value={type}
            onChange={setType}
            maxLength={255}
            data-testid="asset-type"
          />
          <TextInput
            label="Label"
            maxLength={255}
            value={label}
            onChange={(e) => setLabel(e.currentTarget.value)}
          />
          <ErrorAlert error={save.error} title="Could not save the asset" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending} data-testid="asset-save">
              {asset ? 'Save' : 'Add'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
