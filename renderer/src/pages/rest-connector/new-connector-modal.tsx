import {
  Alert,
  Button,
  Group,
  Modal,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import type { RestConnectorDetails } from '../../api/rest-connector-api.ts';
import { useCreateRestConnector, useRestConfigTemplate } from '../../api/rest-connector-hooks.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { configPort, withServer } from './connector-ui.tsx';
import { NO_REMOTE, RemotePlatformFields, targetOf, type RemotePlatform } from './remote-platform-fields.tsx';

function uniqueName(base: string, taken: string[]): string {
  if (!taken.includes(base)) return base;
  for (let i = 2; ; i++) if (!taken.includes(`${base} ${i}`)) return `${base} ${i}`;
}

/** Creates a connector from the gateway's default rest.json, on a host and port of one's choosing. */
export function NewConnectorModal({
  opened,
  onClose,
  takenNames,
  onCreated,
}: {
  opened: boolean;
  onClose: () => void;
  takenNames: string[];
  onCreated: (details: RestConnectorDetails) => void;
}) {
  const template = useRestConfigTemplate(opened);
  const create = useCreateRestConnector();
  const [name, setName] = useState('');
  const [gatewayName, setGatewayName] = useState('');
  const [host, setHost] = useState('127.0.0.1');
  const [port, setPort] = useState('');
  const [autostart, setAutostart] = useState(false);
  const [target, setTarget] = useState<'embedded' | 'remote'>('embedded');
  const [remote, setRemote] = useState<RemotePlatform>(NO_REMOTE);

  useEffect(() => {
    if (!opened) return;
    setName(uniqueName('REST connector', takenNames));
    setGatewayName('');
    create.reset();
    // only when the dialog opens: a list refresh must not overwrite what was typed
  }, [opened]);
  useEffect(() => {
    if (opened && template.data) setPort(configPort(template.data));
  }, [opened, template.data]);

  const portNumber = Number(port);
  const portError =
    port !== '' && (!/^\d{1,5}$/.test(port) || portNumber > 65535)
      ? 'A port number from 0 to 65535'
      : undefined;
  const nameTaken = takenNames.includes(name.trim()) ? 'A connector has this name' : undefined;
  const ready = template.data !== undefined && name.trim() !== '' && !portError && !nameTaken && port !== '';

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!ready) return;
    create.mutate(
      {
        name: name.trim(),
        ...(gatewayName.trim() ? { gatewayName: gatewayName.trim() } : {}),
        config: withServer(template.data, host.trim() || '127.0.0.1', port),
        autostart,
        ...(target === 'remote' ? { target: targetOf(remote) } : {}),
      },
      {
        onSuccess: (details) => {
          onClose();
          onCreated(details);
        },
      },
    );
  };

  return (
    <Modal opened={opened} onClose={onClose} title="New REST connector" size="lg">
      <form onSubmit={onSubmit} data-testid="new-connector-form">
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            Starts from the gateway&apos;s default <code>rest.json</code> (thingsboard-gateway 3.8): three
            endpoints, an attribute request endpoint, attribute updates and RPC calls. Everything can be
            edited afterwards.
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput
              label="Name"
              required
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={nameTaken}
              data-autofocus
            />
            <TextInput
              label="Gateway device"
              description="Its name on the platform"
              placeholder={name.trim() || 'the connector name'}
              value={gatewayName}
              onChange={(e) => setGatewayName(e.currentTarget.value)}
            />
            <TextInput
              label="Host"
              description="Address the endpoints listen on"
              value={host}
              onChange={(e) => setHost(e.currentTarget.value)}
            />
            <TextInput
              label="Port"
              description="5000 is the gateway's default; pick a free one (0: any free port)"
              value={port}
              onChange={(e) => setPort(e.currentTarget.value.trim())}
              error={portError}
              inputMode="numeric"
            />
          </SimpleGrid>
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Platform
            </Text>
            <SegmentedControl
              value={target}
              onChange={(v) => setTarget(v as 'embedded' | 'remote')}
              data={[
                { value: 'embedded', label: 'This Sandboard' },
                { value: 'remote', label: 'Another ThingsBoard (MQTT)' },
              ]}
              size="xs"
            />
          </Stack>
          {target === 'remote' && <RemotePlatformFields value={remote} onChange={setRemote} />}
          <Switch
            label="Start with the platform (autostart)"
            checked={autostart}
            onChange={(e) => setAutostart(e.currentTarget.checked)}
          />
          <ErrorAlert error={template.error} title="Could not load the template" />
          <ErrorAlert error={create.error} title="Could not create the connector" />
          {template.data === undefined && !template.error && (
            <Alert variant="light" color="gray">
              Loading the template…
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending} disabled={!ready} data-testid="create-connector">
              Create
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
