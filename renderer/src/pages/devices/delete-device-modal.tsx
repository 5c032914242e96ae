import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useEffect } from 'react';
import type { Device } from '../../api/client.ts';
import { useDeleteDevice } from '../../api/hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';

/** Asks before deleting a device with its credentials, attributes and telemetry. */
export function DeleteDeviceModal({
  device,
  onClose,
  onDeleted,
}: {
  device: Device | null;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  const remove = useDeleteDevice();
  const { reset } = remove;
  useEffect(() => {
    if (device) reset();
  }, [device, reset]);
  return (
    <Modal opened={device !== null} onClose={onClose} title="Delete device" centered>
      <Stack gap="sm">
        <Text size="sm">
          Delete <b>{device?.name}</b> with its access token, attributes and all of its telemetry? This cannot
          be undone.
        </Text>
        <ErrorAlert error={remove.error} title="Could not delete the device" />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Cancel
          </Button>
          <Button
            color="red"
            loading={remove.isPending}
            data-testid="confirm-delete-device"
            onClick={() =>
              device &&
              remove.mutate(device.id.id, {
                onSuccess: () => {
                  onClose();
                  onDeleted?.();
                },
              })
            }
          >
            Delete
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
