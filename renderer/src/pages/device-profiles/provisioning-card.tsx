import { Button, Card, Group, Select, Stack, Tabs, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import type { PlatformInfo } from '../../api/client.ts';
import { usePlatformInfo } from '../../api/hooks.ts';
import type { DeviceProfile, SaveDeviceProfileRequest } from '../../api/transport-api.ts';
import { useSaveDeviceProfile } from '../../api/transport-hooks.ts';
import { CopyValue } from '../../components/copy-value.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { profileSaveRequest } from './profile-save.ts';

type Strategy = NonNullable<SaveDeviceProfileRequest['provisionType']>;

export const PROVISION_LABELS: Record<string, string> = {
  DISABLED: 'Disabled',
  ALLOW_CREATE_NEW_DEVICES: 'Allow creating new devices',
  CHECK_PRE_PROVISIONED_DEVICES: 'Check pre-provisioned devices',
};

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** 20 random characters, as ThingsBoard's UI generates a provision key or secret. */
function randomKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  return [...bytes].map((b) => ALPHABET[b % ALPHABET.length]).join('');
}

function secretOf(profile: DeviceProfile): string {
  const config = profile.profileData.provisionConfiguration as
    { provisionDeviceSecret?: unknown } | undefined;
  return typeof config?.provisionDeviceSecret === 'string' ? config.provisionDeviceSecret : '';
}

function hostPort(info: PlatformInfo): { host: string; port: string } {
  try {
    const url = new URL(info.mqtt);
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || '1883' };
  } catch {
    return { host: window.location.hostname, port: '1883' };
  }
}

/** Copyable provision requests for this profile's key and secret: MQTT, HTTP, ThingsBoard's Python SDK. */
export function provisionExamples(info: PlatformInfo, key: string, secret: string) {
  const request = JSON.stringify({
    deviceName: 'my-new-device',
    provisionDeviceKey: key,
    provisionDeviceSecret: secret,
  });
  const { host, port } = hostPort(info);
  return {
    mqtt: `mosquitto_rr -h ${host} -p ${port} -u provision -t /provision/request -e /provision/response \\\n  -m '${request}'`,
    http: `curl -v -X POST ${info.http}/api/v1/provision \\\n  -H "Content-Type: application/json" \\\n  -d '${request}'`,
    python:
      `from tb_device_mqtt import TBDeviceMqttClient\n` +
      `credentials = TBDeviceMqttClient.provision("${host}", "${key}", "${secret}",\n` +
      `                                          port=${port}, device_name="my-new-device")\n` +
      `print(credentials)`,
  };
}

/** The provision key or secret: typed, or generated. */
function KeyInput(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  canEdit: boolean;
  testId: string;
}) {
  return (
    <TextInput
      label={props.label}
      ff="monospace"
      value={props.value}
      onChange={(e) => props.onChange(e.currentTarget.value)}
      disabled={!props.canEdit}
      required
      rightSectionWidth={90}
      rightSection={
        props.canEdit && (
          <Button size="compact-xs" variant="subtle" onClick={() => props.onChange(randomKey())}>
            Generate
          </Button>
        )
      }
      data-testid={props.testId}
    />
  );
}

/** How devices of this profile provision themselves (ThingsBoard's device provisioning). */
export function ProvisioningCard({ profile, canEdit }: { profile: DeviceProfile; canEdit: boolean }) {
  const save = useSaveDeviceProfile();
  const info = usePlatformInfo();
  const [strategy, setStrategy] = useState<Strategy>(profile.provisionType as Strategy);
  const [key, setKey] = useState(profile.provisionDeviceKey ?? '');
  const [secret, setSecret] = useState(secretOf(profile));
  useEffect(() => {
    setStrategy(profile.provisionType as Strategy);
    setKey(profile.provisionDeviceKey ?? '');
    setSecret(secretOf(profile));
  }, [profile]);

  const enabled = strategy !== 'DISABLED';
  const changed =
    strategy !== profile.provisionType ||
    key !== (profile.provisionDeviceKey ?? '') ||
    secret !== secretOf(profile);
  const complete = !enabled || (key.trim() !== '' && secret.trim() !== '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const config = (profile.profileData.provisionConfiguration as Record<string, unknown> | undefined) ?? {};
    save.mutate(
      profileSaveRequest(profile, {
        provisionType: strategy,
        provisionDeviceKey: enabled ? key.trim() : key.trim() || null,
        profileData: {
          ...profile.profileData,
          provisionConfiguration: { ...config, type: strategy, provisionDeviceSecret: secret.trim() || null },
        },
      }),
    );
  };
  const saved = profile.provisionType !== 'DISABLED' && profile.provisionDeviceKey && secretOf(profile);
  const examples =
    info.data && saved ? provisionExamples(info.data, profile.provisionDeviceKey!, secretOf(profile)) : null;

  return (
    <Card withBorder radius="md" p="md" data-testid="provisioning-card">
      <Stack gap="xs">
        <Title order={4}>Device provisioning</Title>
        <Text size="sm" c="dimmed">
          A device that knows the key and secret asks for its own credentials: over MQTT (user name{' '}
          <code>provision</code>, <code>/provision/request</code>) or HTTP (
          <code>POST /api/v1/provision</code>). “Allow creating new devices” creates it (a name that exists is
          refused); “Check pre-provisioned devices” hands out the credentials of a device of this profile
          created beforehand, once.
        </Text>
        <form onSubmit={submit}>
          <Stack gap="xs">
            <Select
              label="Strategy"
              data={Object.entries(PROVISION_LABELS).map(([value, label]) => ({ value, label }))}
              value={strategy}
              onChange={(v) => v && setStrategy(v as Strategy)}
              allowDeselect={false}
              disabled={!canEdit}
              w={320}
              data-testid="provision-strategy"
            />
            {enabled && (
              <Group align="flex-end" grow>
                <KeyInput
                  label="Provision device key"
                  value={key}
                  onChange={setKey}
                  canEdit={canEdit}
                  testId="provision-key"
                />
                <KeyInput
                  label="Provision device secret"
                  value={secret}
                  onChange={setSecret}
                  canEdit={canEdit}
                  testId="provision-secret"
                />
              </Group>
            )}
            <ErrorAlert error={save.error} title="Could not save provisioning" />
            {canEdit && (
              <Group justify="flex-end">
                <Button
                  type="submit"
                  disabled={!changed || !complete}
                  loading={save.isPending}
                  data-testid="save-provisioning"
                >
                  Save provisioning
                </Button>
              </Group>
            )}
          </Stack>
        </form>
        {examples && (
          <Tabs defaultValue="mqtt" keepMounted={false}>
            <Tabs.List>
              <Tabs.Tab value="mqtt">MQTT</Tabs.Tab>
              <Tabs.Tab value="http">HTTP</Tabs.Tab>
              <Tabs.Tab value="python">Python SDK</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="mqtt" pt="sm">
              <CopyValue
                value={examples.mqtt}
                block
                label="Copy mosquitto_rr command"
                testId="provision-mqtt-example"
              />
            </Tabs.Panel>
            <Tabs.Panel value="http" pt="sm">
              <CopyValue
                value={examples.http}
                block
                label="Copy curl command"
                testId="provision-http-example"
              />
            </Tabs.Panel>
            <Tabs.Panel value="python" pt="sm">
              <CopyValue
                value={examples.python}
                block
                label="Copy Python"
                testId="provision-python-example"
              />
            </Tabs.Panel>
          </Tabs>
        )}
      </Stack>
    </Card>
  );
}
