import '../../components/typebox-csp.ts';
import {
  Badge,
  Button,
  Card,
  Group,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { useEffect, useMemo, useRef, useState } from 'react';
import { validateRestConfig } from '../../../../shared/schemas/rest-connector.ts';
import type { RestConnectorDetails, SaveRestConnectorRequest } from '../../api/rest-connector-api.ts';
import {
  useRestConfigSchema,
  useRestConfigTemplate,
  useSelfSignedCertificate,
  useUpdateRestConnector,
} from '../../api/rest-connector-hooks.ts';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { configPort, pretty, withServer } from './connector-ui.tsx';
import { RemotePlatformFields, remoteOf, targetOf, type RemotePlatform } from './remote-platform-fields.tsx';
import { JsonEditor, type JsonEditorHandle, type JsonEditorIssue } from './json-editor/json-editor.tsx';

interface Settings {
  name: string;
  gatewayName: string;
  autostart: boolean;
  target: 'embedded' | 'remote';
  remote: RemotePlatform;
}

function settingsOf(c: RestConnectorDetails): Settings {
  return {
    name: c.name,
    gatewayName: c.gatewayName,
    autostart: c.autostart,
    target: c.target.url ? 'remote' : 'embedded',
    remote: remoteOf(c.target),
  };
}

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * The connector's settings and its rest.json: edited as text with live validation (the connector's own
 * validator: every problem names its JSON path) and completion from the JSON schema of rest.json.
 */
export function ConfigEditor({ connector }: { connector: RestConnectorDetails }) {
  const schema = useRestConfigSchema();
  const template = useRestConfigTemplate();
  const update = useUpdateRestConnector(connector.id);
  const https = useSelfSignedCertificate(connector.id);
  const editor = useRef<JsonEditorHandle>(null);
  const savedText = useMemo(() => pretty(connector.config), [connector.config]);
  const savedSettings = useMemo(() => settingsOf(connector), [connector]);
  const [text, setText] = useState(savedText);
  const [settings, setSettings] = useState(savedSettings);
  const [confirmHttps, setConfirmHttps] = useState(false);

  const parsed = useMemo(() => parse(text), [text]);
  const validation = useMemo(() => (parsed.ok ? validateRestConfig(parsed.value) : null), [parsed]);
  const issues = useMemo<JsonEditorIssue[]>(
    () =>
      validation
        ? [
            ...validation.errors.map((e) => ({ ...e, severity: 'error' as const })),
            ...validation.warnings.map((w) => ({ ...w, severity: 'warning' as const })),
          ]
        : [],
    [validation],
  );
  const configDirty = parsed.ok ? pretty(parsed.value) !== savedText : true;
  const settingsDirty = JSON.stringify(settings) !== JSON.stringify(savedSettings);
  const dirty = configDirty || settingsDirty;

  // a connector saved elsewhere (or by this editor) replaces an unchanged draft
  useEffect(() => {
    if (!configDirty) setText(savedText);
  }, [savedText]);
  useEffect(() => {
    if (!settingsDirty) setSettings(savedSettings);
  }, [savedSettings]);

  const set = <K extends keyof Settings>(key: K, value: Settings[K]) =>
    setSettings((s) => ({ ...s, [key]: value }));
  const nameError = settings.name.trim() === '' ? 'Required' : undefined;
  const canSave =
    dirty &&
    parsed.ok &&
    validation?.valid === true &&
    !nameError &&
    !update.isPending &&
    connector.state !== 'starting';

  const save = () => {
    if (!parsed.ok) return;
    const body: SaveRestConnectorRequest = {
      name: settings.name.trim(),
      config: parsed.value,
      autostart: settings.autostart,
      ...(settings.gatewayName.trim() ? { gatewayName: settings.gatewayName.trim() } : {}),
      ...(settings.target === 'remote' ? { target: targetOf(settings.remote) } : {}),
    };
    update.mutate(body, {
      onSuccess: (details) => {
        setText(pretty(details.config));
        setSettings(settingsOf(details));
      },
    });
  };
  const discard = () => {
    setText(savedText);
    setSettings(savedSettings);
    update.reset();
  };
  const fromTemplate = () => {
    if (!template.data) return;
    // keep where this connector listens
    const current = parsed.ok ? parsed.value : connector.config;
    const server = (current as { server?: { host?: unknown } } | null)?.server;
    const host = typeof server?.host === 'string' ? server.host : '127.0.0.1';
    setText(pretty(withServer(template.data, host, configPort(current) || configPort(template.data))));
  };
  const format = () => {
    if (parsed.ok) setText(pretty(parsed.value));
  };

  const running = connector.state === 'running' || connector.state === 'starting';
  const errorsCount = validation?.errors.length ?? 0;
  const warningsCount = validation?.warnings.length ?? 0;

  return (
    <Card withBorder radius="md" p="md" data-testid="connector-config">
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
          <TextInput
            label="Name"
            value={settings.name}
            onChange={(e) => set('name', e.currentTarget.value)}
            error={nameError}
          />
          <TextInput
            label="Gateway device"
            value={settings.gatewayName}
            onChange={(e) => set('gatewayName', e.currentTarget.value)}
            placeholder={settings.name}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Platform
            </Text>
            <SegmentedControl
              size="xs"
              value={settings.target}
              onChange={(v) => set('target', v as Settings['target'])}
              data={[
                { value: 'embedded', label: 'This Sandboard' },
                { value: 'remote', label: 'Another (MQTT)' },
              ]}
            />
          </Stack>
          <Switch
            mt={28}
            label="Start with the platform"
            checked={settings.autostart}
            onChange={(e) => set('autostart', e.currentTarget.checked)}
          />
        </SimpleGrid>
        {settings.target === 'remote' && (
          <RemotePlatformFields value={settings.remote} onChange={(r) => set('remote', r)} />
        )}

        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs">
            <Text fw={600}>rest.json</Text>
            {validation && (
              <Badge
                variant="light"
                color={errorsCount ? 'red' : warningsCount ? 'yellow' : 'teal'}
                data-testid="config-validity"
                data-valid={String(validation.valid)}
              >
                {errorsCount
                  ? `${errorsCount} error${errorsCount === 1 ? '' : 's'}`
                  : warningsCount
                    ? `valid, ${warningsCount} warning${warningsCount === 1 ? '' : 's'}`
                    : 'valid'}
              </Badge>
            )}
            {!parsed.ok && (
              <Badge variant="light" color="red" data-testid="config-validity" data-valid="false">
                not JSON
              </Badge>
            )}
            {validation && (
              <Badge variant="outline" color="gray">
                {validation.format === 'legacy' ? 'legacy format' : '3.7+ format'}
              </Badge>
            )}
          </Group>
          <Group gap="xs">
            <Button size="xs" variant="subtle" onClick={format} disabled={!parsed.ok}>
              Format
            </Button>
            <Tooltip
              label="Replace the text with the gateway's default rest.json (host and port kept)"
              withArrow
            >
              <Button size="xs" variant="subtle" onClick={fromTemplate} disabled={!template.data}>
                Load the template
              </Button>
            </Tooltip>
            <Button size="xs" variant="subtle" onClick={() => setConfirmHttps(true)}>
              Use HTTPS (self-signed)
            </Button>
            {dirty && (
              <Text size="xs" c="dimmed">
                Unsaved changes
              </Text>
            )}
            <Button size="xs" variant="default" onClick={discard} disabled={!dirty || update.isPending}>
              Discard
            </Button>
            <Button
              size="xs"
              onClick={save}
              disabled={!canSave}
              loading={update.isPending}
              data-testid="save-connector"
            >
              {running ? 'Save and restart' : 'Save'}
            </Button>
          </Group>
        </Group>
        <ErrorAlert error={update.error} title="Could not save the connector" />
        <ErrorAlert error={https.error} title="Could not make a certificate" />
        <JsonEditor
          ref={editor}
          label="rest.json"
          value={text}
          onChange={setText}
          schema={schema.data}
          issues={issues}
          height={520}
          testId="rest-json"
        />
        <Text size="xs" c="dimmed">
          Ctrl+Space (or the {'{…}'} button) suggests the keys and values the schema allows where the cursor
          is; typing a key opens the list too. Click a problem to jump to its line.
        </Text>
      </Stack>
      <ConfirmModal
        opened={confirmHttps}
        title="Switch to HTTPS"
        confirmLabel="Make a certificate"
        busy={https.isPending}
        error={https.error}
        onClose={() => setConfirmHttps(false)}
        onConfirm={() =>
          https.mutate(undefined, {
            onSuccess: (details) => {
              setConfirmHttps(false);
              setText(pretty(details.config));
            },
          })
        }
      >
        Makes a self-signed certificate and key for this connector, sets SSL to true and points
        server.security at them (a running connector restarts). Unsaved changes to rest.json are replaced by
        the saved file.
      </ConfirmModal>
    </Card>
  );
}
