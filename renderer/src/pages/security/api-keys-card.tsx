import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Modal,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { ApiKey, CreatedApiKey } from '../../api/client.ts';
import {
  useApiKeys,
  useCreateApiKey,
  useCurrentUser,
  useDeleteApiKey,
  usePlatformInfo,
  useSetApiKeyEnabled,
} from '../../api/hooks.ts';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { CopyValue } from '../../components/copy-value.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { formatDateTime } from '../../components/format.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const EXPIRY_CHOICES = [
  { value: '0', label: 'Never' },
  { value: String(HOUR), label: 'In 1 hour' },
  { value: String(DAY), label: 'In 1 day' },
  { value: String(7 * DAY), label: 'In 7 days' },
  { value: String(30 * DAY), label: 'In 30 days' },
  { value: String(90 * DAY), label: 'In 90 days' },
  { value: String(365 * DAY), label: 'In 1 year' },
];

type KeyStatus = 'active' | 'expired' | 'disabled';

export function apiKeyStatus(key: ApiKey, now = Date.now()): KeyStatus {
  if (!key.enabled) return 'disabled';
  if (key.expired || (key.expirationTime > 0 && key.expirationTime <= now)) return 'expired';
  return 'active';
}

const STATUS_COLOR: Record<KeyStatus, string> = { active: 'teal', expired: 'orange', disabled: 'gray' };

function CreateApiKeyForm({
  userId,
  onCreated,
}: {
  userId: string | undefined;
  onCreated: (key: CreatedApiKey) => void;
}) {
  const create = useCreateApiKey(userId);
  const [description, setDescription] = useState('');
  const [expiry, setExpiry] = useState('0');
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const ttl = Number(expiry);
    create.mutate(
      { description: description.trim(), expirationTime: ttl > 0 ? Date.now() + ttl : 0 },
      {
        onSuccess: (key) => {
          setDescription('');
          onCreated(key);
        },
      },
    );
  };
  return (
    <form onSubmit={onSubmit} aria-label="Create an API key">
      <Stack gap="xs">
        <Group align="flex-end" gap="sm" wrap="wrap">
          <TextInput
            label="Description"
            placeholder="What uses this key, e.g. CI job"
            required
            maxLength={255}
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
            style={{ flex: 1, minWidth: 220 }}
            name="apiKeyDescription"
          />
          <Select
            label="Expires"
            data={EXPIRY_CHOICES}
            value={expiry}
            onChange={(v) => setExpiry(v ?? '0')}
            allowDeselect={false}
            w={160}
            name="apiKeyExpiry"
          />
          <Button type="submit" loading={create.isPending} disabled={!userId} data-testid="create-api-key">
            Create key
          </Button>
        </Group>
        <ErrorAlert error={create.error} title="Could not create the API key" />
      </Stack>
    </form>
  );
}

/** The new key's value, shown this once. */
function CreatedApiKeyModal({ created, onClose }: { created: CreatedApiKey | null; onClose: () => void }) {
  const info = usePlatformInfo();
  const base = info.data?.http ?? window.location.origin;
  return (
    <Modal opened={created !== null} onClose={onClose} title="API key created" size="lg" centered>
      {created && (
        <Stack gap="sm">
          <Alert color="yellow" variant="light">
            Copy the key now: this is the only time Sandboard shows it. It is stored only as a hash.
          </Alert>
          <CopyValue value={created.value} label="Copy API key" testId="new-api-key-value" />
          <Text size="sm" c="dimmed">
            Use it in the X-Authorization header:
          </Text>
          <CopyValue
            block
            value={`curl -H "X-Authorization: ApiKey ${created.value}" ${base}/api/auth/user`}
            label="Copy curl command"
          />
          <Group justify="flex-end">
            <Button onClick={onClose} data-testid="close-created-key">
              Done
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

function ApiKeyRow({
  apiKey,
  userId,
  onRevoke,
}: {
  apiKey: ApiKey;
  userId: string;
  onRevoke: (key: ApiKey) => void;
}) {
  const setEnabled = useSetApiKeyEnabled(userId);
  const status = apiKeyStatus(apiKey);
  return (
    <Table.Tr data-testid="api-key-row" data-description={apiKey.description}>
      <Table.Td>{apiKey.description}</Table.Td>
      <Table.Td>
        <Text size="xs" c="dimmed">
          {formatDateTime(apiKey.createdTime)}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="xs" c="dimmed">
          {apiKey.expirationTime > 0 ? formatDateTime(apiKey.expirationTime) : 'never'}
        </Text>
      </Table.Td>
      <Table.Td>
        <Badge color={STATUS_COLOR[status]} variant="light" data-testid="api-key-status">
          {status}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Switch
          checked={apiKey.enabled}
          disabled={setEnabled.isPending}
          onChange={(e) => setEnabled.mutate({ id: apiKey.id.id, enabled: e.currentTarget.checked })}
          aria-label={`${apiKey.enabled ? 'Disable' : 'Enable'} key ${apiKey.description}`}
          label={apiKey.enabled ? 'enabled' : 'disabled'}
        />
        {setEnabled.error && (
          <Text size="xs" c="red" role="alert">
            {setEnabled.error.message}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Button
          size="compact-sm"
          variant="subtle"
          color="red"
          onClick={() => onRevoke(apiKey)}
          data-testid="revoke-api-key"
        >
          Revoke
        </Button>
      </Table.Td>
    </Table.Tr>
  );
}

/** API keys of the current user: create (value shown once), enable or disable, revoke. */
export function ApiKeysCard() {
  const user = useCurrentUser();
  const userId = user.data?.id.id;
  const keys = useApiKeys(userId);
  const remove = useDeleteApiKey(userId);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const rows = keys.data?.data ?? [];
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="sm">
        <Title order={4}>API keys</Title>
        <Text size="xs" c="dimmed">
          For scripts and tools: send <code>X-Authorization: ApiKey &lt;key&gt;</code>. A key acts as you.
        </Text>
        <CreateApiKeyForm userId={userId} onCreated={setCreated} />
        <ErrorAlert error={keys.error ?? user.error} title="Could not load the API keys" />
        {keys.data && rows.length === 0 && (
          <Text size="sm" c="dimmed">
            No API keys yet.
          </Text>
        )}
        {rows.length > 0 && userId && (
          <Table.ScrollContainer minWidth={640}>
            <Table verticalSpacing="xs" data-testid="api-keys-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Description</Table.Th>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>Expires</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Enabled</Table.Th>
                  <Table.Th aria-label="Actions" />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((k) => (
                  <ApiKeyRow key={k.id.id} apiKey={k} userId={userId} onRevoke={setRevoking} />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
      <CreatedApiKeyModal created={created} onClose={() => setCreated(null)} />
      <ConfirmModal
        opened={revoking !== null}
        title="Revoke API key"
        confirmLabel="Revoke"
        busy={remove.isPending}
        error={remove.error}
        testId="confirm-revoke-api-key"
        onClose={() => {
          setRevoking(null);
          remove.reset();
        }}
        onConfirm={() => revoking && remove.mutate(revoking.id.id, { onSuccess: () => setRevoking(null) })}
      >
        {`Revoke “${revoking?.description ?? ''}”? Anything using it is refused from now on.`}
      </ConfirmModal>
    </Card>
  );
}
