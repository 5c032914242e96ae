import { Alert, Button, Group, Modal, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import type { Edge, SaveEdgeRequest } from '../../api/client.ts';
import { useSaveEdge } from '../../api/hooks.ts';
import { CopyValue } from '../../components/copy-value.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';

/** Creates an edge (routing key and secret generated unless given) or edits its name, type and label. */
export function EdgeFormModal({
  edge,
  opened,
  onClose,
  onCreated,
}: {
  /** null: a new edge */
  edge: Edge | null;
  opened: boolean;
  onClose: () => void;
  onCreated?: (edge: Edge) => void;
}) {
  const save = useSaveEdge();
  const [name, setName] = useState('');
  const [type, setType] = useState('default');
  const [label, setLabel] = useState('');
  const [routingKey, setRoutingKey] = useState('');
  const [secret, setSecret] = useState('');

  useEffect(() => {
    if (!opened) return;
    setName(edge?.name ?? '');
    setType(edge?.type ?? 'default');
    setLabel(edge?.label ?? '');
    setRoutingKey(edge?.routingKey ?? '');
    setSecret('');
    save.reset();
    // reset whenever the dialog opens for an edge
  }, [opened, edge]);

  const secretError = secret !== '' && secret.length < 8 ? 'at least 8 characters' : undefined;
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim() || secretError) return;
    const body: SaveEdgeRequest = {
      name: name.trim(),
      type: type.trim() || 'default',
      label: label.trim() || null,
      ...(routingKey.trim() ? { routingKey: routingKey.trim() } : {}),
      ...(edge ? { id: { entityType: 'EDGE' as const, id: edge.id.id } } : {}),
      ...(!edge && secret ? { secret } : {}),
    };
    save.mutate(body, {
      onSuccess: (saved) => {
        onClose();
        if (!edge) onCreated?.(saved);
      },
    });
  };

  return (
    <Modal opened={opened} onClose={onClose} title={edge ? `Edit ${edge.name}` : 'New edge'}>
      <form onSubmit={onSubmit} data-testid="edge-form">
        <Stack gap="sm">
          <TextInput
            label="Name"
            required
            maxLength={255}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            data-autofocus
          />
          <Group grow>
            <TextInput
              label="Type"
              maxLength={255}
              value={type}
              onChange={(e) => setType(e.currentTarget.value)}
            />
            <TextInput
              label="Label"
              maxLength={255}
              value={label}
              onChange={(e) => setLabel(e.currentTarget.value)}
            />
          </Group>
          <TextInput
            label="Routing key"
            description={edge ? 'What the edge logs in with' : 'Leave empty to generate one'}
            maxLength={255}
            value={routingKey}
            onChange={(e) => setRoutingKey(e.currentTarget.value)}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
          {!edge && (
            <PasswordInput
              label="Secret"
              description="Leave empty to generate one; it is shown once"
              maxLength={255}
              value={secret}
              onChange={(e) => setSecret(e.currentTarget.value)}
              error={secretError}
              autoComplete="new-password"
            />
          )}
          <ErrorAlert error={save.error} title="Could not save the edge" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending} data-testid="save-edge">
              {edge ? 'Save' : 'Create'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** The new edge's credentials: the secret is never shown again. */
export function EdgeSecretModal({ edge, onClose }: { edge: Edge | null; onClose: () => void }) {
  return (
    <Modal opened={edge !== null} onClose={onClose} title="Edge created" size="lg">
      {edge && (
        <Stack gap="sm">
          <Alert color="yellow" variant="light" title="The secret is shown once" data-testid="secret-warning">
            <Text size="sm">
              The platform keeps only a hash of it. Copy it now for your edge. This window keeps it in memory
              (until you log out or reload) so a simulated edge can use it.
            </Text>
          </Alert>
          <Text size="sm" fw={600}>
            Routing key
          </Text>
          <CopyValue value={edge.routingKey} label="Copy routing key" testId="edge-routing-key" />
          <Text size="sm" fw={600}>
            Secret
          </Text>
          <CopyValue value={edge.secret ?? ''} label="Copy secret" testId="edge-secret" />
          <Group justify="flex-end">
            <Button onClick={onClose} data-testid="close-secret">
              I have copied it
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
