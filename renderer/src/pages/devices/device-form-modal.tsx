import { Button, Checkbox, Group, Modal, Stack, TextInput, Textarea } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import type { Device } from '../../api/client.ts';
import { useSaveDevice } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';

interface DeviceFormValues {
  name: string;
  label: string;
  profile: string;
  gateway: boolean;
  description: string;
  accessToken: string;
}

function valuesOf(device: Device | null): DeviceFormValues {
  const info = device?.additionalInfo ?? {};
  return {
    name: device?.name ?? '',
    label: device?.label ?? '',
    profile: device?.type ?? 'default',
    gateway: info.gateway === true || info.gateway === 'true',
    description: typeof info.description === 'string' ? info.description : '',
    accessToken: '',
  };
}

/** Creates a device (device = null) or edits one; keeps whatever else its additionalInfo holds. */
export function DeviceFormModal({
  device,
  opened,
  onClose,
  onSaved,
}: {
  device: Device | null;
  opened: boolean;
  onClose: () => void;
  onSaved?: (device: Device) => void;
}) {
  const save = useSaveDevice();
  const [values, setValues] = useState<DeviceFormValues>(() => valuesOf(device));
  const { reset } = save;
  useEffect(() => {
    if (opened) {
      setValues(valuesOf(device));
      reset();
    }
  }, [opened, device, reset]);

  const set = <K extends keyof DeviceFormValues>(key: K, value: DeviceFormValues[K]) =>
    setValues((v) => ({ ...v, [key]: value }));

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const additionalInfo = { ...(device?.additionalInfo ?? {}), gateway: values.gateway } as Record<
      string,
      unknown
    >;
    if (values.description.trim()) additionalInfo.description = values.description.trim();
    else delete additionalInfo.description;
    save.mutate(
      {
        body: {
          ...(device
            ? { id: { entityType: 'DEVICE' as const, id: device.id.id }, customerId: device.customerId }
            : {}),
          name: values.name.trim(),
          type: values.profile.trim() || 'default',
          label: values.label.trim() || null,
          additionalInfo,
        },
        accessToken: !device && values.accessToken.trim() ? values.accessToken.trim() : undefined,
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
    <Modal opened={opened} onClose={onClose} title={device ? `Edit ${device.name}` : 'Add device'} centered>
      <form onSubmit={onSubmit} data-testid="device-form">
        <Stack gap="sm">
          <TextInput
            label="Name"
            description="Unique in the tenant; gateways address devices by it"
            required
            data-autofocus
            maxLength={255}
            value={values.name}
            onChange={(e) => set('name', e.currentTarget.value)}
            name="name"
          />
          <TextInput
            label="Label"
            maxLength={255}
            value={values.label}
            onChange={(e) => set('label', e.currentTarget.value)}
            name="label"
          />
          <TextInput
            label="Device profile"
            description="A new profile name creates that profile"
            maxLength={255}
            value={values.profile}
            onChange={(e) => set('profile', e.currentTarget.value)}
            name="profile"
          />
          <Textarea
            label="Description"
            autosize
            minRows={2}
            value={values.description}
            onChange={(e) => set('description', e.currentTarget.value)}
            name="description"
          />
          <Checkbox
            label="Is gateway (connects other devices)"
            checked={values.gateway}
            onChange={(e) => set('gateway', e.currentTarget.checked)}
            name="gateway"
          />
          {!device && (
            <TextInput
              label="Access token"
              description="Leave empty to generate one"
              maxLength={255}
              value={values.accessToken}
              onChange={(e) => set('accessToken', e.currentTarget.value.replace(/\s/g, ''))}
              name="accessToken"
            />
          )}
          <ErrorAlert error={save.error} title="Could not save the device" />
          <Group justify="flex-end" mt="xs">
            <Button variant="default" onClick={onClose} type="button">
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending} data-testid="save-device">
              {device ? 'Save' : 'Add'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
