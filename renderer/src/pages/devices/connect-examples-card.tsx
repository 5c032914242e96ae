import { Alert, Anchor, Card, Skeleton, Stack, Tabs, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useDeviceCredentials, usePlatformInfo } from '../../api/hooks.ts';
import type { PlatformInfo } from '../../api/client.ts';
import { CopyValue } from '../../components/copy-value.tsx';
import { Link } from '../../router.tsx';

const SAMPLE = '{"temperature":25,"humidity":60}';

function mqttHostPort(info: PlatformInfo): { host: string; port: string } {
  try {
    const url = new URL(info.mqtt);
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || '1883' };
  } catch {
    return { host: window.location.hostname, port: '1883' };
  }
}

export function mosquittoCommand(info: PlatformInfo, token: string): string {
  const { host, port } = mqttHostPort(info);
  return `mosquitto_pub -d -q 1 -h ${host} -p ${port} -t v1/devices/me/telemetry -u "${token}" -m '${SAMPLE}'`;
}

export function deviceCurlCommand(info: PlatformInfo, token: string): string {
  return `curl -v -X POST ${info.http}/api/v1/${token}/telemetry \\\n  -H "Content-Type: application/json" \\\n  -d '${SAMPLE}'`;
}

export function restCurlCommand(info: PlatformInfo, deviceId: string): string {
  return (
    `curl -X POST ${info.http}/api/plugins/telemetry/DEVICE/${deviceId}/timeseries/ANY \\\n` +
    `  -H "Content-Type: application/json" \\\n` +
    `  -H "X-Authorization: ApiKey $SANDBOARD_API_KEY" \\\n` +
    `  -d '${SAMPLE}'`
  );
}

interface Example {
  value: string;
  label: string;
  /** what to know before pasting it (null: nothing) */
  note: ReactNode;
  command: string;
  copyLabel: string;
  testId: string;
}

function examples(info: PlatformInfo, token: string, deviceId: string): Example[] {
  return [
    {
      value: 'mqtt',
      label: 'MQTT',
      note: !info.mqttBroker && (
        <Alert variant="light" color="yellow" p="xs">
          <Text size="xs">
            The MQTT broker arrives in step 3. Until then port {mqttHostPort(info).port} is reserved and
            closes connections; this command will work as is once it lands.
          </Text>
        </Alert>
      ),
      command: mosquittoCommand(info, token),
      copyLabel: 'Copy mosquitto_pub command',
      testId: 'mqtt-example',
    },
    {
      value: 'http',
      label: 'HTTP',
      note: !info.deviceHttpApi && (
        <Alert variant="light" color="yellow" p="xs">
          <Text size="xs">
            The device HTTP API (<code>/api/v1/&#123;token&#125;/telemetry</code>) is not served yet.
            Meanwhile the REST API tab works today.
          </Text>
        </Alert>
      ),
      command: deviceCurlCommand(info, token),
      copyLabel: 'Copy curl command',
      testId: 'curl-example',
    },
    {
      value: 'rest',
      label: 'REST API',
      note: (
        <Text size="xs" c="dimmed">
          Works now. Create an API key on the{' '}
          <Anchor component={Link} to="/security" size="xs">
            Security
          </Anchor>{' '}
          page and put it in <code>SANDBOARD_API_KEY</code>.
        </Text>
      ),
      command: restCurlCommand(info, deviceId),
      copyLabel: 'Copy curl command',
      testId: 'rest-example',
    },
  ];
}

/** Ready-to-paste commands that send this device telemetry, with its token and the real ports. */
export function ConnectExamplesCard({ deviceId }: { deviceId: string }) {
  const info = usePlatformInfo();
  const credentials = useDeviceCredentials(deviceId);
  const token = credentials.data?.credentialsId;
  const shown = info.data && token ? examples(info.data, token, deviceId) : null;
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="xs">
        <Title order={4}>Send telemetry</Title>
        {!shown ? (
          <Skeleton h={80} />
        ) : (
          <Tabs defaultValue="mqtt" keepMounted={false}>
            <Tabs.List>
              {shown.map((e) => (
                <Tabs.Tab key={e.value} value={e.value}>
                  {e.label}
                </Tabs.Tab>
              ))}
            </Tabs.List>
            {shown.map((e) => (
              <Tabs.Panel key={e.value} value={e.value} pt="sm">
                <Stack gap="xs">
                  {e.note}
                  <CopyValue value={e.command} block label={e.copyLabel} testId={e.testId} />
                </Stack>
              </Tabs.Panel>
            ))}
          </Tabs>
        )}
      </Stack>
    </Card>
  );
}
