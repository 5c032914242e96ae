import { Button, Card, Group, Stack, Textarea, TextInput, Title } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import type { DeviceProfile } from '../../api/transport-api.ts';
import { useSaveDeviceProfile } from '../../api/transport-hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { profileSaveRequest } from './profile-save.ts';

/** The profile's name and description. */
export function ProfileGeneralCard({ profile, canEdit }: { profile: DeviceProfile; canEdit: boolean }) {
  const save = useSaveDeviceProfile();
  const [name, setName] = useState(profile.name);
  const [description, setDescription] = useState(profile.description ?? '');
  useEffect(() => {
    setName(profile.name);
    setDescription(profile.description ?? '');
  }, [profile]);
  const changed = name !== profile.name || description !== (profile.description ?? '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(profileSaveRequest(profile, { name: name.trim(), description: description || null }));
  };
  return (
    <Card withBorder radius="md" p="md">
      <form onSubmit={submit}>
        <Stack gap="xs">
          <Title order={4}>General</Title>
          <TextInput
            label="Name"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            disabled={!canEdit}
            required
          />
          <Textarea
            label="Description"
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
            disabled={!canEdit}
            autosize
            minRows={1}
          />
          <ErrorAlert error={save.error} title="Could not save the profile" />
          {canEdit && (
            <Group justify="flex-end">
              <Button type="submit" disabled={!changed || !name.trim()} loading={save.isPending}>
                Save
              </Button>
            </Group>
          )}
        </Stack>
      </form>
    </Card>
  );
}
