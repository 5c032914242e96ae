import { Button, Card, Group, Skeleton, Stack, Table, Tabs, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { AttributeScope } from '../../api/client.ts';
import { useAttributes, useDeleteAttribute, useSaveAttributes } from '../../api/hooks.ts';
import { KeyValue } from '../../components/key-value.tsx';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime, parseTypedValue } from '../../components/format.ts';

const SCOPES: { scope: AttributeScope; label: string; note: string; editable: boolean }[] = [
  {
    scope: 'CLIENT_SCOPE',
    label: 'Client',
    note: 'Reported by the device itself; read-only here.',
    editable: false,
  },
  {
    scope: 'SHARED_SCOPE',
    label: 'Shared',
    note: 'Set here, sent to the device (configuration).',
    editable: true,
  },
  {
    scope: 'SERVER_SCOPE',
    label: 'Server',
    note: 'Set here, kept on the server; the device never sees them.',
    editable: true,
  },
];

/** Adds or overwrites one attribute; values are JSON when they parse as JSON, else text. */
function AttributeEditor({
  deviceId,
  entityType,
  scope,
  draft,
  onDraft,
}: {
  deviceId: string;
  entityType: string;
  scope: AttributeScope;
  draft: { key: string; value: string };
  onDraft: (draft: { key: string; value: string }) => void;
}) {
  const save = useSaveAttributes(deviceId, scope, entityType);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const key = draft.key.trim();
    if (!key) return;
    save.mutate(
      { [key]: parseTypedValue(draft.value) },
      { onSuccess: () => onDraft({ key: '', value: '' }) },
    );
  };
  return (
    <form onSubmit={onSubmit} aria-label={`Save a ${scope} attribute`}>
      <Stack gap="xs">
        <Group align="flex-end" gap="xs" wrap="wrap">
          <TextInput
            label="Key"
            required
            maxLength={255}
            value={draft.key}
            onChange={(e) => onDraft({ ...draft, key: e.currentTarget.value })}
            w={180}
            name="attribute-key"
          />
          <TextInput
            label="Value"
            placeholder="JSON (42, true, {…}) or text"
            value={draft.value}
            onChange={(e) => onDraft({ ...draft, value: e.currentTarget.value })}
            style={{ flex: 1, minWidth: 160 }}
            name="attribute-value"
          />
          <Button type="submit" loading={save.isPending} data-testid={`save-attribute-${scope}`}>
            Save
          </Button>
        </Group>
        <ErrorAlert error={save.error} title="Could not save the attribute" />
      </Stack>
    </form>
  );
}

function AttributesOfScope({
  deviceId,
  entityType,
  scope,
  editable,
}: {
  deviceId: string;
  entityType: string;
  scope: AttributeScope;
  editable: boolean;
}) {
  const attributes = useAttributes(deviceId, scope, entityType);
  const remove = useDeleteAttribute(deviceId, scope, entityType);
  const [draft, setDraft] = useState({ key: '', value: '' });
  const [deleting, setDeleting] = useState<string | null>(null);
  const rows = attributes.data ?? [];
  return (
    <Stack gap="sm">
      <ErrorAlert error={attributes.error} title="Could not load the attributes" />
      {!attributes.data && !attributes.error && <Skeleton h={40} />}
      {attributes.data && rows.length === 0 && (
        <Text size="sm" c="dimmed">
          None.
        </Text>
      )}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={360}>
          <Table verticalSpacing={6} data-testid={`attributes-${scope}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Key</Table.Th>
                <Table.Th>Value</Table.Th>
                <Table.Th>Updated</Table.Th>
                {editable && <Table.Th aria-label="Actions" />}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((a) => (
                <Table.Tr key={a.key} data-key={a.key}>
                  <Table.Td ff="monospace">{a.key}</Table.Td>
                  <Table.Td ff="monospace" style={{ wordBreak: 'break-all' }}>
                    <KeyValue name={a.key} value={a.value} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed">
                      {formatDateTime(a.lastUpdateTs)}
                    </Text>
                  </Table.Td>
                  {editable && (
                    <Table.Td>
                      <Group gap={4} wrap="nowrap" justify="flex-end">
                        <Button
                          size="compact-xs"
                          variant="subtle"
                          onClick={() =>
                            setDraft({
                              key: a.key,
                              value: typeof a.value === 'string' ? a.value : JSON.stringify(a.value),
                            })
                          }
                        >
                          Edit
                        </Button>
                        <Button
                          size="compact-xs"
                          variant="subtle"
                          color="red"
                          onClick={() => setDeleting(a.key)}
                        >
                          Delete
                        </Button>
                      </Group>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {editable && (
        <AttributeEditor
          deviceId={deviceId}
          entityType={entityType}
          scope={scope}
          draft={draft}
          onDraft={setDraft}
        />
      )}
      <ConfirmModal
        opened={deleting !== null}
        title="Delete attribute"
        confirmLabel="Delete"
        busy={remove.isPending}
        error={remove.error}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
        onConfirm={() => deleting && remove.mutate(deleting, { onSuccess: () => setDeleting(null) })}
      >
        {`Delete the attribute “${deleting ?? ''}”?`}
      </ConfirmModal>
    </Stack>
  );
}

/**
 * Attributes by scope: client (read-only), shared and server (editable); updated live. Another entity
 * than a device (an asset) has server attributes only, as in ThingsBoard.
 */
export function DeviceAttributesCard({
  deviceId,
  entityType = 'DEVICE',
}: {
  deviceId: string;
  entityType?: string;
}) {
  const scopes =
    entityType === 'DEVICE'
      ? SCOPES
      : [
          {
            scope: 'SERVER_SCOPE' as const,
            label: 'Server',
            note: 'Set here, kept on the server.',
            editable: true,
          },
        ];
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="xs">
        <Title order={4}>Attributes</Title>
        <Tabs defaultValue={scopes.length > 1 ? 'SHARED_SCOPE' : 'SERVER_SCOPE'}>
          <Tabs.List>
            {scopes.map((s) => (
              <Tabs.Tab key={s.scope} value={s.scope}>
                {s.label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {scopes.map((s) => (
            <Tabs.Panel key={s.scope} value={s.scope} pt="sm">
              <Text size="xs" c="dimmed" mb="xs">
                {s.note}
              </Text>
              <AttributesOfScope
                deviceId={deviceId}
                entityType={entityType}
                scope={s.scope}
                editable={s.editable}
              />
            </Tabs.Panel>
          ))}
        </Tabs>
      </Stack>
    </Card>
  );
}
