import { Alert, Anchor, Card, Skeleton, Stack, Tabs, Text, Title } from '@mantine/core';
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

/** Ready-to-paste commands that send this device telemetry, with its token and the real ports. */
export function ConnectExamplesCard({ deviceId }: { deviceId: string }) {
  const info = usePlatformInfo();
  const credentials = useDeviceCredentials(deviceId);
  const token = credentials.data?.credentialsId;
  return (
    <Card withBorder radius="md" p="md">
      <Stack gap="xs">
        <Title order={4}>Send telemetry</Title>
        {!info.data || !token ? (
          <Skeleton h={80} />
        ) : (
          <Tabs defaultValue="mqtt" keepMounted={false}>
            <Tabs.List>
              <Tabs.Tab value="mqtt">MQTT</Tabs.Tab>
              <Tabs.Tab value="http">HTTP</Tabs.Tab>
              <Tabs.Tab value="rest">REST API</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="mqtt" pt="sm">
              <Stack gap="xs">
                {!info.data.mqttBroker && (
                  <Alert variant="light" color="yellow" p="xs">
                    <Text size="xs">
                      The MQTT broker arrives in step 3. Until then port {mqttHostPort(info.data).port} is
                      reserved and closes connections; this command will work as is once it lands.
                    </Text>
                  </Alert>
                )}
                <CopyValue
                  value={mosquittoCommand(info.data, token)}
                  block
                  label="Copy mosquitto_pub command"
                  testId="mqtt-example"
                />
              </Stack>
            </Tabs.Panel>
            <Tabs.Panel value="http" pt="sm">
              <Stack gap="xs">
                {!info.data.deviceHttpApi && (
                  <Alert variant="light" color="yellow" p="xs">
                    <Text size="xs">
                      The device HTTP API (<code>/api/v1/&#123;token&#125;/telemetry</code>) is not served
                      yet. Meanwhile the REST API tab works today.
                    </Text>
                  </Alert>
                )}
                <CopyValue
                  value={deviceCurlCommand(info.data, token)}
                  block
                  label="Copy curl command"
                  testId="curl-example"
                />
              </Stack>
            </Tabs.Panel>
            <Tabs.Panel value="rest" pt="sm">
              <Stack gap="xs">
                <Text size="xs" c="dimmed">
                  Works now. Create an API key on the{' '}
                  <Anchor component={Link} to="/security" size="xs">
                    Security
                  </Anchor>{' '}
                  page and put it in <code>SANDBOARD_API_KEY</code>.
                </Text>
                <CopyValue
                  value={restCurlCommand(info.data, deviceId)}
                  block
                  label="Copy curl command"
                  testId="rest-example"
                />
              </Stack>
            </Tabs.Panel>
          </Tabs>
        )}
      </Stack>
    </Card>
  );
}
